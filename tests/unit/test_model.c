/* The indexed model: depth rows, queries against brute force, flow binding, lane order. */
#include "model/index/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33) % n;
}

static uint32_t lane_of(struct model *m, const char *pid, const char *tid)
{
    return model_lane(m, pid, strlen(pid), tid, strlen(tid));
}

static uint32_t add(struct model *m, uint32_t lane, ns_t start, ns_t dur, const char *name)
{
    return model_add_slice(m, lane, start, dur, name, strlen(name), "cat", 3, 0, 0, 0);
}

/* Every row sorted by start and free of overlap; lanes hold contiguous ranges. */
static void check_rows(const struct model *m)
{
    uint32_t total = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        total += ln->count;
        CHECK_INT(ln->row_first[0], ln->first);
        CHECK_INT(ln->row_first[ln->ndepth], ln->first + ln->count);
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (uint32_t s = ln->row_first[d]; s < ln->row_first[d + 1]; s++) {
                CHECK_INT(m->lane[s], l);
                CHECK_INT(m->depth[s], d);
                if (s > ln->row_first[d])
                    CHECK(model_end(m, s - 1) <= m->start[s]);
            }
    }
    CHECK_INT(total, m->nslices);
}

TEST(model_depth_nested_and_overlapping)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = lane_of(m, "1", "1");
    uint32_t p = add(m, l, 0, 100, "P");
    uint32_t q = add(m, l, 10, 20, "Q");
    uint32_t a = add(m, l, 200, 10, "A");
    uint32_t b = add(m, l, 205, 10, "B");   /* overlaps A without nesting */
    uint32_t c = add(m, l, 220, 5, "C");
    uint32_t r = add(m, l, 50, 10, "R");    /* added out of order */
    CHECK_INT(model_finalize(m), 0);
    check_rows(m);
    CHECK_INT(m->nslices, 6);
    p = model_build_to_final(m, p); q = model_build_to_final(m, q); r = model_build_to_final(m, r);
    a = model_build_to_final(m, a); b = model_build_to_final(m, b); c = model_build_to_final(m, c);
    CHECK_INT(m->depth[p], 0);
    CHECK_INT(m->depth[q], 1);
    CHECK_INT(m->depth[r], 1);
    CHECK_INT(m->depth[a], 0);
    CHECK_INT(m->depth[b], 1);
    CHECK_INT(m->depth[c], 0);
    CHECK_INT(model_parent(m, q), p);
    CHECK_INT(model_parent(m, b), SLICE_NONE);   /* B is not enclosed by A */
    CHECK_INT(model_parent(m, p), SLICE_NONE);
    CHECK_INT(model_self(m, p), 70);
    CHECK_INT(model_next_in_row(m, q), r);
    CHECK_INT(model_prev_in_row(m, r), q);
    CHECK_INT(model_prev_in_row(m, q), SLICE_NONE);
    CHECK_INT(model_next_in_row(m, p), a);
    CHECK_INT(model_slice_at(m, l, 15), q);
    CHECK_INT(model_slice_at(m, l, 40), p);
    CHECK_INT(model_slice_at(m, l, 100), SLICE_NONE);
    CHECK_INT(model_slice_at(m, l, 207), b);
    CHECK_INT(model_busy(m, l, 0, 1000), 100 + 10 + 5);
    CHECK_INT(model_busy(m, l, 90, 205), 10 + 5);
    CHECK_INT(strcmp(model_str(m, m->name[q]), "Q"), 0);
    model_free(m);
}

TEST(model_identical_slices_all_kept)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = lane_of(m, "1", "1");
    for (int i = 0; i < 50; i++)
        add(m, l, 1000, 10, "same");
    add(m, l, 0, 0, "zero");
    add(m, l, 0, 0, "zero");
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->nslices, 52);
    check_rows(m);
    CHECK_INT(m->lanes[0].ndepth, 50);
    model_free(m);
}

