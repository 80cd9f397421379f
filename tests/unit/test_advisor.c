/* The advisor on generated captures (tools/gen_advisor_fixtures.py): each rule fires on the
 * capture that plants its problem, only there, with its evidence inside the planted windows;
 * nothing fires on the clean capture. Also the report's advice and overview sections. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/analysis/advisor.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/overview.h"


static cJSON *read_json(const char *path)
{
    char *buf = test_read_file(path, NULL);
    cJSON *j = buf ? cJSON_Parse(buf) : NULL;
    free(buf);
    return j;
}

/* The planted capture of `rule`: exactly one finding, of that rule, on the planted rank,
 * every timed evidence item inside a planted window and one naming the planted thing. */
static void check_planted(const char *rule)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "fixtures/advisor/%s", rule);
    snprintf(path, sizeof path, "%s/PLANTED.json", dir);
    cJSON *pl = read_json(path);
    if (!pl)
        SKIP("fixtures not generated (make fixtures)");
    struct test_loaded l;
    CHECK(test_load(&l, dir));
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    CHECK_INT(a.n, 1);
    for (size_t i = 0; i < a.n; i++)
        if (strcmp(a.f[i].rule->id, rule))
            test_fail(__FILE__, __LINE__, "%s: unexpected finding %s (%s)", rule, a.f[i].rule->id, a.f[i].summary);
    if (a.n >= 1 && !strcmp(a.f[0].rule->id, rule)) {
        const struct adv_finding *f = &a.f[0];
        int want_rank = cJSON_GetObjectItem(pl, "rank")->valueint;
        CHECK(f->rank < l.s->nranks);
        if (f->rank < l.s->nranks)
            CHECK_INT(l.s->ranks[f->rank].rank, want_rank);
        CHECK(f->cost > 0);
        CHECK(f->nev > 0);
        const cJSON *wins = cJSON_GetObjectItem(pl, "windows");
        const char *what = cJSON_GetObjectItem(pl, "what")->valuestring;
        bool named = false;
        for (size_t e = 0; e < f->nev; e++) {
            const struct adv_evidence *ev = &f->ev[e];
            named |= strstr(ev->what, what) != NULL;
            if (!cJSON_GetArraySize(wins) || ev->start == NS_NONE || ev->kind == EV_RANK)
                continue;
            bool inside = false;
            const cJSON *w;
            cJSON_ArrayForEach(w, wins) {
                ns_t w0 = strtoll(cJSON_GetArrayItem(w, 0)->valuestring, NULL, 10);
                ns_t w1 = strtoll(cJSON_GetArrayItem(w, 1)->valuestring, NULL, 10);
                ns_t end = ev->start + (ev->dur != NS_NONE ? ev->dur : 0);
                inside |= ev->start >= w0 && end <= w1;
            }
            if (!inside)
                test_fail(__FILE__, __LINE__, "%s: evidence %zu (%s) at %lld outside the planted windows", rule, e,
                          ev->what, (long long)ev->start);
        }
        if (!named)
            test_fail(__FILE__, __LINE__, "%s: no evidence names '%s' (first: %s)", rule, what, f->ev[0].what);
    }
    advice_free(&a);
    test_unload(&l);
    cJSON_Delete(pl);
}

