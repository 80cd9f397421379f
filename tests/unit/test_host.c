/* What the host was doing: host operators from the trace on a small model built here
 * (nesting, overlapping frames, a kernel launched from a nested operator), and on every
 * real trace against the independent recomputation of tests/checks/host_check.py. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/host/call_tree.h"
#include "model/host/host_gaps.h"
#include "model/host/host_launch.h"
#include "model/host/host_ops.h"
#include "model/host/host_self.h"
#include "model/host/launch_steps.h"
#include "report/report.h"
#include "../runner.h"
#include "helpers.h"

#define US 1000

static void op(struct model *m, uint32_t l, ns_t t0, ns_t t1, const char *name, const char *cat)
{
    model_add_slice(m, l, t0 * US, (t1 - t0) * US, name, strlen(name), cat, strlen(cat), 0, UINT64_MAX, 0);
}

static void flow(struct model *m, uint32_t l, char ph, ns_t t, uint64_t id)
{
    model_add_flow_point(m, l, (enum flow_ph)ph, t * US, "async_npu", 9, "f", 1, id, false, true);
}

static const struct host_op *find_op(const struct model *m, const struct host_ops *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(model_str(m, h->ops[i].name), name))
            return &h->ops[i];
    return NULL;
}

/* Times in µs, Python thread 1:
 *   frame step [0,100] (python_function)
 *     aten::outer [10,60] (cpu_op) > aten::inner [20,40] (cpu_op, launches k1)
 *                                  > aten::outer [45,55] (nested call of the same name, launches k2)
 *     exit frame [58,70] (python_function): overlaps aten::outer's end without nesting
 *   aten::solo [80,90] (cpu_op, launches nothing)
 * Device stream: k1 [100,130], k2 [130,135], k3 [140,150] (no flow). */
static struct model *small_model(void)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "1", "Python", "1");
    uint32_t dev = test_lane(m, "2", "Ascend Hardware", "7");
    op(m, py, 0, 100, "step", "python_function");
    op(m, py, 10, 60, "aten::outer", "cpu_op");
    op(m, py, 20, 40, "aten::inner", "cpu_op");
    op(m, py, 45, 55, "aten::outer", "cpu_op");
    op(m, py, 58, 70, "exit", "python_function");
    op(m, py, 80, 90, "aten::solo", "cpu_op");
    op(m, dev, 100, 130, "k1", "");
    op(m, dev, 130, 135, "k2", "");
    op(m, dev, 140, 150, "k3", "");
    flow(m, py, 's', 20, 1);
    flow(m, dev, 'f', 100, 1);
    flow(m, py, 's', 45, 2);
    flow(m, dev, 'f', 130, 2);
    CHECK(model_finalize(m) == 0);
    return m;
}

TEST(host_ops_small_model_figures)
{
    struct model *m = small_model();
    struct host_ops *h = host_ops_compute(m, NULL);
    CHECK(h != NULL);
    if (!h) {
        model_free(m);
        return;
    }
    CHECK(!h->all_host_slices);
    CHECK_INT(h->n, 3);   /* outer, inner, solo: frames are not operators */
    const struct host_op *outer = find_op(m, h, "aten::outer");
    const struct host_op *inner = find_op(m, h, "aten::inner");
    const struct host_op *solo = find_op(m, h, "aten::solo");
    CHECK(outer && inner && solo);
    if (outer && inner && solo) {
        CHECK_INT(outer->calls, 2);
        CHECK_INT(outer->total, 60 * US);
        /* [10,60]: inner [20,40] and the nested call [45,55] are its children, and the exit
         * frame, which started later, holds [58,60]: 50 - 20 - 10 - 2 = 18; the nested call 10 */
        CHECK_INT(outer->self, 28 * US);
        CHECK_INT(outer->kernels, 2);          /* k1 through inner, k2 once though two calls hold it */
        CHECK_INT(outer->device, 35 * US);
        CHECK_INT(inner->self, 20 * US);
        CHECK_INT(inner->kernels, 1);
        CHECK_INT(inner->device, 30 * US);
        CHECK_INT(solo->kernels, 0);
        CHECK_INT(solo->device, 0);
        CHECK_STR(model_str(m, h->ops[0].name), "aten::outer");   /* by host total */
    }
    host_ops_free(h);
    model_free(m);
}