TEST(model_queries_match_brute_force)
{
    rng_state = 12345;
    for (int round = 0; round < 4; round++) {
        struct model *m = model_new(TIME_LOCAL_US);
        uint32_t lanes[3];
        lanes[0] = lane_of(m, "10", "1");
        lanes[1] = lane_of(m, "10", "2");
        lanes[2] = lane_of(m, "20", "1");
        int n = 3000;
        static const char *names[] = { "a", "b", "c", "d" };
        for (int i = 0; i < n; i++)
            add(m, lanes[rnd(3)], (ns_t)rnd(100000), 1 + (ns_t)rnd(round & 1 ? 3000 : 200), names[rnd(4)]);
        CHECK_INT(model_finalize(m), 0);
        check_rows(m);
        for (int q = 0; q < 300; q++) {
            uint32_t l = rnd(m->nlanes);
            const struct lane *ln = &m->lanes[l];
            ns_t t0 = (ns_t)rnd(110000) - 5000, t1 = t0 + 1 + (ns_t)rnd(20000);
            /* busy on depth 0 */
            ns_t want = 0;
            for (uint32_t s = ln->row_first[0]; ln->ndepth && s < ln->row_first[1]; s++) {
                ns_t a = m->start[s] > t0 ? m->start[s] : t0, b = model_end(m, s) < t1 ? model_end(m, s) : t1;
                if (b > a)
                    want += b - a;
            }
            CHECK_INT(model_busy(m, l, t0, t1), want);
            /* row range on a random depth */
            uint32_t d = ln->ndepth ? rnd(ln->ndepth) : 0, f, e, wf = UINT32_MAX, we = 0;
            model_row_range(m, l, d, t0, t1, &f, &e);
            for (uint32_t s = ln->ndepth ? ln->row_first[d] : 0; ln->ndepth && s < ln->row_first[d + 1]; s++)
                if (m->start[s] < t1 && model_end(m, s) > t0) {
                    if (wf == UINT32_MAX)
                        wf = s;
                    we = s + 1;
                }
            if (wf == UINT32_MAX)
                CHECK_INT(e - f, 0);
            else {
                CHECK_INT(f, wf);
                CHECK_INT(e, we);
            }
            /* slice_at: the deepest slice containing t */
            uint32_t best = SLICE_NONE;
            for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
                if (m->start[s] <= t0 && t0 < model_end(m, s) && (best == SLICE_NONE || m->depth[s] > m->depth[best]))
                    best = s;
            CHECK_INT(model_slice_at(m, l, t0), best);
            if (test_failed_now())
                break;
        }
        /* aggregate over everything equals plain sums */
        size_t nrows;
        struct agg_row *rows = model_aggregate(m, NULL, 0, LANE_OTHER, INT64_MIN, INT64_MAX, &nrows);
        uint64_t cnt = 0;
        ns_t tot = 0, all = 0;
        for (size_t i = 0; i < nrows; i++) {
            cnt += rows[i].count;
            tot += rows[i].total;
            CHECK(rows[i].self <= rows[i].total);
            if (i)
                CHECK(rows[i - 1].total >= rows[i].total);
        }
        for (uint32_t s = 0; s < m->nslices; s++)
            all += m->dur[s];
        CHECK_INT(cnt, m->nslices);
        CHECK_INT(tot, all);
        free(rows);
        model_free(m);
    }
}