TEST(advisor_clean_capture_has_no_findings)
{
    struct test_loaded l;
    if (!test_is_dir("fixtures/advisor/clean"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(test_load(&l, "fixtures/advisor/clean"));
    CHECK_INT(l.s->nranks, 2);
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    for (size_t i = 0; i < a.n; i++)
        test_fail(__FILE__, __LINE__, "clean capture: %s fired (%s)", a.f[i].rule->id, a.f[i].summary);
    advice_free(&a);
    test_unload(&l);
}

TEST(advisor_host_bound_planted) { check_planted("host_bound"); }
TEST(advisor_aicore_freq_low_planted) { check_planted("aicore_freq_low"); }
TEST(advisor_slow_rank_planted) { check_planted("slow_rank"); }
TEST(advisor_slow_link_planted) { check_planted("slow_link"); }
TEST(advisor_comm_wait_planted) { check_planted("comm_wait"); }
TEST(advisor_aicpu_ops_planted) { check_planted("aicpu_ops"); }
TEST(advisor_tiny_kernels_planted) { check_planted("tiny_kernels"); }
TEST(advisor_prefill_interference_planted) { check_planted("prefill_interference"); }
TEST(advisor_graph_bubbles_planted) { check_planted("graph_bubbles"); }

/* Every rule has a planted capture, and rule ids are unique. */
TEST(advisor_every_rule_is_planted)
{
    for (size_t i = 0; i < advisor_nrules; i++) {
        char path[256];
        snprintf(path, sizeof path, "tools/gen_advisor_fixtures.py");
        char *src = test_read_file(path, NULL);
        if (!src)
            SKIP("generator not found");
        char want[96];
        snprintf(want, sizeof want, "\"%s\"", advisor_rules[i].id);
        if (!strstr(src, want))
            test_fail(__FILE__, __LINE__, "rule %s has no planted capture", advisor_rules[i].id);
        free(src);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(advisor_rules[i].id, advisor_rules[j].id) != 0);
    }
}

/* The host-bound finding's cost is the flows section's host-bound idle: one definition. */
TEST(advisor_host_bound_cost_is_flowstats_figure)
{
    struct test_loaded l;
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(test_load(&l, "fixtures/advisor/host_bound"));
    struct advice a;
    advisor_run(l.s, &a);
    CHECK(a.n == 1 && l.s->ranks[0].flowstats);
    if (a.n == 1 && l.s->ranks[0].flowstats) {
        CHECK_INT(a.f[0].cost, l.s->ranks[0].flowstats->host_bound_idle);
        /* 10 planted gaps of 320 µs (300 µs late launch + the usual 20 µs) */
        CHECK_INT(a.f[0].cost, 10 * 320000);
        CHECK_INT(a.f[0].ev[0].kind, EV_GAP);
        CHECK(a.f[0].ev[0].slice != SLICE_NONE);
    }
    advice_free(&a);
    test_unload(&l);
}

/* report --section overview,advice: rows with the documented keys. */
TEST(advisor_report_json_rows)
{
    if (!test_is_dir("fixtures/advisor/slow_rank"))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    char *out = test_aptop(&st, "report --format json --section overview,advice fixtures/advisor/slow_rank 2>/dev/null");
    CHECK_INT(st, 0);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CHECK(j != NULL);
    const cJSON *ov = cJSON_GetObjectItem(j, "overview"), *ad = cJSON_GetObjectItem(j, "advice");
    CHECK_INT(cJSON_GetArraySize(ov), 2);
    const cJSON *r0 = cJSON_GetArrayItem(ov, 0);
    static const char *const keys[] = { "rank", "span_us", "device_busy_us", "device_busy_share", "computing_share",
                                        "comm_not_overlapped_share", "free_share", "idle_us", "host_bound_idle_us",
                                        "top_kernels", "decode_p50_us", "decode_p90_us", "decode_p99_us", "slowest" };
    for (size_t k = 0; r0 && k < sizeof keys / sizeof keys[0]; k++)
        if (!cJSON_GetObjectItem(r0, keys[k]))
            test_fail(__FILE__, __LINE__, "overview row lacks %s", keys[k]);
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(ov, 1), "slowest")->valueint, 1);
    CHECK_INT(cJSON_GetArraySize(ad), 1);
    const cJSON *f = cJSON_GetArrayItem(ad, 0);
    CHECK_STR(cJSON_GetObjectItem(f, "rule")->valuestring, "slow_rank");
    CHECK(cJSON_IsString(cJSON_GetObjectItem(f, "severity")));
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(f, "cost_us")));
    const cJSON *ev = cJSON_GetObjectItem(f, "evidence");
    CHECK(cJSON_GetArraySize(ev) >= 1);
    const cJSON *e0 = cJSON_GetArrayItem(ev, 0);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(e0, "kind")));
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(e0, "rank")));
    CHECK(cJSON_GetObjectItem(e0, "start_us") != NULL);
    CHECK(cJSON_GetObjectItem(e0, "dur_us") != NULL);
    cJSON_Delete(j);
    free(out);
}

/* The overview's figures are the existing ones: busy from the kernel share's denominator,
 * host-bound idle from flowstats, phases from steps. */
TEST(overview_uses_existing_figures)
{
    struct test_loaded l;
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(test_load(&l, "fixtures/advisor/host_bound"));
    struct overview o;
    CHECK_INT(overview_compute(l.s, &o), 0);
    CHECK_INT(o.n, 1);
    if (o.n == 1) {
        const struct ov_rank *r = &o.r[0];
        const struct rank_data *rd = &l.s->ranks[0];
        CHECK(r->has_span && r->span == rd->model->t_max - rd->model->t_min);
        CHECK(r->has_busy && r->busy > 0 && r->busy <= r->span);
        CHECK(r->has_idle && r->host_bound == rd->flowstats->host_bound_idle);
        CHECK(r->ntop >= 1 && r->top[0].share > 0 && r->top[0].share <= 1);
        CHECK_INT(rd->steps->phase[PHASE_DECODE].count, 20);
        CHECK(!r->slowest);
    }
    overview_free(&o);
    test_unload(&l);
}

/* The overview rows of the real captures equal an independent computation from the trace
 * and CSV files (tests/checks/overview_check.py). */
TEST(overview_matches_independent_check_on_real_captures)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("overview", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "overview_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "overview figures equal the trace and CSV figures"));
    free(out);
}

/* A slow host in two steps among ordinary copies between every two steps: the host_bound
 * finding's first evidence items are the stalls, in the planted steps, their step named. */