/* The slice of m named name starting at t0 µs. */
static uint32_t slice_at(const struct model *m, const char *name, ns_t t0)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (m->start[s] == t0 * US && !strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

static const struct host_op *find_shaped(const struct model *m, const struct host_ops *h,
                                         const struct host_shapes *sh, const char *name, const char *shapes)
{
    for (size_t i = 0; i < h->n; i++) {
        const char *t = h->ops[i].shapes ? strtab_get(sh->str, h->ops[i].shapes - 1) : NULL;
        if (!strcmp(model_str(m, h->ops[i].name), name) && (shapes ? t && !strcmp(t, shapes) : !t))
            return &h->ops[i];
    }
    return NULL;
}

/* Calls of one name with different shapes are rows of their own, each with its own device
 * time; calls without shapes stay one row of the name; the report writes the text. */
TEST(host_ops_per_name_and_shapes)
{
    struct model *m = small_model();
    struct host_shapes *sh = host_shapes_new(m->nslices);
    CHECK(sh != NULL);
    if (!sh) {
        model_free(m);
        return;
    }
    CHECK(host_shapes_set(sh, slice_at(m, "aten::outer", 10), "[[2,3]]", 7));
    CHECK(host_shapes_set(sh, slice_at(m, "aten::outer", 45), "[[4]]", 5));
    CHECK(host_shapes_set(sh, slice_at(m, "aten::inner", 20), "[[2,3]]", 7));
    CHECK_INT(sh->recorded, 3);
    CHECK(host_shapes_text(sh, slice_at(m, "aten::solo", 80)) == NULL);
    struct host_ops *h = host_ops_compute(m, sh);
    CHECK(h && h->n == 4);
    const struct host_op *big = h ? find_shaped(m, h, sh, "aten::outer", "[[2,3]]") : NULL;
    const struct host_op *small = h ? find_shaped(m, h, sh, "aten::outer", "[[4]]") : NULL;
    const struct host_op *inner = h ? find_shaped(m, h, sh, "aten::inner", "[[2,3]]") : NULL;
    const struct host_op *solo = h ? find_shaped(m, h, sh, "aten::solo", NULL) : NULL;
    CHECK(big && small && inner && solo);
    if (big && small && inner && solo) {
        CHECK_INT(big->calls, 1);
        CHECK_INT(big->total, 50 * US);
        CHECK_INT(big->self, 18 * US);
        CHECK_INT(big->kernels, 2);        /* k1 through inner, k2 through the nested call */
        CHECK_INT(big->device, 35 * US);
        CHECK_INT(small->calls, 1);
        CHECK_INT(small->self, 10 * US);
        CHECK_INT(small->kernels, 1);
        CHECK_INT(small->device, 5 * US);
        CHECK_INT(inner->device, 30 * US);
        CHECK_INT(solo->calls, 1);
    }
    host_ops_free(h);
    struct rank_data rd = { .rank = 0, .model = m };
    struct host_shapes *per_rank[1] = { sh };
    struct rowset *rs = host_ops_session_rowset(&(struct session){ .ranks = &rd, .nranks = 1 }, -1, per_rank);
    CHECK(rs && rs->nrows == 4);
    if (rs) {
        size_t cs = rowset_find_col(rs, "input_shapes"), cn = rowset_find_col(rs, "name");
        size_t shaped = 0;
        for (size_t r = 0; r < rs->nrows; r++)
            if (!rowset_is_null(rs, r, cs)) {
                shaped++;
                CHECK(!strcmp(strtab_get(rs->str, rs->vals[r * rs->ncols + cs].s), "[[2,3]]") || !strcmp(strtab_get(rs->str, rs->vals[r * rs->ncols + cs].s), "[[4]]"));
            } else {
                CHECK_STR(strtab_get(rs->str, rs->vals[r * rs->ncols + cn].s), "aten::solo");
            }
        CHECK_INT(shaped, 3);
        CHECK(rs->caption && strstr(rs->caption, "input shapes (recorded on 3 of 4 calls)"));
    }
    rowset_free(rs);
    host_shapes_free(sh);
    model_free(m);
}

TEST(host_launch_walks_enclosing_frames)
{
    struct model *m = small_model();
    uint32_t k1 = SLICE_NONE;
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), "k1"))
            k1 = s;
    uint32_t out[HOST_LAUNCH_MAX];
    size_t n = host_launch_slices(m, k1, out, HOST_LAUNCH_MAX);
    CHECK_INT(n, 3);   /* aten::inner, aten::outer, step */
    bool step = false;
    for (size_t i = 0; i < n; i++)
        step |= !strcmp(model_str(m, m->name[out[i]]), "step");
    CHECK(step);
    model_free(m);
}

