/* A time window of one rank written as a Chrome trace JSON object that Perfetto and
 * chrome://tracing read exactly, so a user copies megabytes of the part that matters instead
 * of the whole capture. `aptop export --window START..END [--rank R] PATH`, the MCP tool
 * export_window and the explorer's range export (export_job.h, off the UI thread) all write
 * through here:
 *
 *   session rank ─► slices overlapping [START, END), clipped to it ─► "X" events
 *                ─► counter samples inside it                       ─► "C" events
 *                ─► flows whose both ends are inside                ─► "s" / "f" pairs
 *                ─► each process and lane named                     ─► "M" events
 *
 * START and END are times as the timeline's `g` takes them, relative to the capture's start
 * (the earliest event of every rank). Timestamps are written as µs numbers with 3 decimals
 * relative to that start, small enough for a double to hold every ns; the absolute start is
 * kept in "otherData". Processes and lanes are renumbered (pid, tid from 1), flow ids from 1.
 * Args are read again from the files through the same call as the detail pane
 * (io/load/slice_fields.h); a gzipped trace's args are left out (each would be decompressed
 * from the file's start), and "otherData" says so. */
#ifndef APTOP_IO_EXPORT_WINDOW_H
#define APTOP_IO_EXPORT_WINDOW_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/index/session.h"

struct export_window {
    ns_t start, end;     /* relative to the capture's start, end > start */
    size_t rank;         /* index into s->ranks */
    const char *text;    /* the window as typed, for otherData */
    const atomic_bool *cancel;   /* set: the writing stops between events (NULL: never) */
};

/* "12.5ms..20ms" into w->start and w->end (the rest of *w cleared): 0, or -1 with a reason
 * in err. */
int export_window_parse(const char *text, struct export_window *w, char *err, size_t errsz);
/* The rank index whose number is `rank` (-1: the first rank with a timeline), or SIZE_MAX. */
size_t export_window_rank(const struct session *s, int rank);
/* Writes the window of rank w->rank as JSON to out. Returns the number of events written,
 * or -1 (a reason in err) when the rank has no timeline, out fails or w->cancel was set. */
long export_window_write(const struct session *s, const struct export_window *w, FILE *out, char *err,
                         size_t errsz);
/* The same from one finished model m of rank number `rank`, times relative to origin (the
 * session's start): what a thread calls, since it reads nothing else of the session. */
long export_window_write_model(const struct model *m, int rank, ns_t origin, const struct export_window *w,
                               FILE *out, char *err, size_t errsz);

#endif
