/* Tables: the rows of one CSV file (or DB query) kept as typed columns.
 *
 * Data flow: a reader creates a table with table_new(), declares its columns with
 * table_add_col() (header as written), then for each record calls table_add_row() and
 * table_set_text/num/time() for the cells it has; cells never set stay missing. The reader
 * ends with table_finish(), which settles the type of columns declared TC_AUTO. After that
 * the table is read-only (except kernels_join, run on the loader before hand-over).
 *
 * Headers are matched by name, never by position: each header gets a canonical key through
 * ONE alias table (table_canon_key): lower case, spaces/underscores/camelCase folded to "_",
 * "µs" → "us", no blank before "(", and known aliases ("Accelerator" → accelerator_core,
 * "Block Dim" → block_num, "OP Type" → type, "Op Name" → name, "Task Duration(us)" →
 * duration(us), "Device ID"/"deviceId" → device_id, ...).
 *
 * Cell types: TC_TEXT cells are interned ids in t->str (0 = empty); TC_NUM cells are doubles
 * (NaN when missing: empty, N/A, "host", ...); TC_TIME cells are int64 ns (NS_NONE when
 * missing), parsed exactly from decimal µs text.
 *
 * A kernels table (TK_KERNELS) built by any reader should use these canonical keys so the
 * aggregations find them: name, type, accelerator_core (TC_TEXT), start_time(us),
 * duration(us), wait_time(us) (TC_TIME, ns), block_num (TC_NUM); e.g.
 * table_add_col(t, "Start Time(us)", TC_TIME) and table_set_time(t, row, col, start_ns).
 *
 * Ownership: the table copies every string given to it; table_free frees everything. */
#ifndef APTOP_TABLE_H
#define APTOP_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"
#include "model/index/strtab.h"

enum table_col_type {
    TC_TEXT,
    TC_NUM,
    TC_TIME,
    TC_AUTO,    /* text while loading; table_finish turns it into TC_NUM when every
                 * non-missing cell is a number */
};

struct table_col {
    char *header;               /* as written (BOM stripped, UTF-8) */
    char *key;                  /* canonical key, see table_canon_key */
    enum table_col_type type;   /* never TC_AUTO after table_finish */
    bool auto_type;             /* was declared TC_AUTO */
    int prec;                   /* TC_NUM: most decimals seen in the text (for display) */
    uint32_t *text;             /* TC_TEXT / TC_AUTO: interned ids in the table's strtab */
    double *num;                /* TC_NUM */
    int64_t *time;              /* TC_TIME: ns */
};

struct table {
    const char *path;           /* file it came from ("" when none; in str) */
    enum table_kind kind;
    struct strtab *str;
    size_t ncols, nrows, cap;
    struct table_col *cols;
    uint32_t *line;             /* per row: source line where the record starts (0: none);
                                 * NULL when no_lines was set before the first row */
    bool no_lines;              /* the source has no lines (a DB): keep no line array */
    uint32_t *slice;            /* per row: joined model slice or SLICE_NONE; NULL before
                                 * kernels_join */
    uint32_t *by_slice;         /* row indices sorted by slice (joined rows only) */
    size_t nby_slice;
    size_t approx_cells;        /* time cells read from E-notation (approximate) */
};

struct table *table_new(enum table_kind kind, const char *path);
void table_free(struct table *t);
/* Adds a column; returns its index or SIZE_MAX when memory ran out. */
size_t table_add_col(struct table *t, const char *header, enum table_col_type type);
/* Adds a column whose cells are given: values holds nrows cells of the type's array
 * (double for TC_NUM, int64_t for TC_TIME, uint32_t string ids for TC_TEXT; TC_AUTO is not
 * allowed) allocated with malloc; the table takes it over (grown to the table's capacity).
 * Returns the column index, or SIZE_MAX when memory ran out (values is then freed). */
size_t table_adopt_col(struct table *t, const char *header, enum table_col_type type, void *values);
/* Puts the columns in a new order: column i becomes the one that was at order[i] (order is a
 * permutation of 0..ncols-1). Returns false, changing nothing, when it is not one. */
bool table_order_cols(struct table *t, const size_t *order);
/* Adds a row with every cell missing; returns its index or SIZE_MAX. */
size_t table_add_row(struct table *t);
/* Makes room for `rows` rows in all so that adding them moves no memory (a reader that
 * knows its row count). Returns 0, or -1 when memory ran out (the table is unchanged). */
int table_reserve(struct table *t, size_t rows);
void table_set_text(struct table *t, size_t row, size_t col, const char *s, size_t len);
void table_set_num(struct table *t, size_t row, size_t col, double v);
void table_set_time(struct table *t, size_t row, size_t col, int64_t ns);
/* Settles TC_AUTO columns (see above). Idempotent. */
void table_finish(struct table *t);

/* Bytes held by the table: the used rows of every column array, the per-row arrays and the
 * strings (capacity beyond nrows is never touched, so it is not counted). */
size_t table_memory(const struct table *t);

/* Column index by canonical key (or any header spelling, it is normalised), SIZE_MAX. */
size_t table_col(const struct table *t, const char *key);
static inline const char *table_text(const struct table *t, size_t row, size_t col)
{ return strtab_get(t->str, t->cols[col].text[row]); }
static inline double table_num(const struct table *t, size_t row, size_t col)
{ return t->cols[col].num[row]; }
static inline int64_t table_time(const struct table *t, size_t row, size_t col)
{ return t->cols[col].time[row]; }
/* True when the cell has no value (empty text, NaN, NS_NONE). */
bool table_is_missing(const struct table *t, size_t row, size_t col);

/* Canonical key of a header into out (always NUL-terminated). */
void table_canon_key(const char *header, size_t len, char *out, size_t size);
/* Rowset key of a canonical key: "duration(us)" → "duration_us", "ratio(%)" → "ratio_pct". */
void table_rowset_key(const char *canon, char *out, size_t size);

/* Every column and row, for the generic table view: TC_TEXT → RS_STR, TC_NUM → RS_NUM,
 * TC_TIME → RS_NS; titles are the headers as written; link = joined slice (or
 * SLICE_NONE). NULL when memory ran out. */
struct rowset *table_to_rowset(const struct table *t, const char *name);
/* The same for the rows whose text column col holds the interned id (no row when id is
 * UINT32_MAX); every row when col is not a text column (SIZE_MAX). */
struct rowset *table_rows_to_rowset(const struct table *t, const char *name, size_t col, uint32_t id);

/* --- text to values (shared by the readers) --- */
/* Decimal µs text → ns exactly (round half away from zero on the 4th decimal). Blanks and a
 * trailing TAB are ignored. Returns 0 ok, 1 approximate (E-notation), -1 missing
 * (empty, N/A, ...), -2 not a number. */
int table_parse_us(const char *s, size_t len, int64_t *ns);
/* Number text → double. Returns 0 ok, -1 missing, -2 not a number; *decimals gets the
 * count of digits after the point (may be NULL). */
int table_parse_num(const char *s, size_t len, double *v, int *decimals);
/* True for the spellings of "no value" found in real files: "", N/A, NA, -, None, null,
 * host, nan (case-insensitive, blanks ignored). */
bool table_is_missing_text(const char *s, size_t len);

#endif