TEST(model_lane_order_names_and_kinds)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t hw = lane_of(m, "900", "9");
    add(m, hw, 10, 5, "kernel");
    uint32_t py = lane_of(m, "100", "7");
    add(m, py, 5, 20, "aten::mm");
    uint32_t py2 = lane_of(m, "100", "3");
    model_set_thread_sort(m, py2, 1);
    model_set_thread_sort(m, py, 2);
    /* metadata after the events */
    model_set_process_name(m, model_proc(m, "900", 3), "Ascend Hardware", 15);
    model_set_process_sort(m, model_proc(m, "900", 3), 5);
    model_set_process_name(m, model_proc(m, "100", 3), "Python", 6);
    model_set_process_sort(m, model_proc(m, "100", 3), 1);
    uint32_t cp = model_proc(m, "777", 3);
    model_set_process_name_weak(m, cp, "AI Core Freq", 12);
    model_add_counter(m, cp, "AI Core Freq", 12, "MHz", 30, 1800.0);
    model_add_counter(m, cp, "AI Core Freq", 12, NULL, 20, 1600.0);
    uint32_t ppy = model_proc(m, "100", 3);
    model_proc(m, "555", 3);   /* no process_name at all */
    CHECK_INT(model_finalize(m), 0);
    char buf[128];
    CHECK_STR(model_lane_label(m, 0, buf, sizeof buf), "Python \xe2\x96\xb8 Thread 3");
    CHECK_STR(model_lane_label(m, 1, buf, sizeof buf), "Python \xe2\x96\xb8 Thread 7");
    CHECK_STR(model_lane_label(m, 2, buf, sizeof buf), "Ascend Hardware \xe2\x96\xb8 Stream 9");
    CHECK_INT(model_lane_build_to_final(m, hw), 2);
    CHECK_INT(m->lanes[2].kind, LANE_DEVICE);
    CHECK_INT(m->lanes[0].kind, LANE_PYTHON);
    CHECK_INT(m->procs[cp].kind, LANE_COUNTER);
    CHECK_INT(m->procs[ppy].first_lane, 0);
    CHECK_INT(m->procs[ppy].nlanes, 2);
    CHECK_STR(model_str(m, m->procs[model_lane_build_to_final(m, 0) == 2 ? 3 : 3].name), "555");
    CHECK_INT(model_find_lane(m, "Ascend Hardware", "Stream 9"), 2);
    CHECK_INT(model_find_lane(m, "Ascend Hardware", "Stream 1"), LANE_NONE);
    CHECK_INT(m->ncounters, 1);
    CHECK_INT(m->counters[0].ts[0], 20);
    CHECK_NEAR(m->counters[0].value[1], 1800.0, 0);
    CHECK_INT(m->t_min, 5);
    CHECK_INT(m->t_max, 30);
    CHECK_INT(lane_kind_from_process_name("HCCL"), LANE_COMM);
    CHECK_INT(lane_kind_from_process_name("Communication"), LANE_COMM);
    CHECK_INT(lane_kind_from_process_name("Overlap Analysis"), LANE_OVERLAP);
    CHECK_INT(lane_kind_from_process_name("Python GC"), LANE_GC);
    CHECK_INT(lane_kind_from_process_name("CANN"), LANE_CANN);
    CHECK_STR(lane_kind_name(LANE_DEVICE), "device");
    model_free(m);
}

TEST(model_flow_binding)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = lane_of(m, "1", "1"), hw = lane_of(m, "2", "5");
    uint32_t op = add(m, py, 100, 50, "aten::add");
    uint32_t inner = add(m, py, 110, 10, "inner");
    uint32_t k1 = add(m, hw, 300, 5, "k1");
    uint32_t k2 = add(m, hw, 400, 5, "k2");
    uint64_t big = 1736405443995109811ULL;   /* above 2^53 */
    model_add_flow_point(m, py, FLOW_START, 115, "async_npu", 9, "f", 1, big, false, true);
    model_add_flow_point(m, hw, FLOW_END, 300, "async_npu", 9, "f", 1, big, false, true);
    model_add_flow_point(m, py, FLOW_START, 120, "async_npu", 9, "f", 1, big + 1, false, true);
    /* 'f' without bp:"e" binds to the next slice starting at or after ts */
    model_add_flow_point(m, hw, FLOW_END, 350, "async_npu", 9, "f", 1, big + 1, false, false);
    model_add_flow_point(m, py, FLOW_START, 140, "HostToDevice", 12, "h", 1, 7, false, false);   /* no end */
    model_add_flow_point(m, hw, FLOW_END, 402, "HostToDevice", 12, "h", 1, 8, false, true);     /* no start */
    CHECK_INT(model_finalize(m), 0);
    op = model_build_to_final(m, op); inner = model_build_to_final(m, inner);
    k1 = model_build_to_final(m, k1); k2 = model_build_to_final(m, k2);
    CHECK_INT(m->nflows, 4);
    CHECK_INT(m->flows_matched, 2);
    CHECK_INT(m->flows_unmatched, 2);
    CHECK_INT(model_flows_matched_cat(m, strtab_find(m->str, "async_npu", 9)), 2);
    CHECK_INT(model_flows_matched_cat(m, strtab_find(m->str, "HostToDevice", 12)), 0);
    const uint32_t *ix;
    size_t n = model_flows_from(m, inner, &ix);
    CHECK_INT(n, 1);
    if (n) {
        CHECK_INT(m->flows[ix[0]].dst, k1);
        CHECK(m->flows[ix[0]].id == big);
    }
    /* ts 120 is at the end of inner: binds to op, like the HostToDevice start at 140 */
    n = model_flows_from(m, op, &ix);
    CHECK_INT(n, 2);
    if (n == 2)
        CHECK(m->flows[ix[0]].dst == k2 || m->flows[ix[1]].dst == k2);
    n = model_flows_to(m, k2, &ix);
    CHECK_INT(n, 2);
    n = model_flows_to(m, k1, &ix);
    CHECK_INT(n, 1);
    model_free(m);
}

