/* Rowsets: typed tables of results (a report section, a kernel table, a list of steps).
 * Analyses fill them; the report prints them as text, CSV or JSON, and the UI's table view
 * sorts, filters and draws them, so a figure is computed once and shown the same way
 * everywhere. A rowset owns everything in it (strings are copied into its string table). */
#ifndef APTOP_ROWSET_H
#define APTOP_ROWSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/strtab.h"

enum rs_type {
    RS_STR,     /* text */
    RS_INT,     /* integer */
    RS_NS,      /* a duration or time in ns, shown as µs with 3 decimals ("_us" keys) */
    RS_NUM,     /* a float shown with prec decimals (ms figures from files, ratios) */
    RS_PCT,     /* a fraction 0..1: JSON keeps the fraction, text shows a percentage */
    RS_RAW,     /* a JSON literal (object or array) kept as text, for nested values */
    RS_DEC,     /* a number as its file wrote it (decimal text): JSON and CSV write those
                 * digits, the screen and the text report round it to the column's
                 * precision (prec: the largest of its numbers', model/index/num_prec.h); sorts by
                 * value */
};

struct rs_col {
    const char *key;    /* snake_case JSON/CSV key, e.g. "total_us" (in the rowset's strtab) */
    const char *title;  /* column header for text and UI, e.g. "Total µs" (likewise) */
    enum rs_type type;
    int prec;           /* decimals for RS_NUM (and RS_DEC: kept up to date as rows come) */
};

union rs_val { uint32_t s; int64_t i; double d; };

struct rowset {
    const char *name;           /* section name, e.g. "kernels" (in str) */
    char *caption;              /* one line shown above the table, may be NULL */
    bool object;                /* JSON: print the single row as an object, not an array */
    size_t ncols, nrows, cap;
    struct rs_col *cols;
    union rs_val *vals;         /* nrows * ncols */
    uint8_t *null;              /* nrows * ncols: 1 when the cell has no value */
    uint64_t *link;             /* per row: an opaque reference for the UI (slice index, ...) */
    struct strtab *str;
    size_t lost_rows;           /* rows rowset_row could not add, memory having run out: the
                                 * writers, report's exit status and the table views say so */
};

struct rowset *rowset_new(const char *name);
void rowset_free(struct rowset *rs);
void rowset_caption(struct rowset *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds a column, returns its index. */
size_t rowset_col(struct rowset *rs, const char *key, const char *title, enum rs_type type, int prec);
/* One line of a builder's column table, as rowset_col takes it. */
struct rs_coldef { const char *key, *title; enum rs_type type; int prec; };
/* The lines of such a table by type: only numbers shown with decimals name a precision. */
#define RS_COL_STR(key, title) { key, title, RS_STR, 0 }
#define RS_COL_INT(key, title) { key, title, RS_INT, 0 }
#define RS_COL_NS(key, title) { key, title, RS_NS, 0 }
#define RS_COL_RAW(key, title) { key, title, RS_RAW, 0 }
#define RS_COL_NUM(key, title, prec) { key, title, RS_NUM, prec }
/* Adds the n columns of defs in their order (the first gets index rs->ncols); false when
 * memory ran out (the columns before the one that failed stay). */
bool rowset_cols(struct rowset *rs, const struct rs_coldef *defs, size_t n);
/* A new rowset with the columns of a builder's table (column i of defs gets index i);
 * NULL when memory ran out. */
struct rowset *rowset_new_cols(const char *name, const struct rs_coldef *defs, size_t n);
#define ROWSET_NEW(name, defs) rowset_new_cols(name, defs, sizeof(defs) / sizeof *(defs))
/* The same for a table over ranks that names each row's rank only when the session has
 * several: a first column "rank" when ranked (its index in *crank, else SIZE_MAX), then the
 * columns of defs (the first at *base). */
struct rowset *rowset_new_ranked(const char *name, bool ranked, const struct rs_coldef *defs, size_t n,
                                 size_t *crank, size_t *base);
#define ROWSET_NEW_RANKED(name, ranked, defs, crank, base) \
    rowset_new_ranked(name, ranked, defs, sizeof(defs) / sizeof *(defs), crank, base)
/* Adds a row (all cells null), returns its index or SIZE_MAX when memory ran out (then
 * counted in lost_rows). */
size_t rowset_row(struct rowset *rs);
/* The same with the row's link set (what the UI jumps to from that row). */
size_t rowset_linked_row(struct rowset *rs, uint64_t link);
/* The link of a row that names (rank index, entry of that rank): the rank in the high half;
 * and the two read back from such a link. */
static inline uint64_t rowset_rank_link(size_t rank_index, size_t entry)
{
    return (uint64_t)rank_index << 32 | (entry & 0xffffffffu);
}
static inline size_t rowset_link_rank(uint64_t link) { return (size_t)(link >> 32); }
static inline size_t rowset_link_entry(uint64_t link) { return (size_t)(link & 0xffffffffu); }
/* A row (linked to link) naming a rank: its number in column crank and, when known (>= 0),
 * its device in column cdev; SIZE_MAX when memory ran out. */
size_t rowset_rank_row(struct rowset *rs, uint64_t link, size_t crank, int rank, size_t cdev, int device);
void rowset_str(struct rowset *rs, size_t row, size_t col, const char *s);
void rowset_strn(struct rowset *rs, size_t row, size_t col, const char *s, size_t len);
void rowset_int(struct rowset *rs, size_t row, size_t col, int64_t v);
void rowset_ns(struct rowset *rs, size_t row, size_t col, int64_t ns);
void rowset_num(struct rowset *rs, size_t row, size_t col, double v);   /* RS_NUM or RS_PCT */
void rowset_raw(struct rowset *rs, size_t row, size_t col, const char *json);
/* RS_DEC: the decimal text of a number (stays null when text is not a JSON-style number). */
void rowset_dec(struct rowset *rs, size_t row, size_t col, const char *text);
/* True when s is a number in JSON's grammar ("-0.25", "1e-05", not "1.", ".5", "NaN"). */
bool rowset_is_json_number(const char *s);
/* The shortest decimal text that reads back as exactly v ("0.43614", never
 * "0.43614000000000003"); "null" for NaN and infinities. */
const char *rowset_shortest(double v, char *buf, size_t size);
static inline const union rs_val *rowset_cell(const struct rowset *rs, size_t row, size_t col)
{ return &rs->vals[row * rs->ncols + col]; }
static inline bool rowset_is_null(const struct rowset *rs, size_t row, size_t col)
{ return rs->null[row * rs->ncols + col]; }
/* Column index by key, or SIZE_MAX. */
size_t rowset_find_col(const struct rowset *rs, const char *key);
/* Text of a cell as the text report shows it (no units; RS_DEC at the column's precision),
 * into buf. */
const char *rowset_format(const struct rowset *rs, size_t row, size_t col, char *buf, size_t size);
/* Row order: fills order[0..nrows) sorted by col (nulls last), stable. */
void rowset_sort_order(const struct rowset *rs, size_t col, bool descending, uint32_t *order);
/* Keeps the first n rows in the given order (for --top). */
void rowset_truncate(struct rowset *rs, size_t n);

#endif
