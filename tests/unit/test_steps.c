/* Steps and phases: small models built here, the generated serving captures of
 * tools/gen_phase_fixtures.py against their EXPECTED_STEPS.json (boundary F1 and phase
 * accuracy printed per capture), and the real captures' ProfilerStep# markers. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/tables/csv_table.h"
#include "io/trace/trace_json.h"
#include "model/analysis/kernels.h"
#include "model/analysis/steps.h"
#include "model/index/table.h"
#include "report/report.h"
#include "../runner.h"
#include "helpers.h"

#define US 1000

static void flow(struct model *m, uint32_t hl, ns_t th, uint32_t dl, ns_t td, uint64_t id)
{
    model_add_flow_point(m, hl, FLOW_START, th, "async_npu", 9, "torch_to_npu", 12, id, false, true);
    model_add_flow_point(m, dl, FLOW_END, td, "async_npu", 9, "torch_to_npu", 12, id, false, true);
}

/* One decode-like step on lane dl from t: GatherV2, layers x (norm, mm, attn, mm), ArgMax.
 * Returns the end; *first gets the first kernel start. */
static ns_t add_step(struct model *m, uint32_t dl, ns_t t, int layers, const char *attn, ns_t *first)
{
    static const char *const layer[] = { "RmsNorm", "MatMulV2", NULL, "MatMulV2" };
    *first = t;
    test_slice(m, dl, t, 3 * US, "GatherV2");
    t += 4 * US;
    for (int l = 0; l < layers; l++)
        for (int k = 0; k < 4; k++) {
            test_slice(m, dl, t, 10 * US, layer[k] ? layer[k] : attn);
            t += 11 * US;
        }
    test_slice(m, dl, t, 5 * US, "ArgMaxV2");
    return t + 5 * US;
}

TEST(steps_from_profiler_step_markers)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "100", "Python", "1");
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    /* two markers; kernels launched inside each, the second step's last kernel runs after
     * its marker ended (it still belongs to that step: its launch was inside) */
    test_slice(m, py, 0, 100 * US, "ProfilerStep#7");
    test_slice(m, py, 200 * US, 100 * US, "ProfilerStep#8");
    test_slice(m, py, 10 * US, 5 * US, "aten::mm");
    test_slice(m, py, 20 * US, 5 * US, "aten::mm");
    test_slice(m, py, 210 * US, 5 * US, "aten::mm");
    test_slice(m, py, 290 * US, 5 * US, "aten::mm");
    test_slice(m, dev, 30 * US, 10 * US, "aclnnMm_MatMulV2");
    test_slice(m, dev, 50 * US, 10 * US, "aclnnPromptFlashAttention_PromptFlashAttention");
    test_slice(m, dev, 61 * US, 2 * US, "EVENT_RECORD");        /* no flow: follows its stream */
    test_slice(m, dev, 220 * US, 10 * US, "aclnnMm_MatMulV2");
    test_slice(m, dev, 320 * US, 10 * US, "aclnnIncreFlashAttention_IncreFlashAttention");
    flow(m, py, 12 * US, dev, 30 * US, 1);
    flow(m, py, 22 * US, dev, 50 * US, 2);
    flow(m, py, 212 * US, dev, 220 * US, 3);
    flow(m, py, 292 * US, dev, 320 * US, 4);
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s != NULL);
    if (!s) {
        model_free(m);
        return;
    }
    CHECK_INT(s->source, STEP_SRC_MARKERS);
    CHECK_INT(steps_count(s), 2);
    if (steps_count(s) == 2) {
        const struct step *a = steps_get(s, 0), *b = steps_get(s, 1);
        CHECK_INT(a->index, 7);
        CHECK_INT(b->index, 8);
        CHECK_INT(a->kernels, 3);
        CHECK_INT(b->kernels, 2);
        CHECK_INT(a->start, 30 * US);
        CHECK_INT(a->end, 63 * US);
        CHECK_INT(b->start, 220 * US);
        CHECK_INT(b->end, 330 * US);
        CHECK_INT(a->phase, PHASE_PREFILL);
        CHECK_INT(b->phase, PHASE_DECODE);
        CHECK_INT(a->busy, 22 * US);
        CHECK_INT(a->launch, 18 * US);
        CHECK_INT(b->gap_before, 220 * US - 63 * US);
        /* no overlap lanes: computing = kernel union, no comm, free the rest */
        CHECK_INT(a->computing, 22 * US);
        CHECK_INT(a->comm_not_overlapped, 0);
        CHECK_INT(a->free_time, 11 * US);
        CHECK_INT(steps_at(s, 225 * US), 1);
        CHECK_INT(steps_at(s, 100 * US), SIZE_MAX);
    }
    struct rowset *rs = steps_rowset(s);
    CHECK(rs && rs->nrows == 2);
    if (rs && rs->nrows == 2) {
        size_t c = rowset_find_col(rs, "source");
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 0, c)->s), "markers");
        c = rowset_find_col(rs, "busy_share");
        CHECK_NEAR(rowset_cell(rs, 0, c)->d, 22.0 / 33.0, 1e-9);
    }
    rowset_free(rs);
    rs = steps_phase_rowset(s);
    CHECK(rs && rs->nrows == 2);
    rowset_free(rs);
    steps_free(s);
    model_free(m);
}

