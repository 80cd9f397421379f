/* Load progress shared between the loader thread (writer) and the UI (reader) through
 * atomics only. Readers poll `cancel` between chunks and stop early when it is set. */
#ifndef APTOP_PROGRESS_H
#define APTOP_PROGRESS_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct load_progress {
    _Atomic uint64_t bytes_done;    /* of the file being read */
    _Atomic uint64_t bytes_total;
    _Atomic uint64_t events;        /* events (or rows) read so far in this file */
    _Atomic uint64_t files_done, files_total;
    _Atomic(const char *) file;     /* path being read (owned by the capture, stable) */
    _Atomic bool cancel;            /* set by the UI: stop as soon as possible */
    struct load_progress *total;    /* a second worker counts files_done here (NULL: itself) */
};

static inline bool progress_cancelled(struct load_progress *p)
{
    return p && atomic_load_explicit(&p->cancel, memory_order_relaxed);
}

#endif
