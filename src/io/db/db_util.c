#include "io/db/db_util.h"
#include "util/grow.h"
#include "model/index/hash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/free_all.h"

bool dbu_uri(const char *path, char *buf, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    /* "file://" + absolute path gives an empty authority, so a path starting with "//" is
     * not mistaken for a host name. */
    const char *pre = path[0] == '/' ? "file://" : "file:";
    for (const char *q = pre; *q; q++) {
        if (o + 1 >= size)
            return false;
        buf[o++] = *q;
    }
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        bool keep = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
                    || *s == '/' || *s == '.' || *s == '_' || *s == '-' || *s == '~';
        if (keep) {
            if (o + 1 >= size)
                return false;
            buf[o++] = (char)*s;
        } else {
            if (o + 3 >= size)
                return false;
            buf[o++] = '%';
            buf[o++] = hex[*s >> 4];
            buf[o++] = hex[*s & 15];
        }
    }
    const char *tail = "?mode=ro&immutable=1";
    size_t tl = strlen(tail);
    if (o + tl >= size)
        return false;
    memcpy(buf + o, tail, tl + 1);
    return true;
}

sqlite3 *dbu_open(const char *path, struct diag *d)
{
    size_t size = strlen(path) * 3 + 64;
    char *uri = malloc(size);
    if (!uri || !dbu_uri(path, uri, size)) {
        free(uri);
        diag_out_of_memory(d, path, "out of memory opening the database");
        return NULL;
    }
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        diag_add(d, DIAG_ERROR, path, "cannot open as SQLite: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    /* A second guard: this connection refuses any statement that would write. */
    sqlite3_exec(db, "PRAGMA query_only=1", NULL, NULL, NULL);
    return db;
}

bool dbu_has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

int dbu_table_count(sqlite3 *db, const char *path, struct diag *d)
{
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    if (n < 0)
        diag_add(d, DIAG_ERROR, path, "byte 0: not a readable SQLite database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

/* Does column name (one spelling) exist in the table? */
static bool has_col(sqlite3_stmt *info, const char *name, size_t len)
{
    sqlite3_reset(info);
    while (sqlite3_step(info) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(info, 1);
        if (c && strlen(c) == len && !strncmp(c, name, len))
            return true;
    }
    return false;
}

static bool ident_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '"' || s[i] == 0)
            return false;
    return len > 0;
}

static bool has_rowid(sqlite3 *db, const char *table)
{
    char q[128];
    snprintf(q, sizeof q, "SELECT rowid FROM \"%s\" LIMIT 0", table);
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    return ok;
}

sqlite3_stmt *dbu_select(sqlite3 *db, const char *path, struct diag *d, const char *table,
                         const char *const *cols, int ncols, uint32_t required, uint32_t *have)
{
    *have = 0;
    if (!ident_ok(table, strlen(table)) || !dbu_has_table(db, table))
        return NULL;
    char q[128];
    snprintf(q, sizeof q, "PRAGMA table_info(\"%s\")", table);
    sqlite3_stmt *info = NULL;
    if (sqlite3_prepare_v2(db, q, -1, &info, NULL) != SQLITE_OK) {
        diag_add(d, DIAG_WARN, path, "table %s: cannot read its columns: %s", table, sqlite3_errmsg(db));
        return NULL;
    }
    size_t cap = 64 + strlen(table);
    for (int i = 0; i < ncols; i++)
        cap += strlen(cols[i]) + 8;
    char *sql = malloc(cap), missing[256] = "";
    if (!sql) {
        sqlite3_finalize(info);
        return NULL;
    }
    size_t o = (size_t)snprintf(sql, cap, "SELECT ");
    bool ok = true;
    for (int i = 0; i < ncols; i++) {
        const char *alt = cols[i], *found = NULL;
        size_t flen = 0;
        if (!strcmp(alt, "rowid")) {   /* not in table_info; absent from WITHOUT ROWID tables */
            bool rowid = has_rowid(db, table);
            *have |= rowid ? 1u << i : 0;
            o += (size_t)snprintf(sql + o, cap - o, "%s%s", i ? ", " : "", rowid ? "rowid" : "NULL");
            continue;
        }
        while (*alt && !found) {
            const char *bar = strchr(alt, '|');
            size_t len = bar ? (size_t)(bar - alt) : strlen(alt);
            if (ident_ok(alt, len) && has_col(info, alt, len)) {
                found = alt;
                flen = len;
            }
            alt = bar ? bar + 1 : alt + len;
        }
        if (found) {
            *have |= 1u << i;
            o += (size_t)snprintf(sql + o, cap - o, "%s\"%.*s\"", i ? ", " : "", (int)flen, found);
        } else {
            o += (size_t)snprintf(sql + o, cap - o, "%sNULL", i ? ", " : "");
            size_t ml = strlen(missing);
            const char *bar = strchr(cols[i], '|');
            int nl = bar ? (int)(bar - cols[i]) : (int)strlen(cols[i]);
            if (ml + (size_t)nl + 3 < sizeof missing)
                snprintf(missing + ml, sizeof missing - ml, "%s%.*s", ml ? ", " : "", nl, cols[i]);
            if (required & (1u << i))
                ok = false;
        }
    }
    sqlite3_finalize(info);
    snprintf(sql + o, cap - o, " FROM \"%s\"", table);
    sqlite3_stmt *st = NULL;
    if (!ok) {
        diag_add(d, DIAG_WARN, path, "table %s lacks required column(s) (%s): table skipped", table, missing);
    } else if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        diag_add(d, DIAG_WARN, path, "table %s: cannot be read: %s", table, sqlite3_errmsg(db));
        st = NULL;
    } else if (missing[0]) {
        diag_add(d, DIAG_INFO, path, "table %s has no column %s: left empty", table, missing);
    }
    free(sql);
    return st;
}

