/* Which ranks' timelines are in memory: see rank_lru.h. */
#include "model/index/rank_lru.h"

#include <stdlib.h>
#include <string.h>

int rank_lru_init(struct rank_lru *l, size_t n, size_t max, bool background)
{
    memset(l, 0, sizeof *l);
    l->n = n;
    l->max = max ? max : 1;
    l->background = background;
    l->state = calloc(n ? n : 1, sizeof *l->state);
    l->used = calloc(n ? n : 1, sizeof *l->used);
    if (!l->state || !l->used) {
        rank_lru_free(l);
        return -1;
    }
    return 0;
}

void rank_lru_free(struct rank_lru *l)
{
    free(l->state);
    free(l->used);
    l->state = NULL;
    l->used = NULL;
    l->n = 0;
}

void rank_lru_set_loadable(struct rank_lru *l, size_t i, bool loadable)
{
    if (i < l->n && (l->state[i] == LRU_NONE || l->state[i] == LRU_OUT))
        l->state[i] = loadable ? LRU_OUT : LRU_NONE;
}

void rank_lru_touch(struct rank_lru *l, size_t i)
{
    if (i < l->n)
        l->used[i] = ++l->clock;
}

size_t rank_lru_resident(const struct rank_lru *l)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        k += l->state[i] == LRU_IN || l->state[i] == LRU_LOADING;
    return k;
}

size_t rank_lru_loading(const struct rank_lru *l)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        k += l->state[i] == LRU_LOADING;
    return k;
}

/* The least recently used rank in memory other than a and b, SIZE_MAX when none. */
static size_t least_recent(const struct rank_lru *l, size_t a, size_t b)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < l->n; i++)
        if (l->state[i] == LRU_IN && i != a && i != b && (best == SIZE_MAX || l->used[i] < l->used[best]))
            best = i;
    return best;
}

struct lru_step rank_lru_next(const struct rank_lru *l, size_t want, size_t keep)
{
    struct lru_step st = { .evict = SIZE_MAX };
    bool demand = want < l->n && l->state[want] == LRU_OUT;
    if (rank_lru_loading(l)) {
        /* loads go on until they end; they give way to a rank opened since */
        st.cancel = demand;
        return st;
    }
    size_t resident = rank_lru_resident(l);
    if (demand) {
        if (resident >= l->max) {
            st.evict = least_recent(l, want, keep);
            if (st.evict == SIZE_MAX)
                return st;   /* everything in memory is on screen: it stays */
        }
        st.load[st.nload++] = want;
        return st;
    }
    for (size_t i = 0; l->background && i < l->n && resident + st.nload < l->max && st.nload < LRU_BATCH; i++)
        if (l->state[i] == LRU_OUT)
            st.load[st.nload++] = i;
    return st;
}

void rank_lru_evicted(struct rank_lru *l, size_t i)
{
    if (i < l->n && l->state[i] == LRU_IN)
        l->state[i] = LRU_OUT;
}

void rank_lru_started(struct rank_lru *l, size_t i)
{
    if (i < l->n && l->state[i] == LRU_OUT)
        l->state[i] = LRU_LOADING;
}

void rank_lru_finished(struct rank_lru *l, size_t i, enum lru_state now)
{
    if (i >= l->n || l->state[i] != LRU_LOADING)
        return;
    l->state[i] = (unsigned char)(now == LRU_LOADING ? LRU_OUT : now);
    if (now == LRU_IN)
        rank_lru_touch(l, i);
}