TEST(advisor_host_bound_evidence_starts_in_the_stalled_steps)
{
    cJSON *pl = read_json("fixtures/advisor/host_stall/PLANTED.json");
    if (!pl)
        SKIP("fixtures not generated (make fixtures)");
    struct test_loaded l;
    CHECK(test_load(&l, "fixtures/advisor/host_stall"));
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    CHECK(a.n >= 1 && !strcmp(a.f[0].rule->id, "host_bound"));
    const cJSON *wins = cJSON_GetObjectItem(pl, "windows"), *steps = cJSON_GetObjectItem(pl, "steps");
    CHECK_INT(cJSON_GetArraySize(wins), 2);
    for (int i = 0; a.n >= 1 && i < 2 && (size_t)i < a.f[0].nev; i++) {
        const struct adv_evidence *e = &a.f[0].ev[i];
        const cJSON *w = cJSON_GetArrayItem(wins, i);
        CHECK_INT(e->kind, EV_GAP);
        CHECK_INT(e->start, strtoll(cJSON_GetArrayItem(w, 0)->valuestring, NULL, 10));
        CHECK_INT(e->start + e->dur, strtoll(cJSON_GetArrayItem(w, 1)->valuestring, NULL, 10));
        CHECK_INT(e->step, cJSON_GetArrayItem(steps, i)->valueint);
        CHECK(strstr(e->what, "in step") != NULL);
    }
    /* the copies between steps (3 ms, longer than a stall) follow, with no step */
    if (a.n >= 1 && a.f[0].nev > 2) {
        CHECK_INT(a.f[0].ev[2].step, -1);
        CHECK(a.f[0].ev[2].dur > a.f[0].ev[0].dur);
    }
    advice_free(&a);
    test_unload(&l);
    cJSON_Delete(pl);
}

/* The straggler is told by collectives only: the pipeline sends and receives in which it
 * waits long neither hide it nor add to its cost, and its evidence names them apart. */
TEST(advisor_slow_rank_keeps_point_to_point_apart)
{
    struct test_loaded l;
    if (!test_is_dir("fixtures/advisor/slow_rank_p2p"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(test_load(&l, "fixtures/advisor/slow_rank_p2p"));
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    const struct adv_finding *f = NULL;
    for (size_t i = 0; i < a.n; i++)
        if (!strcmp(a.f[i].rule->id, "slow_rank"))
            f = &a.f[i];
    CHECK(f != NULL);
    if (f) {
        CHECK(f->rank < l.s->nranks && l.s->ranks[f->rank].rank == 1);
        /* rank 0 waits 0.018 ms, rank 1 0.002 ms in each of 20 all-reduces */
        CHECK_INT(f->cost, 20 * 16000);
        CHECK(strstr(f->summary, "straggler") && strstr(f->summary, "collectives"));
        bool named = false;
        for (size_t e = 0; e < f->nev; e++)
            named |= strstr(f->ev[e].what, "point-to-point") != NULL;
        CHECK(named);
    }
    advice_free(&a);
    test_unload(&l);
}

/* No finding costs more than the time it is measured against (communication files whose
 * ops overlap claim waits of several times the span). */
TEST(advisor_no_cost_exceeds_the_time_it_is_measured_against)
{
    static const char *const dirs[] = { "fixtures/ranks4_slow", "fixtures/advisor/comm_wait",
                                        "fixtures/advisor/slow_rank", "fixtures/advisor/comm_wait_steps" };
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        struct test_loaded l;
        if (!test_is_dir(dirs[d]))
            SKIP("fixtures not generated (make fixtures)");
        CHECK(test_load(&l, dirs[d]));
        struct advice a;
        CHECK_INT(advisor_run(l.s, &a), 0);
        CHECK(a.n >= 1);
        for (size_t i = 0; i < a.n; i++)
            if (!(a.f[i].against > 0 && a.f[i].cost <= a.f[i].against && a.f[i].share <= 1.0))
                test_fail(__FILE__, __LINE__, "%s: %s costs %lld ns of %lld ns", dirs[d], a.f[i].rule->id,
                          (long long)a.f[i].cost, (long long)a.f[i].against);
        advice_free(&a);
        test_unload(&l);
    }
}

/* Without a timeline a finding is measured against the rank's step time: 170 ms of waiting
 * in an 810 ms step is 21%, "high". */
TEST(advisor_severity_against_step_time_without_timeline)
{
    struct test_loaded l;
    if (!test_is_dir("fixtures/advisor/comm_wait_steps"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(test_load(&l, "fixtures/advisor/comm_wait_steps"));
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    CHECK_INT(a.n, 1);
    if (a.n == 1) {
        CHECK_STR(a.f[0].rule->id, "comm_wait");
        CHECK_INT(a.f[0].cost, 170000000);
        CHECK_INT(a.f[0].against, 810000000);
        CHECK_STR(a.f[0].against_what, "step time");
        CHECK_INT(a.f[0].severity, ADV_HIGH);
    }
    advice_free(&a);
    test_unload(&l);
}

/* The costs and the host_bound evidence order equal a Python computation from the files
 * (tests/checks/advice_check.py). */
TEST(advisor_matches_independent_check)
{
    if (!test_is_dir("fixtures/advisor/host_stall"))
        SKIP("fixtures not generated (make fixtures)");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("advice", &st);
    if (out && strstr(out, "skipped:")) {
        free(out);
        SKIP("the checks need ../shared/real");
    }
    if (st != 0)
        test_fail(__FILE__, __LINE__, "advice_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "host_bound evidence equal the files"));
    free(out);
}