/* Exact decimal text → int64, rounding a fraction half away from zero. */
static bool parse_i64(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    uint64_t acc = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (acc > (UINT64_MAX - 9) / 10)
            return false;
        acc = acc * 10 + (uint64_t)(s[i] - '0');
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i < n && s[i] >= '5' && s[i] <= '9')
            acc++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (!digits || i != n || acc > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return false;
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

bool dbu_i64(sqlite3_stmt *st, int col, int64_t *v)
{
    /* One column fetch, then cheap value calls: this runs for every cell of big tables. */
    sqlite3_value *val = sqlite3_column_value(st, col);
    switch (sqlite3_value_type(val)) {
    case SQLITE_INTEGER:
        *v = sqlite3_value_int64(val);
        return true;
    case SQLITE_FLOAT: {
        double x = sqlite3_value_double(val);
        if (!isfinite(x) || x >= 9.2e18 || x <= -9.2e18)
            return false;
        *v = llround(x);
        return true;
    }
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_value_text(val);
        return s && parse_i64(s, (size_t)sqlite3_value_bytes(val), v);
    }
    default:
        return false;
    }
}

double dbu_f64(sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
        return sqlite3_column_double(st, col);
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_column_text(st, col);
        if (!s)
            return NAN;
        char *end;
        double x = strtod(s, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        return end != s && !*end ? x : NAN;
    }
    default:
        return NAN;
    }
}

const char *dbu_text(sqlite3_stmt *st, int col, size_t *len)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL) {
        *len = 0;
        return NULL;
    }
    const char *s = (const char *)sqlite3_column_text(st, col);
    *len = s ? (size_t)sqlite3_column_bytes(st, col) : 0;
    return s;
}

/* --- hash map ---------------------------------------------------------------------- */

void dbu_map_free(struct dbu_map *h)
{
    FREE_ALL(h->keys, h->vals, h->used);
    memset(h, 0, sizeof *h);
}

