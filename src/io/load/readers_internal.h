/* Private to loading one rank (io/load/readers.h): readers.c runs the stages of a rank's load,
 * readers_files.c decides which files are read and reads each one into the load state below.
 * Nothing else includes this header. */
#ifndef APTOP_READERS_INTERNAL_H
#define APTOP_READERS_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>

#include "io/cache/cached_read.h"
#include "io/tables/clock_files.h"
#include "io/load/readers.h"
#include "model/index/table.h"

/* What one rank's load shares between its stages (readers.c, load_stages) and the readers of
 * its files. */
struct rank_load {
    const struct capture_rank *cr;
    size_t rank_index;
    bool db;                        /* read from the SQLite export, else from the text one */
    const struct cache_opts *cache;
    struct diag *d;
    struct load_progress *p;
    reader_handover_fn hand_over;
    void *ctx;

    struct rank_data tmp;           /* the parts loaded so far */
    int parts, failed;              /* parts handed over, files that failed */
    unsigned files_read;
    bool from_cache;                /* a part came from the index cache */
    bool timeline_lost;             /* memory ran out for the timeline (diag_out_of_memory said so) */
    struct comm *db_comm;           /* analysis.db figures: used only when no JSON has them */
    bool held[TK_COUNT];            /* tables in parts, handed over after the last part */
    struct memory *mem;             /* every memory file of the rank, streamed (memory_read.h) */
    bool mem_handed;                /* memory files gave the rank its memory part */
    struct clock_map clock;
    ns_t clock_off;
    bool clock_decided;             /* by the timeline, else by the first table with times */
    struct cached_read timeline_cache;
    ns_t timeline_shift;            /* what the model's times are shifted by now */
};

/* Whether the load reads f (from the DB export when db_mode, else from the text one). */
bool file_wanted(const struct capture_file *f, bool db_mode);

/* Reads one file of a rank into L (counting it read or failed). */
typedef void file_reader(struct rank_load *L, const struct capture_file *f);
/* The reader of a file of kind k: the reader column of FILE_KINDS; NULL when none. */
file_reader *file_reader_of(enum file_kind k);

/* Every trace file of the rank read into one finalized model (or its cached index); NULL when
 * there is none or nothing in them. *cached_shift: what a cached model's times were shifted
 * by when it was written. */
struct model *load_timeline(struct rank_load *L, ns_t *cached_shift);

/* Hands a finished part to the caller, who owns it from now on; counts it. */
void load_hand_over(struct rank_load *L, enum reader_part kind, int table, void *ptr);
/* Progress: f is being read; one more file is done. */
void load_begin_file(struct load_progress *p, const struct capture_file *f);
void load_file_done(struct load_progress *p);
/* Says when some lanes of m sit far away in time from the others (see model/index/time_gap.h). */
void load_warn_time_gap(const struct model *m, const char *path, struct diag *d);

#endif