TEST(host_ops_report_section_keys)
{
    struct model *m = small_model();
    struct rank_data rd = { .rank = 0, .model = m };
    struct session s = { .ranks = &rd, .nranks = 1 };
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_host_ops(&s, &o);
    CHECK(rs != NULL);
    if (rs) {
        const char *keys[] = { "name", "input_shapes", "calls", "host_total_us", "host_self_us", "device_us", "kernels" };
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            CHECK(rowset_find_col(rs, keys[i]) != SIZE_MAX);
        CHECK_INT(rs->nrows, 3);
        CHECK(rowset_is_null(rs, 0, rowset_find_col(rs, "input_shapes")));
        rowset_free(rs);
    }
    model_free(m);
}

TEST(host_ops_match_independent_check_on_real_traces)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("host", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "host_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "host operators (calls, host total and self, device, kernels) exact"));
    free(out);
}

/* --- device idle gaps ------------------------------------------------------------------ */

struct gaps_seen { struct host_gap g[8]; size_t n; };

static void keep_gap(const struct host_gap *g, void *ctx)
{
    struct gaps_seen *s = ctx;
    if (s->n < 8)
        s->g[s->n++] = *g;
}

/* Times in µs. Python thread 1: step [0,300] > C [5,8] (launches k3), A [10,20] (launches
 * k1), slow [25,200], B [200,210] (launches k2). Device: k1 [30,50], k3 [60,70], k2 [220,230],
 * k4 [240,250] (no flow). Gaps: [50,60) before k3, launched at 5: sync; [70,220) before k2,
 * launched at 200: host_bound, begun inside slow; [230,240) before k4: other. */
static struct model *gaps_model(void)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "1", "Python", "1");
    uint32_t dev = test_lane(m, "2", "Ascend Hardware", "7");
    uint32_t other = test_lane(m, "1", "Python", "2");
    op(m, other, 0, 50, "step", "python_function");   /* another thread: merges at the root */
    op(m, py, 0, 300, "step", "python_function");
    op(m, py, 5, 8, "C", "cpu_op");
    op(m, py, 10, 20, "A", "cpu_op");
    op(m, py, 25, 200, "slow", "python_function");
    op(m, py, 200, 210, "B", "cpu_op");
    op(m, dev, 30, 50, "k1", "");
    op(m, dev, 60, 70, "k3", "");
    op(m, dev, 220, 230, "k2", "");
    op(m, dev, 240, 250, "k4", "");
    flow(m, py, 's', 10, 1);
    flow(m, dev, 'f', 30, 1);
    flow(m, py, 's', 5, 3);
    flow(m, dev, 'f', 60, 3);
    flow(m, py, 's', 200, 2);
    flow(m, dev, 'f', 220, 2);
    CHECK(model_finalize(m) == 0);
    return m;
}

TEST(host_gaps_cause_and_frames)
{
    struct model *m = gaps_model();
    struct flowstats *fs = flowstats_compute(m, NULL);
    struct gaps_seen seen = { .n = 0 };
    CHECK(fs && host_gaps_each(m, fs, keep_gap, &seen) == 0);
    CHECK_INT(seen.n, 3);
    if (seen.n == 3) {
        CHECK_INT(seen.g[0].t0, 50 * US);
        CHECK_INT(seen.g[0].cause, GAP_SYNC);
        CHECK_INT(seen.g[1].t0, 70 * US);
        CHECK_INT(seen.g[1].t1, 220 * US);
        CHECK_INT(seen.g[1].cause, GAP_HOST_BOUND);
        CHECK_INT(seen.g[1].nframes, 2);
        if (seen.g[1].nframes == 2) {
            CHECK_STR(model_str(m, m->name[seen.g[1].frames[0]]), "step");
            CHECK_STR(model_str(m, m->name[seen.g[1].frames[1]]), "slow");
        }
        CHECK_INT(seen.g[2].cause, GAP_OTHER);
        CHECK_INT(seen.g[2].nframes, 1);   /* the thread that launched k2: only step runs at 230 */
        CHECK(!seen.g[2].has_step);
    }
    /* the host-bound walk (what the call tree charges) gives that one gap alone, the same */
    struct gaps_seen bound = { .n = 0 };
    if (fs)
        host_gaps_each_host_bound(m, fs, keep_gap, &bound);
    CHECK_INT(bound.n, 1);
    if (bound.n == 1 && seen.n == 3) {
        CHECK_INT(bound.g[0].t0, seen.g[1].t0);
        CHECK_INT(bound.g[0].t1, seen.g[1].t1);
        CHECK_INT(bound.g[0].cause, GAP_HOST_BOUND);
        CHECK_INT(bound.g[0].nframes, 2);
        CHECK_INT(bound.g[0].frames[1], seen.g[1].frames[1]);
    }
    flowstats_free(fs);
    model_free(m);
}