uint64_t *dbu_map_get(const struct dbu_map *h, uint64_t key)
{
    if (!h->cap)
        return NULL;
    size_t mask = h->cap - 1;
    for (size_t i = hash_mix64(key) & mask;; i = (i + 1) & mask) {
        if (!h->used[i])
            return NULL;
        if (h->keys[i] == key)
            return &h->vals[i];
    }
}

static int map_grow(struct dbu_map *h)
{
    size_t ncap = h->cap ? h->cap * 2 : 64;
    struct dbu_map n = { calloc(ncap, 8), calloc(ncap, 8), calloc(ncap, 1), ncap, 0 };
    if (!n.keys || !n.vals || !n.used) {
        dbu_map_free(&n);
        return -1;
    }
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->used[i])
            continue;
        size_t j = hash_mix64(h->keys[i]) & (ncap - 1);
        while (n.used[j])
            j = (j + 1) & (ncap - 1);
        n.used[j] = 1;
        n.keys[j] = h->keys[i];
        n.vals[j] = h->vals[i];
        n.n++;
    }
    dbu_map_free(h);
    *h = n;
    return 0;
}

uint64_t *dbu_map_put(struct dbu_map *h, uint64_t key, uint64_t val, bool *fresh)
{
    if ((h->n + 1) * 10 > h->cap * 7 && map_grow(h) < 0)
        return NULL;
    size_t mask = h->cap - 1, i = hash_mix64(key) & mask;
    while (h->used[i] && h->keys[i] != key)
        i = (i + 1) & mask;
    if (fresh)
        *fresh = !h->used[i];
    if (!h->used[i]) {
        h->used[i] = 1;
        h->keys[i] = key;
        h->n++;
    }
    h->vals[i] = val;
    return &h->vals[i];
}

/* --- key → ordinal index ------------------------------------------------------------- */

void dbu_keyidx_free(struct dbu_keyidx *x)
{
    FREE_ALL(x->bits, x->rank, x->pairs);
    memset(x, 0, sizeof *x);
}

size_t dbu_keyidx_bytes(const struct dbu_keyidx *x)
{
    return x->words_cap * sizeof *x->bits + (x->rank ? x->nwords * sizeof *x->rank : 0)
           + x->pairs_cap * sizeof *x->pairs;
}

static bool pair_push(struct dbu_keyidx *x, int64_t key, uint64_t ord)
{
    struct dbu_keypair *p = grow_array(x->pairs, &x->pairs_cap, (size_t)ord + 1, sizeof *p);
    if (!p)
        return false;
    x->pairs = p;
    x->pairs[ord].key = key;
    x->pairs[ord].ord = ord;
    return true;
}

/* Dense → sparse: the set bits are the keys of ordinals 0..n-1, in order. */
static bool to_sparse(struct dbu_keyidx *x)
{
    uint64_t ord = 0;
    for (size_t w = 0; w < x->nwords; w++)
        for (uint64_t b = x->bits[w]; b; b &= b - 1)
            if (!pair_push(x, x->first + (int64_t)(w * 64 + (size_t)__builtin_ctzll(b)), ord++))
                return false;
    free(x->bits);
    x->bits = NULL;
    x->nwords = x->words_cap = 0;
    x->sparse = true;
    return true;
}

bool dbu_keyidx_add(struct dbu_keyidx *x, int64_t key)
{
    if (!x->sparse) {
        /* stays dense while strictly increasing and within DBU_KEYIDX_GAP per key on average */
        uint64_t off = x->n ? (uint64_t)key - (uint64_t)x->first : 0;
        bool fits = !x->n || (key > x->last && off / DBU_KEYIDX_GAP <= x->n + 65536);
        if (fits) {
            if (!x->n)
                x->first = key;
            size_t w = (size_t)(off / 64);
            if (w >= x->words_cap) {
                size_t old = x->words_cap;
                uint64_t *b = grow_array(x->bits, &x->words_cap, w + 1, sizeof *b);
                if (!b)
                    return false;
                memset(b + old, 0, (x->words_cap - old) * sizeof *b);
                x->bits = b;
            }
            x->bits[w] |= 1ULL << (off % 64);
            x->nwords = w + 1;
            x->last = key;
            x->n++;
            return true;
        }
        if (!to_sparse(x))
            return false;
    }
    if (x->n && key < x->pairs[x->n - 1].key)
        x->unsorted = true;
    if (!pair_push(x, key, x->n))
        return false;
    x->n++;
    return true;
}

