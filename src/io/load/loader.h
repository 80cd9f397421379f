/* The loader: reads every file of a capture into a session on a background thread (or
 * synchronously for `report`). It builds each part privately and hands it over through a
 * queue and a wake-up pipe; only the UI thread installs parts (loader_apply), so drawing
 * never takes a lock. Signals are blocked in the loader thread; cancellation is an atomic
 * flag polled between chunks.
 *
 * With many ranks (max_ranks > 0) it reads in two passes: first every rank's small files
 * (io/load/rank_split.h: step_trace_time, communication, statistics, metadata), so Overview,
 * Ranks and Comm show every rank at once; then timelines: the rank opened last first and
 * alone (loader_want), the others in rank order, a few at a time, while fewer than
 * max_ranks are in memory (unless on_demand). When another is needed the least recently used rank's
 * timeline and what came with it (tables joined to it, steps, flows, memory) are freed on
 * the UI thread (loader_tick), between frames. model/index/rank_lru.h keeps the books. */
#ifndef APTOP_LOADER_H
#define APTOP_LOADER_H
#include <stdbool.h>

#include "io/discovery/capture.h"
#include "io/cache/index_cache.h"
#include "io/export/export_job.h"   /* the UI's other io calls, off its thread: a window export, */
#include "io/load/shapes_job.h"     /* host operator shapes */
#include "io/load/slice_fields.h"   /* and a slice's fields */
#include "model/index/progress.h"
#include "model/index/rank_lru.h"
#include "model/index/session.h"

struct loader_opts {
    bool prefer_db;     /* --prefer db: DB files over text when both exist */
    int rank;           /* -1: every rank; else only this rank */
    const struct cache_opts *cache;   /* the index cache; NULL: none */
    unsigned max_ranks; /* 0: every file of every rank in one pass; else two passes, at most
                         * this many ranks' timelines in memory (the explorer only) */
    bool on_demand;     /* with max_ranks: a timeline is read only when its rank is opened */
};

/* Above this many ranks the explorer reads in two passes unless told otherwise. */
#define LOADER_LAZY_ABOVE 16
/* Timelines kept in memory by default in two passes. */
#define LOADER_LAZY_KEEP 4
/* The max_ranks for an explorer of nranks ranks: asked (--max-ranks N, 0: not given),
 * lazy (--lazy), one_rank (--rank R: one pass). */
unsigned loader_lazy_max(size_t nranks, unsigned asked, bool lazy, bool one_rank);

/* Creates the session's ranks from the capture (empty parts), ready to be filled. */
struct session *session_new(const struct capture *c, struct diag *d);
void session_free(struct session *s);
/* Several captures in one session (io/discovery/capture_set.h): s takes the n groups (malloc'd). */
void session_set_groups(struct session *s, struct session_group *groups, size_t n);

/* Loads everything now, on this thread. Returns the number of parts loaded. */
int loader_run_sync(const struct capture *c, struct session *s, const struct loader_opts *o);

struct loader;
/* Starts the loader thread; the capture and session must outlive it. */
struct loader *loader_start(const struct capture *c, struct session *s, const struct loader_opts *o);
/* Read end of the wake-up pipe: readable when parts wait to be installed. */
int loader_fd(const struct loader *l);
/* UI thread: installs every finished part into the session; returns how many. */
int loader_apply(struct loader *l);
struct load_progress *loader_progress(struct loader *l);
/* Nothing is being read: everything in one pass, else the small files and no timeline now. */
bool loader_done(const struct loader *l);

/* --- two passes (all UI thread; no-ops in one pass). rank: an index into s->ranks. --- */
/* The max_ranks the loader was started with, 0 in one pass. */
unsigned loader_max_ranks(const struct loader *l);
/* The rank was opened: its timeline is read next (and others freed to make room). */
void loader_want(struct loader *l, size_t rank);
/* Where the rank's timeline is (LRU_NONE: nothing to read, or one pass). */
enum lru_state loader_rank_state(const struct loader *l, size_t rank);
/* Ranks whose timeline is in memory. */
size_t loader_timelines_in(const struct loader *l);
/* Every turn, before drawing: starts the next timeline, frees one first when needed (never
 * `keep`, the rank on screen). True when the session changed (views refresh); *evicted is
 * the rank whose timeline was freed, else SIZE_MAX. */
bool loader_tick(struct loader *l, size_t keep, size_t *evicted);
/* Sets cancel, joins the thread, frees parts not yet installed. */
void loader_stop(struct loader *l);

#endif