TEST(host_gaps_match_independent_check_on_real_traces)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("gaps", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "gaps_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "device idle gaps exact (start, duration, cause, step, frames)"));
    free(out);
}

/* --- the call tree ---------------------------------------------------------------------- */

static const struct ct_node *node_named(const struct model *m, const struct call_tree *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(model_str(m, t->nodes[i].name), name))
            return &t->nodes[i];
    return NULL;
}

TEST(call_tree_small_model_figures)
{
    struct model *m = gaps_model();
    struct flowstats *fs = flowstats_compute(m, NULL);
    struct call_tree *t = fs ? call_tree_build(m, fs, 0, NULL) : NULL;
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->n, 5);   /* step (both threads), C, A, slow, B */
        const struct ct_node *step = node_named(m, t, "step"), *slow = node_named(m, t, "slow");
        const struct ct_node *a = node_named(m, t, "A");
        CHECK(step && slow && a);
        if (step && slow && a) {
            CHECK_INT(step->calls, 2);
            CHECK_INT(step->host, 350 * US);
            CHECK_INT(step->device, 40 * US);      /* k1, k3, k2: k4 has no flow */
            CHECK_INT(a->device, 20 * US);
            CHECK_INT(slow->idle_self, 150 * US);  /* the host-bound gap [70,220) began in slow */
            CHECK_INT(slow->idle, 150 * US);
            CHECK_INT(step->idle_self, 0);
            CHECK_INT(step->idle, 150 * US);
            CHECK_INT(slow->depth, 1);
            CHECK_INT(t->nodes[step->first_child].host >= t->nodes[t->nodes[step->first_child].next].host, 1);
        }
    }
    struct call_tree *small = fs ? call_tree_build(m, fs, 2, NULL) : NULL;   /* bounded */
    CHECK(small && small->n == 2 && small->truncated);
    call_tree_free(small);
    call_tree_free(t);
    flowstats_free(fs);
    model_free(m);
}

/* The nesting rule where the timeline's depth rows differ from it: "same" has outer's exact
 * span (added after it: nested in it, one row down); "cross" overlaps outer without nesting
 * (the timeline puts it a row below same, the tree makes it a root); "inner" runs inside
 * cross (three rows down, one level in the tree). */
TEST(call_tree_nests_across_depth_rows)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "1", "Python", "1");
    op(m, py, 0, 10, "outer", "python_function");
    op(m, py, 0, 10, "same", "python_function");
    op(m, py, 5, 15, "cross", "python_function");
    op(m, py, 6, 8, "inner", "python_function");
    CHECK(model_finalize(m) == 0);
    struct call_tree *t = call_tree_build(m, NULL, 0, NULL);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->n, 4);
        const struct ct_node *outer = node_named(m, t, "outer"), *same = node_named(m, t, "same");
        const struct ct_node *cross = node_named(m, t, "cross"), *inner = node_named(m, t, "inner");
        CHECK(outer && same && cross && inner);
        if (outer && same && cross && inner) {
            CHECK_INT(outer->depth, 0);
            CHECK_INT(cross->depth, 0);
            CHECK_INT(same->parent, (uint32_t)(outer - t->nodes));
            CHECK_INT(inner->parent, (uint32_t)(cross - t->nodes));
            CHECK_INT(inner->host, 2 * US);
        }
    }
    call_tree_free(t);
    model_free(m);
}

TEST(call_tree_matches_independent_check_on_real_traces)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("call_tree", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "call_tree_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "call tree nodes exact (calls, host, device, idle, idle self)"));
    free(out);
}

TEST(launch_steps_match_independent_check_on_real_traces)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("launch", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "launch_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "step windows exact (launches, p50, p90, p99, max)"));
    free(out);
}

