/* The bookkeeping of which ranks' timelines are in memory (model/index/rank_lru.h): the opened
 * rank first, the background in rank order up to the limit, the least recently used rank
 * evicted (never the one on screen), an opened rank read alone and the background a few at a
 * time, and under random use never more than the limit in memory. */
#include "model/index/rank_lru.h"

#include <stdlib.h>

#include "../runner.h"

/* Acts on one step as the loader does: evict, then start. */
static struct lru_step act(struct rank_lru *l, size_t want, size_t keep)
{
    struct lru_step st = rank_lru_next(l, want, keep);
    if (st.evict != SIZE_MAX)
        rank_lru_evicted(l, st.evict);
    for (size_t i = 0; i < st.nload; i++)
        rank_lru_started(l, st.load[i]);
    return st;
}

static void all_loadable(struct rank_lru *l)
{
    for (size_t i = 0; i < l->n; i++)
        rank_lru_set_loadable(l, i, true);
}

TEST(rank_lru_background_fills_in_order_up_to_the_limit)
{
    struct rank_lru l;
    CHECK_INT(rank_lru_init(&l, LRU_BATCH + 8, LRU_BATCH + 2, true), 0);
    all_loadable(&l);
    rank_lru_set_loadable(&l, 1, false);           /* no trace: skipped */
    struct lru_step st = act(&l, SIZE_MAX, 0);
    CHECK_INT(st.evict, SIZE_MAX);
    CHECK_INT(st.nload, LRU_BATCH);                /* several at a time, in rank order */
    CHECK_INT(st.load[0], 0);
    for (size_t i = 1; i < st.nload; i++)
        CHECK_INT(st.load[i], i + 1);
    CHECK_INT(rank_lru_loading(&l), LRU_BATCH);
    CHECK_INT(rank_lru_next(&l, SIZE_MAX, 0).nload, 0);   /* nothing more while they load */
    for (size_t i = 0; i < st.nload; i++)
        rank_lru_finished(&l, st.load[i], LRU_IN);
    st = act(&l, SIZE_MAX, 0);                     /* the room left: two more */
    CHECK_INT(st.nload, 2);
    CHECK_INT(st.load[0], LRU_BATCH + 1);
    CHECK_INT(st.load[1], LRU_BATCH + 2);
    for (size_t i = 0; i < st.nload; i++)
        rank_lru_finished(&l, st.load[i], LRU_IN);
    CHECK_INT(rank_lru_resident(&l), LRU_BATCH + 2);
    st = rank_lru_next(&l, SIZE_MAX, 0);           /* full: the background stops */
    CHECK_INT(st.nload, 0);
    CHECK_INT(st.evict, SIZE_MAX);
    rank_lru_free(&l);
}

TEST(rank_lru_opened_rank_evicts_the_least_recently_used)
{
    struct rank_lru l;
    CHECK_INT(rank_lru_init(&l, 6, 2, false), 0);
    all_loadable(&l);
    /* without the background nothing loads until a rank is opened */
    CHECK_INT(rank_lru_next(&l, SIZE_MAX, 0).nload, 0);
    struct lru_step st = act(&l, 4, 4);
    CHECK_INT(st.nload, 1);
    CHECK_INT(st.load[0], 4);
    rank_lru_finished(&l, 4, LRU_IN);
    st = act(&l, 1, 1);
    CHECK_INT(st.load[0], 1);
    CHECK_INT(st.evict, SIZE_MAX);
    rank_lru_finished(&l, 1, LRU_IN);
    rank_lru_touch(&l, 4);                          /* 4 shown again: 1 is now the older */
    st = act(&l, 5, 5);
    CHECK_INT(st.evict, 1);
    CHECK_INT(st.load[0], 5);
    CHECK_INT(l.state[1], LRU_OUT);
    rank_lru_finished(&l, 5, LRU_IN);
    /* the rank on screen is never evicted, even when it is the least recently used */
    rank_lru_touch(&l, 5);
    st = act(&l, 0, 4);
    CHECK_INT(st.evict, 5);
    rank_lru_finished(&l, 0, LRU_IN);
    CHECK_INT(rank_lru_resident(&l), 2);
    /* an opened rank that is in memory needs nothing */
    st = rank_lru_next(&l, 0, 0);
    CHECK_INT(st.nload, 0);
    CHECK_INT(st.evict, SIZE_MAX);
    rank_lru_free(&l);
}

TEST(rank_lru_cancel_failed_and_one_slot)
{
    struct rank_lru l;
    CHECK_INT(rank_lru_init(&l, 4, 1, true), 0);
    all_loadable(&l);
    struct lru_step st = act(&l, SIZE_MAX, 0);      /* the background takes rank 0 */
    CHECK_INT(st.nload, 1);
    CHECK_INT(st.load[0], 0);
    st = rank_lru_next(&l, 2, 2);                   /* rank 2 opened meanwhile */
    CHECK(st.cancel);
    CHECK_INT(st.nload, 0);
    CHECK(!rank_lru_next(&l, 0, 0).cancel);         /* the load is the opened rank: it goes on */
    rank_lru_finished(&l, 0, LRU_LOADING);          /* cancelled: not in memory */
    CHECK_INT(l.state[0], LRU_OUT);
    st = act(&l, 2, 2);
    CHECK_INT(st.load[0], 2);
    CHECK_INT(st.evict, SIZE_MAX);
    rank_lru_finished(&l, 2, LRU_NONE);             /* failed: never tried again */
    CHECK_INT(l.state[2], LRU_NONE);
    st = rank_lru_next(&l, 2, 2);                   /* the background goes on instead */
    CHECK_INT(st.nload, 1);
    CHECK_INT(st.load[0], 0);
    /* one slot, held by the rank on screen, asked for by no one else: it stays */
    rank_lru_started(&l, 0);
    rank_lru_finished(&l, 0, LRU_IN);
    st = rank_lru_next(&l, 3, 0);
    CHECK_INT(st.nload, 0);
    CHECK_INT(st.evict, SIZE_MAX);
    rank_lru_free(&l);
}

TEST(rank_lru_random_use_stays_within_the_limit)
{
    srand(7);
    for (size_t max = 1; max <= 5; max++) {
        struct rank_lru l;
        CHECK_INT(rank_lru_init(&l, 16, max, max % 2 == 0), 0);
        all_loadable(&l);
        size_t keep = 0;
        for (int turn = 0; turn < 4000; turn++) {
            size_t want = (size_t)rand() % 17;     /* 16: nothing opened */
            if (want < 16)
                keep = want;
            rank_lru_touch(&l, keep);
            struct lru_step st = act(&l, want < 16 ? want : SIZE_MAX, keep);
            CHECK(st.evict == SIZE_MAX || st.evict != keep);
            CHECK(rank_lru_resident(&l) <= max);
            CHECK(st.nload <= 1 || want == 16 || l.state[want] != LRU_LOADING);   /* an opened rank alone */
            for (size_t i = 0; i < l.n; i++)
                if (l.state[i] == LRU_LOADING && rand() % 3 == 0)
                    rank_lru_finished(&l, i, rand() % 10 == 0 ? LRU_LOADING : LRU_IN);
            CHECK(rank_lru_loading(&l) <= LRU_BATCH);
            if (test_failed_now())
                break;
        }
        rank_lru_free(&l);
    }
}