TEST(model_direct_flows_and_empty)
{
    struct model *m = model_new(TIME_UNIX_NS);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->nslices, 0);
    CHECK_INT(model_busy(m, 0, 0, 10), 0);
    CHECK_INT(model_slice_at(m, 0, 0), SLICE_NONE);
    model_free(m);
    m = model_new(TIME_UNIX_NS);
    uint32_t a = lane_of(m, "1", "1"), b = lane_of(m, "2", "2");
    uint32_t s = add(m, b, 500, 5, "dst"), t = add(m, a, 10, 5, "src");
    model_add_flow_direct(m, strtab_intern_cstr(m->str, "MsTx"), t, s);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->nflows, 1);
    CHECK_INT(m->flows[0].src, model_build_to_final(m, t));
    CHECK_INT(m->flows[0].dst, model_build_to_final(m, s));
    CHECK_INT(m->flows_matched, 1);
    CHECK(model_memory(m) > 0);
    model_free(m);
}

TEST(model_extreme_times_do_not_overflow)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = lane_of(m, "1", "1");
    add(m, l, INT64_MIN + 10, INT64_MAX, "a");
    add(m, l, 0, INT64_MAX, "b");   /* clamped so that its end fits */
    add(m, l, INT64_MAX - 5, 100, "c");
    CHECK_INT(model_finalize(m), 0);
    check_rows(m);
    CHECK(model_busy(m, l, INT64_MIN, INT64_MAX) > 0);
    CHECK(model_slice_at(m, l, INT64_MAX - 1) != SLICE_NONE);
    size_t n;
    free(model_aggregate(m, NULL, 0, LANE_OTHER, INT64_MIN, INT64_MAX, &n));
    CHECK_INT(n, 3);
    model_free(m);
}

/* Flow binding (searched from hints) agrees with model_slice_at on random data. */
TEST(model_flow_binding_random)
{
    rng_state = 777;
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lanes[2] = { lane_of(m, "1", "1"), lane_of(m, "2", "2") };
    for (int i = 0; i < 4000; i++)
        add(m, lanes[rnd(2)], (ns_t)rnd(200000), 1 + (ns_t)rnd(500), "s");
    ns_t ts[3000];
    uint32_t pl[3000];
    for (int i = 0; i < 3000; i++) {
        ts[i] = (ns_t)rnd(210000) - 5000;
        pl[i] = rnd(2);
        /* keys in shuffled time order: exercise forward and backward searches */
        model_add_flow_point(m, lanes[pl[i]], FLOW_START, ts[i], "c", 1, "n", 1, (uint64_t)i, false, true);
    }
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->nflows, 3000);
    for (size_t k = 0; k < m->nflows; k++) {
        const struct flow *f = &m->flows[k];
        CHECK_INT(f->src, model_slice_at(m, f->src_lane, f->src_ts));
        if (test_failed_now())
            break;
    }
    model_free(m);
}

