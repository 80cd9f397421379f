/* What the query engine's files share (nothing else includes this): the engine, the
 * description of one virtual table, and the registration of each table family.
 *
 * Every table's rows are numbered globally in rank order: the rows of rank index i (into
 * s->ranks) are [base[i], base[i+1]), and a row's number is its id where the table has one.
 * query_vtab.c is the one SQLite module: it scans those ranges, skipping ranks outside a rank
 * constraint, jumps to one row for id = X, and lets a table enumerate a ts range itself. */
#ifndef APTOP_QUERY_INTERNAL_H
#define APTOP_QUERY_INTERNAL_H
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/index/session.h"

/* A ts range being enumerated within one rank (slice: lane by lane, depth row by row). */
struct qts_iter {
    int64_t lo, hi;              /* inclusive bounds */
    uint32_t lane, depth;        /* the row being read */
    uint32_t i, end;             /* next index in it, its end */
    bool started;
};

struct qtab;
/* The value of column col of row `row` (a number within rank ri: row - base[ri]). */
typedef void (*qtab_cell_fn)(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c);
/* The next row of rank ri whose ts lies in [it->lo, it->hi]: true and *row set, else false. */
typedef bool (*qtab_ts_fn)(const struct qtab *t, size_t ri, struct qts_iter *it, int64_t *row);
/* A rank's rows in groups of equal names: order[first[g]] .. order[first[g + 1] - 1] are the
 * rows of group g (g < ngroups; a group may be empty). */
struct qgroups {
    const uint32_t *order, *first;
    uint32_t ngroups;
};
/* Rank ri's rows grouped by name: true and *out set, false when memory ran out. */
typedef bool (*qtab_grouped_fn)(const struct qtab *t, size_t ri, struct qgroups *out);
/* The name every row of group g of rank ri has (no copy: it lives as long as the index). */
typedef const char *(*qtab_group_name_fn)(const struct qtab *t, size_t ri, uint32_t g, size_t *len);
/* Asks the memory for what the columns in cols (bit i: column i) of row `row` of rank ri will
 * read, ahead of reading them: a grouped read jumps around the columns, and a fetch started
 * early overlaps the ones before it instead of stalling each row in turn. */
typedef void (*qtab_prefetch_fn)(const struct qtab *t, size_t ri, int64_t row, uint64_t cols);

struct qtab {
    char name[32];
    char *schema;                /* "CREATE TABLE x(...)" (malloc'd) */
    const struct session *s;
    int64_t *base;               /* s->nranks + 1 */
    int id_col, rank_col, ts_col, name_col;   /* -1: the table has no such column */
    qtab_cell_fn cell;
    qtab_ts_fn ts_next;          /* NULL: ts ranges are not pushed down */
    qtab_grouped_fn grouped;     /* NULL: GROUP BY name is left to SQLite */
    qtab_group_name_fn group_name;   /* set with grouped */
    qtab_prefetch_fn prefetch;   /* NULL: rows read in a grouped order are not fetched ahead */
    void *ctx;                   /* the family's own data */
    void (*ctx_free)(void *ctx);
};

struct query {
    const struct session *s;
    sqlite3 *db;
    struct qtab **tabs;
    size_t ntabs;
    int64_t *slice_base, *track_base;   /* s->nranks + 1: first id of each rank's slices, tracks */
};

/* A new table of q with that name and schema (columns, not the CREATE TABLE around them),
 * rows per rank from counts[0..nranks) (copied into base); NULL when memory ran out. The
 * caller sets cell and the optional columns and hooks, then calls qtab_register. */
struct qtab *qtab_new(struct query *q, const char *name, const char *columns, const int64_t *counts);
/* Frees a table SQLite was not given (NULL: nothing). */
void qtab_discard(struct qtab *t);
/* Creates the table in q's database, which owns t from then on (also when SQLite refused:
 * false, err set). */
bool qtab_register(struct query *q, struct qtab *t, char *err, size_t errsz);
/* Rank index of a global row number (binary search over base[0..nranks], the first row of
 * each rank and the end), or SIZE_MAX. */
size_t query_rank_of(const int64_t *base, size_t nranks, int64_t row);

/* One name's rows within one rank, in a grouped read: order[from] .. order[to - 1]. */
struct qrun {
    const char *name;
    size_t len;
    const uint32_t *order;
    uint32_t from, to;
    size_t ri;
};
/* The runs of t's rows in the ranks whose id lies in [rank_lo, rank_hi] (query_grouped.c):
 * true, *out (sqlite3_free it) and *n set; false when memory ran out. */
bool query_grouped_runs(const struct qtab *t, int64_t rank_lo, int64_t rank_hi, struct qrun **out, size_t *n);

/* Says in err that memory ran out; false, for a registration to return. */
bool query_oom(char *err, size_t errsz);
/* Frees what a family's context holds per rank: an array a of n allocations (a may be NULL). */
#define QUERY_FREE_PER_RANK(a, n) do {                      \
        for (size_t i_ = 0; (a) && i_ < (n); i_++)          \
            free((a)[i_]);                                  \
        free(a);                                            \
    } while (0)

/* The table families, each registering its tables (false, err set, on a failure). */
bool query_slice_tables(struct query *q, char *err, size_t errsz);     /* slice, args functions */
bool query_track_tables(struct query *q, char *err, size_t errsz);     /* track, thread_track, counter_track, flow, counter */
bool query_result_tables(struct query *q, char *err, size_t errsz);    /* step, memory, comm_op */
bool query_kernel_table(struct query *q, char *err, size_t errsz);     /* kernel */

/* The slice table's first id of rank ri, and the track table's first id of rank ri (lanes,
 * then counter tracks): what the tables use to name each other's rows. */
int64_t query_slice_base(const struct query *q, size_t ri);
int64_t query_track_base(const struct query *q, size_t ri);
/* A model slice as a result: its id, or NULL for SLICE_NONE. */
void query_result_slice(const struct query *q, size_t ri, uint32_t s, sqlite3_context *c);
/* Text kept by the index as a result (no copy: it lives as long as the index). */
static inline void query_result_text(sqlite3_context *c, const char *s)
{
    sqlite3_result_text(c, s ? s : "", -1, SQLITE_STATIC);
}
/* An interned string of the index as a result, its length known (no strlen per row). */
static inline void query_result_str(sqlite3_context *c, const struct strtab *t, uint32_t id)
{
    sqlite3_result_text(c, strtab_get(t, id), (int)strtab_len(t, id), SQLITE_STATIC);
}

#endif
