/* The advisor on generated captures (tools/gen_advisor_fixtures.py): each rule fires on the
 * capture that plants its problem, only there, with its evidence inside the planted windows;
 * nothing fires on the clean capture. Also the report's advice and overview sections. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/analysis/advisor.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/overview.h"

struct loaded {
    struct diag *d;
    struct capture c;
    struct session *s;
};

static bool load(struct loaded *l, const char *dir)
{
    memset(l, 0, sizeof *l);
    if (!test_is_dir(dir))
        return false;
    l->d = diag_new();
    if (capture_discover(dir, &l->c, l->d) != 0)
        return false;
    l->s = session_new(&l->c, l->d);
    struct loader_opts o = { .rank = -1 };
    return l->s && loader_run_sync(&l->c, l->s, &o) > 0;
}

static void unload(struct loaded *l)
{
    session_free(l->s);
    capture_free(&l->c);
    diag_free(l->d);
}

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
    struct loaded l;
    CHECK(load(&l, dir));
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
    unload(&l);
    cJSON_Delete(pl);
}

TEST(advisor_clean_capture_has_no_findings)
{
    struct loaded l;
    if (!test_is_dir("fixtures/advisor/clean"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(load(&l, "fixtures/advisor/clean"));
    CHECK_INT(l.s->nranks, 2);
    struct advice a;
    CHECK_INT(advisor_run(l.s, &a), 0);
    for (size_t i = 0; i < a.n; i++)
        test_fail(__FILE__, __LINE__, "clean capture: %s fired (%s)", a.f[i].rule->id, a.f[i].summary);
    advice_free(&a);
    unload(&l);
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
    struct loaded l;
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(load(&l, "fixtures/advisor/host_bound"));
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
    unload(&l);
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
    struct loaded l;
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures not generated (make fixtures)");
    CHECK(load(&l, "fixtures/advisor/host_bound"));
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
    unload(&l);
}

/* The overview rows of the real captures equal an independent computation from the trace
 * and CSV files (tests/checks/overview_check.py). */
TEST(overview_matches_independent_check_on_real_captures)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    int st = 0;
    char *out = test_check("overview", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "overview_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "ranks: overview figures equal the trace and CSV figures"));
    free(out);
}