TEST(steps_host_markers_outermost_execute_model)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "100", "Python", "1");
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    for (int i = 0; i < 3; i++) {
        ns_t t = i * 1000 * US;
        test_slice(m, py, t, 500 * US, "vllm_ascend/worker/worker_v1.py(212): execute_model");
        test_slice(m, py, t + 10 * US, 480 * US, "vllm_ascend/worker/model_runner_v1.py(1389): execute_model");
        test_slice(m, dev, t + 100 * US, 50 * US, "IncreFlashAttention_3");
        test_slice(m, dev, t + 160 * US, 50 * US, "MatMulV2_3");
    }
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s && s->source == STEP_SRC_HOST);
    CHECK(s && steps_count(s) == 3);
    for (size_t i = 0; s && i < steps_count(s); i++) {
        CHECK_INT(steps_get(s, i)->kernels, 2);
        CHECK_INT(steps_get(s, i)->phase, PHASE_DECODE);
        CHECK_INT(steps_get(s, i)->index, (int64_t)i);
    }
    steps_free(s);
    model_free(m);
}

TEST(steps_period_from_device_with_jitter_and_comm)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    uint32_t comm = test_lane(m, "200", "Ascend Hardware", "5");
    ns_t t = 1000000 * US, starts[24], ends[24];
    for (int i = 0; i < 24; i++) {
        ns_t first;
        t = add_step(m, dev, t, 6, i < 2 ? "PromptFlashAttention" : i % 5 == 0 ? "IncreFlashAttention_x" : "IncreFlashAttention", &first);
        /* an allreduce on the comm stream inside the step, overlapping nothing */
        test_slice(m, comm, t, 20 * US, "hcom_allReduce__1_1");
        t += 21 * US;
        starts[i] = first;
        ends[i] = t - 1 * US;
        t += (800 + (i * 37) % 500) * US;       /* the host schedules the next step */
    }
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s && s->source == STEP_SRC_PERIOD);
    CHECK(s && steps_count(s) == 24);
    for (size_t i = 0; s && steps_count(s) == 24 && i < 24; i++) {
        const struct step *st = steps_get(s, i);
        CHECK_INT(st->start, starts[i]);
        CHECK_INT(st->end, ends[i]);
        CHECK_INT(st->phase, i < 2 ? PHASE_PREFILL : PHASE_DECODE);
        CHECK_INT(st->comm_not_overlapped, 20 * US);
        CHECK_INT(st->kernels, 2 + 24 + 1);
    }
    if (s) {
        CHECK_INT(s->phase[PHASE_DECODE].count, 22);
        CHECK_INT(s->phase[PHASE_PREFILL].count, 2);
        struct rowset *rs = steps_canonical_rowset(s, 5);
        CHECK(rs && rs->nrows == 27);
        if (rs && rs->nrows == 27) {
            CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 0, rowset_find_col(rs, "name"))->s), "GatherV2");
            CHECK(rowset_find_col(rs, "grew_us") != SIZE_MAX);
        }
        rowset_free(rs);
        /* a prefill step is not measured against the decode step: no growth column */
        rs = steps_canonical_rowset(s, 0);
        CHECK(rs && rowset_find_col(rs, "grew_us") == SIZE_MAX && rowset_find_col(rs, "step_us") == SIZE_MAX);
        CHECK(rs && rs->caption && strstr(rs->caption, "step 0 is prefill, compared only with steps of its own phase"));
        rowset_free(rs);
    }
    steps_free(s);
    model_free(m);
}

