/* Helpers shared by the DB readers (db_reader.c): opening SQLite files without ever writing,
 * selecting columns by name, reading typed values, and a small u64 → u64 hash map for
 * joins. Internal to src/io. */
#ifndef APTOP_DB_UTIL_H
#define APTOP_DB_UTIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/index/diag.h"

/* Opens path read-only and immutable through a URI (mode=ro&immutable=1, path escaped), so
 * SQLite creates no -wal/-shm/-journal file and takes no lock. NULL on failure (diag'd). */
sqlite3 *dbu_open(const char *path, struct diag *d);
/* The URI used above, into buf (for tests). Returns false when it does not fit. */
bool dbu_uri(const char *path, char *buf, size_t size);

bool dbu_has_table(sqlite3 *db, const char *table);
/* Number of user tables in the file, -1 when the schema cannot be read. */
int dbu_table_count(sqlite3 *db, const char *path, struct diag *d);

/* Prepares SELECT of cols (each "name" or "name|alias|...", or "rowid") from table. Absent columns
 * select NULL and have their bit cleared in *have (bit i for cols[i]); when a column whose
 * bit is set in `required` is absent, nothing is prepared and a warning names it. Returns
 * NULL when the table is absent, unreadable or lacks a required column. */
sqlite3_stmt *dbu_select(sqlite3 *db, const char *path, struct diag *d, const char *table,
                         const char *const *cols, int ncols, uint32_t required, uint32_t *have);

/* Integer value of a cell: INTEGER as is, REAL rounded, TEXT parsed exactly as a decimal
 * (a fraction is rounded). False when NULL, a blob, or not a number. */
bool dbu_i64(sqlite3_stmt *st, int col, int64_t *v);
/* Number value of a cell; NaN when NULL or not a number. */
double dbu_f64(sqlite3_stmt *st, int col);
/* Text of a cell (NULL when NULL); *len its length. Valid until the next step. */
const char *dbu_text(sqlite3_stmt *st, int col, size_t *len);

/* Open-addressing map from u64 keys to u64 values (any key, including 0 and ~0). */
struct dbu_map {
    uint64_t *keys, *vals;
    uint8_t *used;
    size_t cap, n;
};
void dbu_map_free(struct dbu_map *h);
/* Pointer to the value of key, or NULL. */
uint64_t *dbu_map_get(const struct dbu_map *h, uint64_t key);
/* Inserts or replaces; returns the value slot, NULL when memory ran out. *fresh tells
 * whether the key was new (may be NULL). */
uint64_t *dbu_map_put(struct dbu_map *h, uint64_t key, uint64_t val, bool *fresh);

/* A set of int64 ids (connection ids): a bitmap for ids in [0, 2^28) grown to the largest
 * one seen, a hash map for the others. */
struct dbu_idset {
    uint64_t *bits;
    size_t nwords, n;               /* n: adds into the bitmap (repeats counted) */
    struct dbu_map big;
};
/* False when memory ran out. */
bool dbu_idset_add(struct dbu_idset *s, int64_t id);
bool dbu_idset_has(const struct dbu_idset *s, int64_t id);
void dbu_idset_free(struct dbu_idset *s);

/* Key → ordinal index for joins on an id column: keys are added in row order (the i-th
 * key added has ordinal i) and looked up later in any order. While keys arrive strictly
 * increasing and dense (average gap at most DBU_KEYIDX_GAP) they are kept as a bitmap over
 * [first, last] with a running count per 64 bits: about 0.2 byte per id in that range, O(1)
 * lookups. Otherwise the index turns into (key, ordinal) pairs sorted by key: 16 bytes per
 * key, O(log n) lookups (O(1) when lookups follow key order). A repeated key finds its
 * first ordinal. */
#define DBU_KEYIDX_GAP 32
struct dbu_keyidx {
    size_t n;                       /* keys added */
    bool sparse;
    /* dense form */
    int64_t first, last;
    uint64_t *bits;
    uint32_t *rank;                 /* after dbu_keyidx_done: set bits before each word */
    size_t nwords, words_cap;
    /* sparse form */
    struct dbu_keypair { int64_t key; uint64_t ord; } *pairs;
    size_t pairs_cap, hint;
    bool unsorted;
};
/* Adds the next key. False when memory ran out (the index keeps the keys before it). */
bool dbu_keyidx_add(struct dbu_keyidx *x, int64_t key);
/* Ends adding (builds the counts or sorts). False when memory ran out: the index is then
 * empty. */
bool dbu_keyidx_done(struct dbu_keyidx *x);
/* Ordinal of key, or UINT32_MAX when absent. Only after dbu_keyidx_done. */
uint32_t dbu_keyidx_find(struct dbu_keyidx *x, int64_t key);
/* Bytes held. */
size_t dbu_keyidx_bytes(const struct dbu_keyidx *x);
void dbu_keyidx_free(struct dbu_keyidx *x);

#endif