/* Step k of a build script: metadata in every combination of weak and strong names, empty
 * labels and thread names set late, counters, flows with string ids, slices. */
static void script_step(struct model *m, int k)
{
    char pid[8];
    snprintf(pid, sizeof pid, "%d", k % 4);
    uint32_t p = model_proc(m, pid, strlen(pid)), l = lane_of(m, pid, k % 3 ? "1" : "2");
    switch (k % 7) {
    case 0: model_set_process_name_weak(m, p, k % 2 ? "W1" : "W2", 2); break;
    case 1: model_set_process_name(m, p, k % 3 ? "Strong" : "Python", 6); break;
    /* labels and thread names of one process and lane, set and emptied in turn */
    case 2: model_set_process_labels(m, model_proc(m, "0", 1), k % 2 ? "L" : "", k % 2); break;
    case 3: model_set_thread_name(m, lane_of(m, "0", "1"), k % 2 ? "" : "T", k % 2 ? 0 : 1); break;
    case 4: model_set_thread_sort(m, l, k); model_set_process_sort(m, p, -k); break;
    case 5: model_add_counter(m, p, k % 2 ? "c1" : "c2", 2, NULL, 1000 - k, k); break;
    default: {
        char id[16];
        snprintf(id, sizeof id, "id%d", k % 5);
        uint32_t cat = strtab_intern_cstr(m->str, "flow"), sid = strtab_intern_cstr(m->str, id);
        model_add_flow_point_ids(m, l, k % 2 ? FLOW_START : FLOW_END, 100 + k, cat, cat, sid, true, true);
        break;
    }
    }
    char name[16];
    snprintf(name, sizeof name, "s%d", k % 9);
    add(m, l, 100 + (k % 5) * 3, 1 + k % 4, name);
    model_count_event(m, 'X');
}

/* Building in two models and appending gives what building in one gives, at every cut. */
TEST(model_append_same_as_one_model)
{
    enum { N = 60 };
    struct model *ref = model_new(TIME_LOCAL_US);
    for (int k = 0; k < N; k++)
        script_step(ref, k);
    CHECK_INT(model_finalize(ref), 0);
    for (int cut = 0; cut <= N && !test_failed_now(); cut++) {
        struct model *a = model_new(TIME_LOCAL_US), *b = model_new(TIME_LOCAL_US);
        for (int k = 0; k < N; k++)
            script_step(k < cut ? a : b, k);
        uint32_t *smap = NULL, *lmap = NULL;
        model_set_thread_min(cut % 2 ? 0 : SIZE_MAX);   /* flow points on a second thread or not */
        uint32_t first = model_append(a, b, &smap, &lmap);
        model_set_thread_min(100000);
        CHECK_INT(first, cut);
        CHECK(smap != NULL && lmap != NULL);
        free(smap);
        free(lmap);
        model_free(b);
        CHECK_INT(model_finalize(a), 0);
        CHECK_INT(a->nslices, ref->nslices);
        CHECK_INT(a->nlanes, ref->nlanes);
        CHECK_INT(a->nprocs, ref->nprocs);
        CHECK_INT(a->nflows, ref->nflows);
        CHECK_INT(a->flows_matched, ref->flows_matched);
        CHECK_INT(a->ncounters, ref->ncounters);
        CHECK_INT(a->events, ref->events);
        CHECK_INT(strtab_count(a->str), strtab_count(ref->str));
        for (uint32_t i = 0; i < strtab_count(a->str) && i < strtab_count(ref->str); i++)
            CHECK_STR(strtab_get(a->str, i), strtab_get(ref->str, i));
        for (uint32_t p = 0; p < a->nprocs && p < ref->nprocs; p++) {
            CHECK_INT(a->procs[p].name, ref->procs[p].name);
            CHECK_INT(a->procs[p].labels, ref->procs[p].labels);
            CHECK_INT(a->procs[p].sort_index, ref->procs[p].sort_index);
        }
        for (uint32_t l = 0; l < a->nlanes && l < ref->nlanes; l++) {
            CHECK_INT(a->lanes[l].name, ref->lanes[l].name);
            CHECK_INT(a->lanes[l].sort_index, ref->lanes[l].sort_index);
            CHECK_INT(a->lanes[l].count, ref->lanes[l].count);
        }
        for (uint32_t s = 0; s < a->nslices && s < ref->nslices; s++) {
            CHECK_INT(a->start[s], ref->start[s]);
            CHECK_INT(a->name[s], ref->name[s]);
            CHECK_INT(a->lane[s], ref->lane[s]);
            CHECK_INT(a->depth[s], ref->depth[s]);
        }
        for (size_t f = 0; f < a->nflows && f < ref->nflows; f++) {
            CHECK_INT(a->flows[f].id, ref->flows[f].id);
            CHECK_INT(a->flows[f].src, ref->flows[f].src);
            CHECK_INT(a->flows[f].dst, ref->flows[f].dst);
        }
        for (uint32_t c = 0; c < a->ncounters && c < ref->ncounters; c++) {
            CHECK_INT(a->counters[c].n, ref->counters[c].n);
            for (size_t i = 0; i < a->counters[c].n && i < ref->counters[c].n; i++)
                CHECK(a->counters[c].ts[i] == ref->counters[c].ts[i] && a->counters[c].value[i] == ref->counters[c].value[i]);
        }
        model_free(a);
        if (test_failed_now())
            fprintf(stderr, "    cut at step %d\n", cut);
    }
    model_free(ref);
}