TEST(steps_none_without_device_or_period)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "100", "Python", "1");
    test_slice(m, py, 0, 10 * US, "aten::mm");
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s && steps_count(s) == 0 && s->source == STEP_SRC_NONE && strstr(steps_note(s), "no"));
    steps_free(s);
    model_free(m);

    /* a layer repeats but no idle gap separates repeats: one step, not many */
    m = model_new(TIME_LOCAL_US);
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    ns_t first;
    add_step(m, dev, 0, 40, "IncreFlashAttention", &first);
    CHECK_INT(model_finalize(m), 0);
    s = steps_detect(m, NULL);
    CHECK(s && steps_count(s) == 0 && strstr(steps_note(s), "no periodic steps found"));
    steps_free(s);
    model_free(m);
}

/* Bounded time on a large device-only capture, periodic and not. */
TEST(steps_large_capture_bounded_time)
{
    for (int periodic = 0; periodic < 2; periodic++) {
        struct model *m = model_new(TIME_LOCAL_US);
        uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
        ns_t t = 0;
        uint32_t rnd = 12345;
        char nm[32];
        size_t nsteps = 0;
        if (periodic) {
            for (; nsteps < 2000; nsteps++) {
                ns_t first;
                t = add_step(m, dev, t, 25, "IncreFlashAttention", &first) + 1000 * US;
            }
        } else {
            for (int i = 0; i < 200000; i++) {
                rnd = rnd * 1103515245u + 12345u;
                snprintf(nm, sizeof nm, "op%u", (rnd >> 16) % 40);
                test_slice(m, dev, t, 5 * US, nm);
                t += 6 * US + ((rnd >> 8) % 64 == 0 ? 900 * US : (ns_t)((rnd >> 4) % 7) * US);
            }
        }
        CHECK_INT(model_finalize(m), 0);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        struct steps *s = steps_detect(m, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        printf("  steps_detect on %u kernels (%s): %.0f ms, %zu steps\n", m->nslices,
               periodic ? "periodic" : "random", ms, steps_count(s));
        CHECK(ms < 10000);
        CHECK(s && steps_count(s) == (periodic ? nsteps : 0));
        steps_free(s);
        model_free(m);
    }
}

/* --- generated captures -------------------------------------------------------------------- */

struct exp_step { ns_t start, end; const char *phase; };

/* Boundary F1 (a boundary matches within 5% of its step's length) and phase accuracy. */
static void score(const struct steps *s, const struct exp_step *e, size_t ne, double *f1, double *acc)
{
    size_t nd = steps_count(s), matched = 0, right = 0;
    ns_t *db = malloc((nd + 1) * sizeof *db);
    for (size_t i = 0; i < nd; i++)
        db[i] = steps_get(s, i)->start;
    if (nd)
        db[nd] = steps_get(s, nd - 1)->end;
    size_t ndb = nd ? nd + 1 : 0, j = 0;
    for (size_t i = 0; i <= ne && ne; i++) {
        ns_t b = i < ne ? e[i].start : e[ne - 1].end;
        ns_t len = i < ne ? e[i].end - e[i].start : e[ne - 1].end - e[ne - 1].start;
        ns_t tol = len / 20;
        while (j < ndb && db[j] < b - tol)
            j++;
        if (j < ndb && db[j] <= b + tol) {
            matched++;
            j++;
        }
    }
    double p = ndb ? (double)matched / (double)ndb : 0, r = ne ? (double)matched / (double)(ne + 1) : 0;
    *f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
    for (size_t i = 0; i < ne; i++) {
        /* the detected step overlapping the expected one most */
        size_t best = SIZE_MAX;
        ns_t bo = 0;
        for (size_t k = 0; k < nd; k++) {
            const struct step *st = steps_get(s, k);
            ns_t lo = st->start > e[i].start ? st->start : e[i].start;
            ns_t hi = st->end < e[i].end ? st->end : e[i].end;
            if (hi - lo > bo) {
                bo = hi - lo;
                best = k;
            }
        }
        if (best != SIZE_MAX && !strcmp(step_phase_name(steps_get(s, best)->phase), e[i].phase))
            right++;
    }
    *acc = ne ? (double)right / (double)ne : 1;
    free(db);
}

static void check_capture(const char *root, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/EXPECTED_STEPS.json", root, name);
    char *txt = test_read_file(path, NULL);
    CHECK(txt != NULL);
    cJSON *j = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    CHECK(j != NULL);
    if (!j)
        return;
    const char *want_src = cJSON_GetStringValue(cJSON_GetObjectItem(j, "source"));
    cJSON *arr = cJSON_GetObjectItem(j, "steps");
    size_t ne = (size_t)cJSON_GetArraySize(arr), k = 0;
    struct exp_step *e = calloc(ne + 1, sizeof *e);
    cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        e[k].start = (ns_t)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "start_ns"));
        e[k].end = (ns_t)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "end_ns"));
        e[k].phase = cJSON_GetStringValue(cJSON_GetObjectItem(it, "phase"));
        k++;
    }
    struct diag *d = diag_new();
    struct model *m = model_new(TIME_LOCAL_US);
    snprintf(path, sizeof path, "%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", root, name);
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    struct table *kt = NULL;
    snprintf(path, sizeof path, "%s/%s/ASCEND_PROFILER_OUTPUT/kernel_details.csv", root, name);
    if (access(path, R_OK) == 0) {
        CHECK_INT(csv_table_load(path, TK_KERNELS, &kt, d, NULL), 0);
        if (kt)
            kernels_join(kt, m, d);
    }
    struct steps *s = steps_detect(m, kt);
    CHECK(s != NULL);
    if (s) {
        double f1 = 0, acc = 0;
        if (!strcmp(want_src, "none")) {
            printf("  %-26s expected no steps: found %zu (%s)\n", name, steps_count(s), steps_note(s));
            CHECK_INT(steps_count(s), 0);
            CHECK(strstr(steps_note(s), "no periodic steps found") != NULL);
        } else if (!strcmp(name, "one_step") && steps_count(s) == 0) {
            printf("  %-26s one step: %s\n", name, steps_note(s));
            CHECK(strstr(steps_note(s), "no periodic steps found") != NULL);
        } else {
            score(s, e, ne, &f1, &acc);
            printf("  %-26s %3zu steps (expected %3zu) source %-7s boundary F1 %.3f  phase accuracy %.3f\n",
                   name, steps_count(s), ne, step_source_name(s->source), f1, acc);
            if (steps_count(s) > 1 || ne > 1)
                CHECK_STR(step_source_name(s->source), want_src);
            CHECK(f1 >= 0.98);
            CHECK(acc >= 0.98);
        }
    }
    steps_free(s);
    table_free(kt);
    model_free(m);
    diag_free(d);
    free(e);
    cJSON_Delete(j);
}

