/* The loader: reads every file of a capture into a session on a background thread (or
 * synchronously for `report`). It builds each part privately and hands it over through a
 * queue and a wake-up pipe; only the UI thread installs parts (loader_apply), so drawing
 * never takes a lock. Signals are blocked in the loader thread; cancellation is an atomic
 * flag polled between chunks. */
#ifndef APTOP_LOADER_H
#define APTOP_LOADER_H
#include <stdbool.h>

#include "io/capture.h"
#include "io/index_cache.h"
#include "model/progress.h"
#include "model/session.h"

struct loader_opts {
    bool prefer_db;     /* --prefer db: DB files over text when both exist */
    int rank;           /* -1: every rank; else only this rank */
    const struct cache_opts *cache;   /* the index cache; NULL: none */
};

/* Creates the session's ranks from the capture (empty parts), ready to be filled. */
struct session *session_new(const struct capture *c, struct diag *d);
void session_free(struct session *s);
/* Several captures in one session (io/capture_set.h): s takes the n groups (malloc'd). */
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
bool loader_done(const struct loader *l);
/* Sets cancel, joins the thread, frees parts not yet installed. */
void loader_stop(struct loader *l);

#endif