TEST(model_remove_and_set_slices)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = lane_of(m, "1", "1");
    for (int i = 0; i < 6; i++)
        add(m, l, i * 10, 5, i % 2 ? "odd" : "even");
    uint32_t gone[] = { 1, 4 };
    model_remove_slices(m, gone, 2);
    CHECK_INT(m->nslices, 4);
    CHECK_INT(m->start[1], 20);
    CHECK_INT(m->start[3], 50);
    model_set_slice_ids(m, 0, 7, -3, strtab_intern_cstr(m->str, "set"), 0, 0, 9, 0);
    CHECK_INT(m->dur[0], 0);
    CHECK_INT(m->off[0], 9);
    CHECK_INT(model_finalize(m), 0);
    CHECK(model_find_lane(m, "1", "Thread 1") != LANE_NONE);
    CHECK_STR(model_str(m, m->name[0]), "set");
    model_free(m);
}

static struct model *random_flow_model(uint64_t seed, int nkeys)
{
    rng_state = seed;
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lanes[3] = { lane_of(m, "1", "1"), lane_of(m, "2", "2"), lane_of(m, "2", "3") };
    for (int i = 0; i < 3000; i++)
        add(m, lanes[rnd(3)], (ns_t)rnd(100000), 1 + (ns_t)rnd(300), "s");
    for (int k = 0; k < nkeys; k++) {
        int npts = 1 + (int)rnd(4);
        bool str = rnd(8) == 0;
        uint64_t id = str ? strtab_intern_cstr(m->str, k % 2 ? "a" : "b") : (uint64_t)rnd((uint32_t)nkeys);
        for (int p = 0; p < npts; p++) {
            static const enum flow_ph ph[] = { FLOW_START, FLOW_END, FLOW_STEP, FLOW_END };
            model_add_flow_point(m, lanes[rnd(3)], ph[rnd(4)], (ns_t)rnd(101000) - 500, rnd(3) ? "c" : "d", 1,
                                 "n", 1, id, str, rnd(2));
        }
    }
    return m;
}