static int pair_cmp(const void *a, const void *b)
{
    const struct dbu_keypair *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->ord < q->ord ? -1 : p->ord > q->ord;
}

bool dbu_keyidx_done(struct dbu_keyidx *x)
{
    if (x->sparse) {
        if (x->unsorted)
            qsort(x->pairs, x->n, sizeof *x->pairs, pair_cmp);
        x->unsorted = false;
        return true;
    }
    free(x->rank);
    x->rank = malloc((x->nwords ? x->nwords : 1) * sizeof *x->rank);
    if (!x->rank) {
        dbu_keyidx_free(x);
        return false;
    }
    uint32_t sum = 0;
    for (size_t w = 0; w < x->nwords; w++) {
        x->rank[w] = sum;
        sum += (uint32_t)__builtin_popcountll(x->bits[w]);
    }
    return true;
}

uint32_t dbu_keyidx_find(struct dbu_keyidx *x, int64_t key)
{
    if (!x->n)
        return UINT32_MAX;
    if (!x->sparse) {
        if (!x->rank || key < x->first || key > x->last)
            return UINT32_MAX;
        uint64_t off = (uint64_t)key - (uint64_t)x->first, word = x->bits[off / 64];
        unsigned b = (unsigned)(off % 64);
        if (!(word >> b & 1))
            return UINT32_MAX;
        return x->rank[off / 64] + (uint32_t)__builtin_popcountll(word & ((1ULL << b) - 1));
    }
    size_t lo;
    if (x->hint < x->n && x->pairs[x->hint].key == key && (!x->hint || x->pairs[x->hint - 1].key != key)) {
        lo = x->hint;
    } else {
        LOWER_BOUND(lo, (size_t)0, x->n, k, x->pairs[k].key < key);
        if (lo == x->n || x->pairs[lo].key != key)
            return UINT32_MAX;
    }
    x->hint = lo + 1;
    return x->pairs[lo].ord > UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)x->pairs[lo].ord;
}

/* --- id sets ------------------------------------------------------------------------- */

#define IDSET_DENSE (1LL << 28)

bool dbu_idset_add(struct dbu_idset *s, int64_t id)
{
    if (id < 0 || id >= IDSET_DENSE)
        return dbu_map_put(&s->big, (uint64_t)id, 1, NULL) != NULL;
    size_t w = (size_t)id >> 6;
    if (w >= s->nwords) {
        size_t n = s->nwords ? s->nwords : 64;
        while (n <= w)
            n *= 2;
        uint64_t *b = grow_exact(s->bits, n, sizeof *b);
        if (!b)
            return false;
        memset(b + s->nwords, 0, (n - s->nwords) * sizeof *b);
        s->bits = b;
        s->nwords = n;
    }
    s->bits[w] |= 1ULL << (id & 63);
    s->n++;
    return true;
}

bool dbu_idset_has(const struct dbu_idset *s, int64_t id)
{
    if (id < 0 || id >= IDSET_DENSE)
        return s->big.n && dbu_map_get(&s->big, (uint64_t)id) != NULL;
    size_t w = (size_t)id >> 6;
    return w < s->nwords && (s->bits[w] >> (id & 63) & 1);
}

void dbu_idset_free(struct dbu_idset *s)
{
    free(s->bits);
    dbu_map_free(&s->big);
    memset(s, 0, sizeof *s);
}
