/* Which ranks' timelines are in memory when a capture has too many to hold them all: at
 * most `max` ranks loaded or loading, the one opened last loaded first, the others in rank
 * order in the background (when asked for), and the least recently used rank given up when
 * another is needed. Bookkeeping only: the caller loads and frees (io/load/loader.c, on the UI
 * thread). An opened rank is read alone; the background gives a few ranks at a time, so
 * that the reader does not wait for the caller between them. */
#ifndef APTOP_RANK_LRU_H
#define APTOP_RANK_LRU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lru_state {
    LRU_NONE,       /* nothing to load (no trace, or not a rank of this load) */
    LRU_OUT,        /* not in memory */
    LRU_LOADING,
    LRU_IN,         /* in memory */
};

struct rank_lru {
    size_t n, max;
    bool background;        /* load ranks nobody opened while there is room */
    unsigned char *state;   /* enum lru_state per rank */
    uint64_t *used;         /* the clock of each rank's last use */
    uint64_t clock;
};

/* Ranks the background gives at once, at most. */
#define LRU_BATCH 16

/* n ranks, all LRU_NONE; max at least 1. 0, or -1 when memory ran out. */
int rank_lru_init(struct rank_lru *l, size_t n, size_t max, bool background);
void rank_lru_free(struct rank_lru *l);
/* After the first pass: rank i has a timeline to load (LRU_OUT) or not (LRU_NONE). */
void rank_lru_set_loadable(struct rank_lru *l, size_t i, bool loadable);
/* Rank i was used now (shown): it is evicted last. */
void rank_lru_touch(struct rank_lru *l, size_t i);
/* Ranks in memory or loading: never more than max. */
size_t rank_lru_resident(const struct rank_lru *l);

/* Ranks loading now (LRU_LOADING). */
size_t rank_lru_loading(const struct rank_lru *l);
/* What to do next. want: the rank opened last (SIZE_MAX: none); keep: the rank on screen,
 * never evicted. load[0 .. nload): the ranks to load now, in order (none while any is
 * loading); evict: the rank to free before (SIZE_MAX: none); cancel: the loads in progress
 * are not wanted any more (another rank was opened): stop them. */
struct lru_step {
    size_t load[LRU_BATCH], nload;
    size_t evict;
    bool cancel;
};
struct lru_step rank_lru_next(const struct rank_lru *l, size_t want, size_t keep);
/* The caller acted on a step: rank i evicted (IN -> OUT), rank i started (OUT -> LOADING). */
void rank_lru_evicted(struct rank_lru *l, size_t i);
void rank_lru_started(struct rank_lru *l, size_t i);
/* The load of rank i ended: in memory (kept), or not (cancelled: OUT again; failed: NONE). */
void rank_lru_finished(struct rank_lru *l, size_t i, enum lru_state now);

#endif