/* Flows grouped, bound and indexed on two threads equal those of one thread. */
TEST(model_flows_two_threads_same)
{
    struct model *one = random_flow_model(4242, 30000);
    model_set_thread_min(SIZE_MAX);
    CHECK_INT(model_finalize(one), 0);
    struct model *two = random_flow_model(4242, 30000);
    model_set_thread_min(0);
    CHECK_INT(model_finalize(two), 0);
    model_set_thread_min(100000);
    CHECK(one->nflows > 30000);
    CHECK_INT(two->nflows, one->nflows);
    CHECK_INT(two->flows_matched, one->flows_matched);
    CHECK_INT(two->flows_unmatched, one->flows_unmatched);
    CHECK(one->flows_matched > 1000 && one->flows_unmatched > 1000);
    for (size_t i = 0; i < one->nflows && i < two->nflows && !test_failed_now(); i++) {
        const struct flow *a = &one->flows[i], *b = &two->flows[i];
        CHECK(a->cat == b->cat && a->name == b->name && a->id == b->id && a->id_is_str == b->id_is_str);
        CHECK(a->src == b->src && a->dst == b->dst && a->src_lane == b->src_lane && a->dst_lane == b->dst_lane);
        CHECK(a->src_ts == b->src_ts && a->dst_ts == b->dst_ts);
    }
    CHECK_INT(two->nflows_by_src, one->nflows_by_src);
    CHECK_INT(two->nflows_by_dst, one->nflows_by_dst);
    CHECK(one->nflows_by_src == two->nflows_by_src &&
          !memcmp(one->flows_by_src, two->flows_by_src, one->nflows_by_src * sizeof *one->flows_by_src));
    CHECK(one->nflows_by_dst == two->nflows_by_dst &&
          !memcmp(one->flows_by_dst, two->flows_by_dst, one->nflows_by_dst * sizeof *one->flows_by_dst));
    model_free(one);
    model_free(two);
}

struct sl { ns_t start, dur; };

static int cmp_sl(const void *x, const void *y)
{
    const struct sl *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->dur < b->dur) - (a->dur > b->dur);   /* longer first: parents before children */
}

/* A lane added in time order takes the way that finds depths while checking the order; the
 * same slices shuffled (or out of order only at the very end) are sorted first: the same
 * rows, depths and order either way. */
TEST(model_in_order_and_shuffled_lanes_same_rows)
{
    rng_state = 777;
    enum { N = 4000 };
    static struct sl v[N];
    for (int i = 0; i < N; i++)   /* nested and overlapping, ties in start included */
        v[i] = (struct sl){ (ns_t)rnd(20000) * 5, 1 + (ns_t)rnd(i % 3 ? 40 : 400) };
    qsort(v, N, sizeof *v, cmp_sl);   /* equal slices may come in any order: they read the same */
    struct model *m[3];
    for (int k = 0; k < 3; k++) {
        m[k] = model_new(TIME_LOCAL_US);
        uint32_t l = lane_of(m[k], "1", "1");
        uint32_t *order = malloc(N * sizeof *order);
        for (uint32_t i = 0; i < N; i++)
            order[i] = i;
        if (k == 1)   /* shuffled */
            for (uint32_t i = N - 1; i > 0; i--) {
                uint32_t j = rnd(i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        if (k == 2) {   /* in order but for the last two */
            order[N - 2] = N - 1;
            order[N - 1] = N - 2;
        }
        for (uint32_t i = 0; i < N; i++)
            add(m[k], l, v[order[i]].start, v[order[i]].dur, "s");
        free(order);
        CHECK_INT(model_finalize(m[k]), 0);
        check_rows(m[k]);
    }
    for (int k = 1; k < 3; k++) {
        CHECK_INT(m[k]->lanes[0].ndepth, m[0]->lanes[0].ndepth);
        size_t bad = 0;
        for (uint32_t i = 0; i < N; i++)
            bad += m[k]->start[i] != m[0]->start[i] || m[k]->dur[i] != m[0]->dur[i] || m[k]->depth[i] != m[0]->depth[i];
        CHECK_INT(bad, 0);
    }
    CHECK(m[0]->lanes[0].ndepth > 3);
    for (int k = 0; k < 3; k++)
        model_free(m[k]);
}