TEST(steps_generated_captures)
{
    char dir[] = "/tmp/aptop_phases_XXXXXX";
    if (!mkdtemp(dir))
        SKIP("no temporary directory");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tools/gen_phase_fixtures.py %s 2>&1", dir);
    int st = -1;
    char *out = test_run(cmd, &st);
    free(out);
    if (st != 0) {
        rmdir(dir);
        SKIP("python3 or tools/gen_phase_fixtures.py not available");
    }
    static const char *const names[] = {
        "eager_profiler_steps", "eager_host_markers", "eager_decode_device_only", "chunked_prefill",
        "multi_stream", "graph_decode", "one_step", "no_period",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_capture(dir, names[i]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    out = test_run(cmd, &st);
    free(out);
}

/* --- real captures: one ProfilerStep#50 per rank --------------------------------------------- */

/* Independently of the C code: the device kernels of a one-step capture (Ascend Hardware X
 * events, the profiler's PROFILING_ENABLE/DISABLE tasks left out), their count, first start
 * and last end in exact ns from the decimal text. */
static const char py_step_extent[] =
    "import json,sys\n"
    "from decimal import Decimal as D, ROUND_HALF_UP\n"
    "ev=json.loads(open(sys.argv[1]).read(), parse_float=D)\n"
    "hw={e['pid'] for e in ev if e.get('ph')=='M' and e.get('name')=='process_name' and e['args'].get('name')=='Ascend Hardware'}\n"
    "k=[e for e in ev if e.get('ph')=='X' and e.get('pid') in hw and e['name'] not in ('PROFILING_ENABLE','PROFILING_DISABLE')]\n"
    "ns=lambda v: int((D(str(v))*1000).quantize(D(1), rounding=ROUND_HALF_UP))\n"
    "print(len(k), min(ns(e['ts']) for e in k), max(ns(e['ts'])+ns(e['dur']) for e in k))\n";

static bool python_step_extent(const char *trace, long long *n, long long *t0, long long *t1)
{
    char tmp[] = "/tmp/aptop_test_steps_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return false;
    bool ok = write(fd, py_step_extent, sizeof py_step_extent - 1) == (ssize_t)(sizeof py_step_extent - 1);
    close(fd);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "python3 %s '%s' 2>&1", tmp, trace);
    int st = -1;
    char *out = ok ? test_run(cmd, &st) : NULL;
    unlink(tmp);
    ok = out && st == 0 && sscanf(out, "%lld %lld %lld", n, t0, t1) == 3;
    free(out);
    return ok;
}

TEST(steps_real_profiler_steps)
{
    static const char *const lv[] = { "level0", "level1", "level2" };
    int seen = 0;
    for (int l = 0; l < 3; l++)
        for (int r = 0; r < 2; r++) {
            char rel[256];
            snprintf(rel, sizeof rel,
                     "Ascend-msinsight/test/data/pytorch/text/%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
                     lv[l], r);
            REAL_OR_SKIP(path, rel);
            /* independent: the markers as written in the file */
            char *txt = test_read_file(path, NULL);
            CHECK(txt != NULL);
            if (!txt)
                continue;
            int markers = 0;
            long idx = -1;
            for (const char *p = txt; (p = strstr(p, "\"ProfilerStep#")); p++) {
                markers++;
                idx = strtol(p + 14, NULL, 10);
            }
            free(txt);
            struct diag *d = diag_new();
            struct model *m = model_new(TIME_LOCAL_US);
            CHECK_INT(trace_json_load(m, path, d, NULL), 0);
            CHECK_INT(model_finalize(m), 0);
            struct steps *s = steps_detect(m, NULL);
            CHECK(s != NULL);
            if (s) {
                CHECK_INT(s->source, STEP_SRC_MARKERS);
                CHECK_INT(steps_count(s), markers);
                if (steps_count(s) == 1 && markers == 1) {
                    const struct step *st = steps_get(s, 0);
                    CHECK_INT(st->index, idx);
                    CHECK(st->kernels > 0);
                    CHECK(st->start >= st->mark_start);
                    CHECK(st->end > st->start);
                    CHECK(st->computing + st->comm_not_overlapped + st->free_time == st->end - st->start);   /* free is the rest */
                    /* every kernel of these captures is the step's, the profiler's own tasks
                     * are not: the step ends with the last kernel, not when profiling stopped */
                    long long pn = 0, p0 = 0, p1 = 0;
                    CHECK(python_step_extent(path, &pn, &p0, &p1));
                    CHECK_INT(st->kernels, pn);
                    CHECK_INT(st->start, p0);
                    CHECK_INT(st->end, p1);
                    printf("  %s rank%d: ProfilerStep#%ld, %u kernels, %.3f ms, busy %.1f%%\n", lv[l], r, idx,
                           st->kernels, (double)(st->end - st->start) / 1e6,
                           100.0 * (double)st->busy / (double)(st->end - st->start));
                }
                seen++;
            }
            steps_free(s);
            model_free(m);
            diag_free(d);
        }
    CHECK_INT(seen, 6);
}

/* Outliers per phase, and the report sections over a two-rank session (rank column). */
TEST(steps_outliers_and_report_sections)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "100", "Python", "1");
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    for (int i = 0; i < 10; i++) {
        ns_t t = i * 10000 * US;
        char nm[32];
        snprintf(nm, sizeof nm, "ProfilerStep#%d", i);
        test_slice(m, py, t, 5000 * US, nm);
        test_slice(m, dev, t + 100 * US, (i == 6 ? 3000 : 1000 + i) * US, "IncreFlashAttention");
    }
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s && steps_count(s) == 10);
    for (size_t i = 0; s && i < steps_count(s); i++)
        CHECK_INT(steps_get(s, i)->outlier, i == 6);
    if (s) {
        CHECK_INT(s->phase[PHASE_DECODE].count, 10);
        CHECK_INT(s->phase[PHASE_DECODE].p50, 1004 * US);
        CHECK_INT(s->phase[PHASE_DECODE].max, 3000 * US);
        CHECK_INT(s->phase[PHASE_DECODE].p90, 1009 * US);
    }
    struct rank_data rd[2];
    memset(rd, 0, sizeof rd);
    rd[0].rank = 0;
    rd[0].model = m;
    rd[0].steps = s;
    rd[1].rank = 1;
    rd[1].model = m;            /* no steps installed: detected on the fly */
    struct session ses = { .ranks = rd, .nranks = 2 };
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_steps(&ses, &o);
    CHECK(rs && rs->nrows == 20);
    if (rs && rs->nrows == 20) {
        CHECK_STR(rs->cols[0].key, "rank");
        CHECK_INT(rowset_cell(rs, 19, 0)->i, 1);
        size_t c = rowset_find_col(rs, "start_us");
        CHECK_INT(rowset_cell(rs, 1, c)->i, 10100 * US);
    }
    rowset_free(rs);
    o.rank = 1;
    rs = report_phases(&ses, &o);
    CHECK(rs && rs->nrows == 1);
    if (rs && rs->nrows == 1) {
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 0, rowset_find_col(rs, "phase"))->s), "decode");
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "count"))->i, 10);
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "max_us"))->i, 3000 * US);
    }
    rowset_free(rs);
    steps_free(s);
    model_free(m);
}

/* The profiler's own start and stop tasks share the device lanes but belong to no step: the
 * step ends with its last kernel, not with PROFILING_DISABLE long after. */
TEST(steps_leave_out_profiler_control_tasks)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "100", "Python", "1");
    uint32_t dev = test_lane(m, "200", "Ascend Hardware", "2");
    test_slice(m, py, 10 * US, 1000 * US, "ProfilerStep#4");
    test_slice(m, dev, 5 * US, 20, "PROFILING_ENABLE");
    test_slice(m, dev, 20 * US, 30 * US, "MatMulV2");
    test_slice(m, dev, 60 * US, 40 * US, "Add");
    test_slice(m, dev, 900 * US, 20, "PROFILING_DISABLE");
    CHECK_INT(model_finalize(m), 0);
    struct steps *s = steps_detect(m, NULL);
    CHECK(s && steps_count(s) == 1);
    if (s && steps_count(s) == 1) {
        const struct step *st = steps_get(s, 0);
        CHECK_INT(st->kernels, 2);
        CHECK_INT(st->start, 20 * US);
        CHECK_INT(st->end, 100 * US);
        CHECK_INT(st->busy, 70 * US);
    }
    steps_free(s);
    model_free(m);
}
