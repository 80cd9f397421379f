/* A rank's files in two: the small ones the Overview, Ranks and Comm views need
 * (step_trace_time, communication.json and its matrix, statistics, analysis.db, profiler
 * metadata) and its timeline with what is joined to it or as large (the trace or DB export,
 * kernel_details / op_summary, operator_details, task_time, memory files). Read one after
 * the other by io/load/readers.h, the two give what reading the whole rank gives; the clock files
 * are in both, since each half maps its times. Both halves borrow the rank's files. */
#ifndef APTOP_RANK_SPLIT_H
#define APTOP_RANK_SPLIT_H
#include <stdbool.h>

#include "io/discovery/capture.h"

struct rank_split {
    struct capture_rank small;      /* read first, for every rank */
    struct capture_rank timeline;   /* read when the rank is opened; nfiles 0: nothing to read */
};

/* 0, or -1 when memory ran out. prefer_db as readers_load_rank takes it. */
int rank_split_make(const struct capture_rank *cr, bool prefer_db, struct rank_split *out);
void rank_split_free(struct rank_split *s);
/* The rank has a timeline half to read (files readers_load_rank would read). */
bool rank_split_has_timeline(const struct rank_split *s, bool prefer_db);
/* Bytes of the timeline half's files (what a load of it costs, roughly). */
uint64_t rank_split_timeline_bytes(const struct rank_split *s);
/* memcheck_capture_env (io/load/memcheck.h) for a two-pass load: every rank's small half and the
 * timeline halves of the `keep` largest ranks. 0: fits; 1: refused (a DIAG_ERROR says so). */
int rank_split_memcheck(const struct capture *c, bool prefer_db, unsigned keep, struct diag *d);

#endif