/* Latencies of the gaps model: k1 20 after A, k3 55 after C, k2 20 after B; no steps: one
 * row without a step, nearest-rank p50 = 20, p90 = p99 = max = 55. */
TEST(launch_steps_small_model)
{
    struct model *m = gaps_model();
    struct rank_data rd = { .rank = 0, .model = m };
    struct session s = { .ranks = &rd, .nranks = 1 };
    struct rowset *rs = launch_steps_session_rowset(&s, -1);
    CHECK(rs && rs->nrows == 1);
    if (rs && rs->nrows == 1) {
        CHECK(rowset_is_null(rs, 0, rowset_find_col(rs, "step")));
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "kernels"))->i, 3);
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "p50_us"))->i, 20 * US);
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "p90_us"))->i, 55 * US);
        CHECK_INT(rowset_cell(rs, 0, rowset_find_col(rs, "max_us"))->i, 55 * US);
    }
    rowset_free(rs);
    model_free(m);
}

/* --- the planted slow frame --------------------------------------------------------------- */

#define HOST_FRAMES "fixtures/advisor/host_frames"

/* The planted frame ranks first by idle_self_us summed over its places in the call tree, is
 * the innermost frame of the largest gap of every planted step, and the host_bound finding
 * names it first. */
TEST(host_frames_planted_frame_owns_the_idle)
{
    if (!test_is_dir(HOST_FRAMES))
        SKIP("fixtures not generated (make fixtures)");
    char *planted = test_read_file(HOST_FRAMES "/PLANTED.json", NULL);
    cJSON *pj = planted ? cJSON_Parse(planted) : NULL;
    free(planted);
    const char *frame = cJSON_GetStringValue(cJSON_GetObjectItem(pj, "what"));
    int st = 0;
    char *out = test_aptop(&st, "report --format json --section call_tree,gaps,advice '%s'", HOST_FRAMES);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    free(out);
    CHECK(frame && j);
    if (!frame || !j) {
        cJSON_Delete(pj);
        cJSON_Delete(j);
        return;
    }
    /* 1. the call tree's idle ranking, per frame name */
    const char *names[64];
    double idle[64];
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(j, "call_tree")) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(r, "name"));
        double v = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "idle_self_us"));
        size_t i = 0;
        while (i < n && strcmp(names[i], name))
            i++;
        if (i == n && n < 64) {
            names[n] = name;
            idle[n++] = 0;
        }
        if (i < n)
            idle[i] += v;
    }
    size_t top = 0;
    for (size_t i = 1; i < n; i++)
        if (idle[i] > idle[top])
            top = i;
    CHECK(n > 2 && !strcmp(names[top], frame));
    /* 2. the largest gap of each planted window's step begins in the planted frame */
    const cJSON *win;
    size_t windows = 0, owned = 0;
    cJSON_ArrayForEach(win, cJSON_GetObjectItem(pj, "windows")) {
        long long a = atoll(cJSON_GetStringValue(cJSON_GetArrayItem(win, 0)));
        const cJSON *best = NULL;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(j, "gaps")) {
            double start = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "start_us"));
            if (start * 1000 >= (double)a - 1000 && start * 1000 <= (double)a + 1000 &&
                (!best || cJSON_GetNumberValue(cJSON_GetObjectItem(r, "dur_us")) >
                              cJSON_GetNumberValue(cJSON_GetObjectItem(best, "dur_us"))))
                best = r;
        }
        windows++;
        const char *inner = best ? cJSON_GetStringValue(cJSON_GetObjectItem(best, "innermost")) : NULL;
        owned += inner && !strcmp(inner, frame);
    }
    CHECK(windows > 0);
    CHECK_INT(owned, windows);
    /* 3. the finding names it first, and so does its costliest evidence */
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "advice"), 0);
    const char *summary = cJSON_GetStringValue(cJSON_GetObjectItem(f, "summary"));
    char want[160];
    snprintf(want, sizeof want, "host frames owning most: %s (", frame);
    CHECK(summary && strstr(summary, want));
    const cJSON *ev = cJSON_GetObjectItem(f, "evidence");
    const cJSON *e0 = cJSON_GetArrayItem(ev, 0);
    const char *what = cJSON_GetStringValue(cJSON_GetObjectItem(e0, "slice"));
    snprintf(want, sizeof want, "host in %s", frame);
    CHECK(what && strstr(what, want));
    cJSON_Delete(pj);
    cJSON_Delete(j);
}
