/* Finalize on two threads (lanes ordered by two workers, columns permuted in two halves)
 * gives the model one thread gives: lanes of very different sizes, unsorted and sorted,
 * nested and overlapping slices, ties broken by build order. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/model.h"

static uint64_t seed;

static uint32_t rnd(uint32_t n)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(seed >> 33) % n;
}

static struct model *build(uint64_t s)
{
    seed = s;
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lanes[12];
    for (int l = 0; l < 12; l++) {
        char pid[8], tid[8];
        snprintf(pid, sizeof pid, "%d", l % 3);
        snprintf(tid, sizeof tid, "%d", l);
        lanes[l] = model_lane(m, pid, strlen(pid), tid, strlen(tid));
    }
    for (int i = 0; i < 60000; i++) {
        /* lane 0 holds half the slices, lanes 10 and 11 none or few; lane 1 in time order */
        int l = rnd(2) ? 0 : 1 + (int)rnd(rnd(4) ? 9 : 11);
        ns_t start = l == 1 ? (ns_t)i * 10 : (ns_t)rnd(200000);
        ns_t dur = rnd(5) ? (ns_t)rnd(400) : 0;
        char name[8];
        snprintf(name, sizeof name, "n%u", rnd(50));
        model_add_slice(m, lanes[l], start, dur, name, strlen(name), "c", 1, 0, (uint64_t)i * 100, 90 + (uint32_t)rnd(9));
    }
    return m;
}

TEST(finalize_two_threads_same_model)
{
    struct model *one = build(77);
    model_set_thread_min(SIZE_MAX);
    CHECK_INT(model_finalize(one), 0);
    struct model *two = build(77);
    model_set_thread_min(0);
    CHECK_INT(model_finalize(two), 0);
    model_set_thread_min(100000);
    CHECK_INT(two->nslices, one->nslices);
    CHECK_INT(two->nlanes, one->nlanes);
    for (uint32_t s = 0; s < one->nslices && s < two->nslices && !test_failed_now(); s++) {
        CHECK_INT(two->start[s], one->start[s]);
        CHECK_INT(two->dur[s], one->dur[s]);
        CHECK_INT(two->name[s], one->name[s]);
        CHECK_INT(two->cat[s], one->cat[s]);
        CHECK_INT(two->lane[s], one->lane[s]);
        CHECK_INT(two->depth[s], one->depth[s]);
        CHECK_INT(two->off[s], one->off[s]);
        CHECK_INT(two->len[s], one->len[s]);
        CHECK_INT(two->file[s], one->file[s]);
        CHECK_INT(model_build_to_final(two, s), model_build_to_final(one, s));
    }
    uint32_t deep = 0;
    for (uint32_t l = 0; l < one->nlanes && l < two->nlanes && !test_failed_now(); l++) {
        const struct lane *a = &one->lanes[l], *b = &two->lanes[l];
        CHECK_INT(b->first, a->first);
        CHECK_INT(b->count, a->count);
        CHECK_INT(b->ndepth, a->ndepth);
        for (uint32_t d = 0; d <= a->ndepth && d <= b->ndepth; d++)
            CHECK_INT(b->row_first[d], a->row_first[d]);
        uint32_t r0 = a->ndepth ? a->row_first[1] - a->row_first[0] : 0;
        for (uint32_t i = 0; i <= r0; i++)
            CHECK_INT(b->busy_prefix[i], a->busy_prefix[i]);
        if (a->ndepth > deep)
            deep = a->ndepth;
    }
    CHECK(deep > 3);   /* the random slices overlap and nest */
    model_free(one);
    model_free(two);
}

/* A cancelled load: finalize sees the stop flag and gives up, leaving an empty, valid model;
 * a flag that stays clear changes nothing. */
TEST(finalize_stops_when_the_load_is_cancelled)
{
    _Atomic bool stop = true, go = false;
    struct model *m = build(5);
    model_set_thread_min(0);
    model_set_stop(m, &stop);
    CHECK_INT(model_finalize(m), MODEL_STOPPED);
    CHECK_INT(m->nslices, 0);
    for (uint32_t l = 0; l < m->nlanes; l++) {
        uint32_t a = 1, b = 1;
        model_row_range(m, l, 0, 0, 1000000, &a, &b);
        CHECK_INT(b - a, 0);
    }
    struct model *k = build(5);
    model_set_stop(k, &go);
    CHECK_INT(model_finalize(k), 0);
    model_set_thread_min(100000);
    CHECK_INT(k->nslices, 60000);
    model_free(m);
    model_free(k);
}
