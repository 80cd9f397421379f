#include "model/index/table.h"
#include "model/index/timeparse.h"
#include "util/grow.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/free_all.h"

/* The one alias table: canonical forms (after folding case, blanks and µ) of spellings that
 * name the same column in different files or versions. */
static const struct { const char *from, *to; } aliases[] = {
    { "accelerator", "accelerator_core" },
    { "task_type", "accelerator_core" },          /* op_summary: Task Type */
    { "block_dim", "block_num" },
    { "mix_block_dim", "mix_block_num" },
    { "op_type", "type" },
    { "op_name", "name" },
    { "kernel_name", "name" },
    { "task_start_time(us)", "start_time(us)" },
    { "task_duration(us)", "duration(us)" },
    { "task_wait_time(us)", "wait_time(us)" },
    { "deviceid", "device_id" },
};

static bool is_sep(unsigned char c) { return c == ' ' || c == '_' || c == '-' || c == '\t'; }

void table_canon_key(const char *header, size_t len, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)header;
    size_t o = 0;
    bool pending = false, prev_lower = false;
    if (!size)
        return;
    if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        s += 3;
        len -= 3;
    }
    for (size_t i = 0; i < len && o + 2 < size; i++) {
        unsigned char c = s[i];
        if (c == '\r' || c == '\n' || c == '"')
            continue;
        if (is_sep(c)) {
            pending = o > 0;
            prev_lower = false;
            continue;
        }
        if (i + 1 < len && ((c == 0xC2 && s[i + 1] == 0xB5) || (c == 0xCE && s[i + 1] == 0xBC))) {
            c = 'u';    /* µ (micro sign or Greek mu) */
            i++;
        } else if (isupper(c) && prev_lower) {
            pending = true;     /* camelCase boundary: deviceId → device_id */
        }
        if (pending && c != '(' && c != ')' && o > 0 && out[o - 1] != '(')
            out[o++] = '_';
        pending = false;
        prev_lower = islower(c) != 0;
        out[o++] = (char)tolower(c);
    }
    out[o] = 0;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (!strcmp(out, aliases[a].from)) {
            snprintf(out, size, "%s", aliases[a].to);
            break;
        }
}

void table_rowset_key(const char *canon, char *out, size_t size)
{
    size_t o = 0;
    if (!size)
        return;
    for (const unsigned char *s = (const unsigned char *)canon; *s && o + 4 < size; s++) {
        if (*s == '%') {
            if (o && out[o - 1] != '_')
                out[o++] = '_';
            memcpy(out + o, "pct", 3);
            o += 3;
        } else if (isalnum(*s) || *s >= 0x80) {
            out[o++] = (char)*s;
        } else if (o && out[o - 1] != '_') {
            out[o++] = '_';
        }
    }
    while (o && out[o - 1] == '_')
        o--;
    if (!o)
        o = (size_t)snprintf(out, size, "col");
    out[o < size ? o : size - 1] = 0;
}

/* --- text to values ------------------------------------------------------------------ */

static void trim(const char **s, size_t *len)
{
    const char *p = *s;
    size_t n = *len;
    while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
        n--;
    *s = p;
    *len = n;
}

bool table_is_missing_text(const char *s, size_t len)
{
    static const char *const words[] = { "n/a", "na", "-", "--", "none", "null", "host", "nan", "nil" };
    trim(&s, &len);
    if (!len)
        return true;
    if (len > 4)
        return false;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (strlen(words[w]) == len && !strncasecmp(s, words[w], len))
            return true;
    return false;
}

/* strtod on a bounded copy (cells are not NUL-terminated in general). */
static int parse_strtod(const char *s, size_t len, double *v)
{
    char buf[80];
    char *end;
    if (len >= sizeof buf)
        return -2;
    memcpy(buf, s, len);
    buf[len] = 0;
    for (size_t i = 0; i < len; i++)    /* decimal only: no hex, no words */
        if (!strchr("0123456789+-.eE", buf[i]))
            return -2;
    *v = strtod(buf, &end);
    return end == buf + len ? 0 : -2;
}

int table_parse_us(const char *s, size_t len, int64_t *ns)
{
    trim(&s, &len);
    if (!len)
        return -1;
    if (decimal_us_to_ns(s, len, ns) != 0)
        return table_is_missing_text(s, len) ? -1 : -2;
    /* E-notation is what a spreadsheet left of a longer number: exact as written, but the
     * digits it dropped are gone, so the caller flags the value */
    return memchr(s, 'e', len) || memchr(s, 'E', len) ? 1 : 0;
}

static const double pow10_tab[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

int table_parse_num(const char *s, size_t len, double *v, int *decimals)
{
    trim(&s, &len);
    if (!len)
        return -1;
    const char *p = s, *e = s + len;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t mant = 0;
    int sig = 0, fd = 0, digits = 0;
    while (p < e && *p >= '0' && *p <= '9') {
        mant = mant * 10 + (uint64_t)(*p++ - '0');
        if (mant)
            sig++;
        digits++;
    }
    if (p < e && *p == '.') {
        p++;
        while (p < e && *p >= '0' && *p <= '9') {
            mant = mant * 10 + (uint64_t)(*p++ - '0');
            if (mant)
                sig++;
            fd++, digits++;
        }
    }
    if (decimals)
        *decimals = fd;
    if (!digits)
        return table_is_missing_text(s, len) ? -1 : -2;
    if (p == e && sig <= 15 && fd <= 22) {
        /* exact operands: one correctly rounded division */
        double d = (double)mant / pow10_tab[fd];
        *v = neg ? -d : d;
        return 0;
    }
    if (p < e && *p != 'e' && *p != 'E')
        return -2;
    return parse_strtod(s, len, v);
}

/* --- building ------------------------------------------------------------------------- */

struct table *table_new(enum table_kind kind, const char *path)
{
    struct table *t = STRTAB_NAMED_NEW(struct table, path, path);
    if (t)
        t->kind = kind;
    return t;
}

void table_free(struct table *t)
{
    if (!t)
        return;
    for (size_t c = 0; c < t->ncols; c++)
        FREE_ALL(t->cols[c].header, t->cols[c].key, t->cols[c].text, t->cols[c].num, t->cols[c].time);
    strtab_free(t->str);
    FREE_ALL(t->cols, t->line, t->slice, t->by_slice, t);
}

static void fill_missing(struct table_col *c, size_t from, size_t to)
{
    for (size_t r = from; r < to; r++) {
        if (c->type == TC_NUM)
            c->num[r] = NAN;
        else if (c->type == TC_TIME)
            c->time[r] = NS_NONE;
        else
            c->text[r] = 0;
    }
}

static int alloc_col(struct table_col *c, size_t cap)
{
    void *p;
    if (c->type == TC_NUM)
        p = c->num = grow_exact(c->num, cap, sizeof *c->num);
    else if (c->type == TC_TIME)
        p = c->time = grow_exact(c->time, cap, sizeof *c->time);
    else
        p = c->text = grow_exact(c->text, cap, sizeof *c->text);
    return p || !cap ? 0 : -1;
}

/* Grows t->cols by one and names the new column; its arrays are left NULL. */
static struct table_col *col_push(struct table *t, const char *header, enum table_col_type type)
{
    char key[256];
    struct table_col *cols = grow_exact(t->cols, t->ncols + 1, sizeof *cols);
    if (!cols)
        return NULL;
    t->cols = cols;
    struct table_col *c = &cols[t->ncols];
    memset(c, 0, sizeof *c);
    table_canon_key(header, strlen(header), key, sizeof key);
    size_t hl = strlen(header);
    if (hl >= 3 && !memcmp(header, "\xEF\xBB\xBF", 3))
        header += 3;
    c->header = strdup(header);
    c->key = strdup(key);
    c->type = type;
    c->auto_type = type == TC_AUTO;
    if (c->auto_type)
        c->type = TC_TEXT;
    if (!c->header || !c->key) {
        FREE_ALL(c->header, c->key);
        return NULL;
    }
    return c;
}

size_t table_add_col(struct table *t, const char *header, enum table_col_type type)
{
    struct table_col *c = col_push(t, header, type);
    if (!c)
        return SIZE_MAX;
    if (t->cap && alloc_col(c, t->cap)) {
        FREE_ALL(c->header, c->key, c->text, c->num, c->time);
        return SIZE_MAX;
    }
    fill_missing(c, 0, t->nrows);
    return t->ncols++;
}

size_t table_adopt_col(struct table *t, const char *header, enum table_col_type type, void *values)
{
    struct table_col *c = type == TC_AUTO || (!values && t->nrows) ? NULL : col_push(t, header, type);
    size_t elem = type == TC_TEXT ? sizeof(uint32_t) : 8;
    void *v = c ? grow_exact(values, t->cap > t->nrows ? t->cap : t->nrows, elem) : NULL;
    if (!v) {
        if (c) {
            free(c->header);
            free(c->key);
        }
        free(values);
        return SIZE_MAX;
    }
    if (type == TC_NUM)
        c->num = v;
    else if (type == TC_TIME)
        c->time = v;
    else
        c->text = v;
    return t->ncols++;
}

bool table_order_cols(struct table *t, const size_t *order)
{
    struct table_col *cols = malloc((t->ncols ? t->ncols : 1) * sizeof *cols);
    bool *seen = calloc(t->ncols ? t->ncols : 1, 1);
    bool ok = cols && seen;
    for (size_t i = 0; ok && i < t->ncols; i++) {
        if (order[i] >= t->ncols || seen[order[i]])
            ok = false;
        else
            seen[order[i]] = true, cols[i] = t->cols[order[i]];
    }
    if (ok)
        memcpy(t->cols, cols, t->ncols * sizeof *cols);
    FREE_ALL(cols, seen);
    return ok;
}

int table_reserve(struct table *t, size_t cap)
{
    if (cap <= t->cap)
        return 0;
    for (size_t c = 0; c < t->ncols; c++)
        if (alloc_col(&t->cols[c], cap))
            return -1;   /* columns grown so far keep their rows: still consistent */
    if (!t->no_lines) {
        uint32_t *line = grow_exact(t->line, cap, sizeof *line);
        if (!line)
            return -1;
        t->line = line;
    }
    if (t->slice) {
        uint32_t *sl = grow_exact(t->slice, cap, sizeof *sl);
        if (!sl)
            return -1;
        t->slice = sl;
    }
    t->cap = cap;
    return 0;
}

size_t table_add_row(struct table *t)
{
    if (t->nrows == t->cap && table_reserve(t, t->cap ? t->cap * 2 : 256) < 0)
        return SIZE_MAX;
    size_t r = t->nrows++;
    for (size_t c = 0; c < t->ncols; c++)
        fill_missing(&t->cols[c], r, r + 1);
    if (t->line)
        t->line[r] = 0;
    if (t->slice)
        t->slice[r] = SLICE_NONE;
    return r;
}

void table_set_text(struct table *t, size_t row, size_t col, const char *s, size_t len)
{
    if (row >= t->nrows || col >= t->ncols)
        return;
    struct table_col *c = &t->cols[col];
    if (c->type == TC_NUM) {
        double v;
        int dec = 0;
        if (!table_parse_num(s, len, &v, &dec)) {
            c->num[row] = v;
            if (dec > c->prec)
                c->prec = dec;
        }
    } else if (c->type == TC_TIME) {
        int64_t ns;
        int rc = table_parse_us(s, len, &ns);
        if (rc >= 0)
            c->time[row] = ns;
        t->approx_cells += rc == 1;
    } else {
        uint32_t id = strtab_intern(t->str, s, len);
        c->text[row] = id == UINT32_MAX ? 0 : id;
    }
}

void table_set_num(struct table *t, size_t row, size_t col, double v)
{
    if (row < t->nrows && col < t->ncols && t->cols[col].type == TC_NUM)
        t->cols[col].num[row] = v;
}

void table_set_time(struct table *t, size_t row, size_t col, int64_t ns)
{
    if (row < t->nrows && col < t->ncols && t->cols[col].type == TC_TIME)
        t->cols[col].time[row] = ns;
}

void table_finish(struct table *t)
{
    for (size_t ci = 0; ci < t->ncols; ci++) {
        struct table_col *c = &t->cols[ci];
        if (!c->auto_type || c->type != TC_TEXT)
            continue;
        bool numeric = true;
        int prec = 0;
        for (size_t r = 0; r < t->nrows && numeric; r++) {
            double v;
            int dec = 0;
            uint32_t id = c->text[r];
            if (id && table_parse_num(strtab_get(t->str, id), strtab_len(t->str, id), &v, &dec) == -2)
                numeric = false;
            if (dec > prec)
                prec = dec;
        }
        if (!numeric)
            continue;
        double *num = malloc((t->cap ? t->cap : 1) * sizeof *num);
        if (!num)
            continue;
        for (size_t r = 0; r < t->nrows; r++) {
            uint32_t id = c->text[r];
            if (!id || table_parse_num(strtab_get(t->str, id), strtab_len(t->str, id), &num[r], NULL))
                num[r] = NAN;
        }
        free(c->text);
        c->text = NULL;
        c->num = num;
        c->type = TC_NUM;
        c->prec = prec;
    }
}

/* --- queries ---------------------------------------------------------------------------- */

size_t table_col(const struct table *t, const char *key)
{
    char k[256];
    if (!t)
        return SIZE_MAX;
    table_canon_key(key, strlen(key), k, sizeof k);
    for (size_t c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c].key, k))
            return c;
    return SIZE_MAX;
}

size_t table_memory(const struct table *t)
{
    size_t per_row = 0;
    for (size_t c = 0; c < t->ncols; c++)
        per_row += t->cols[c].type == TC_TEXT ? sizeof(uint32_t) : sizeof(double);
    per_row += (t->line ? 4 : 0) + (t->slice ? 4 : 0);
    return sizeof *t + t->ncols * sizeof *t->cols + per_row * t->nrows + t->nby_slice * 4 + strtab_bytes(t->str);
}

bool table_is_missing(const struct table *t, size_t row, size_t col)
{
    const struct table_col *c = &t->cols[col];
    if (c->type == TC_NUM)
        return isnan(c->num[row]);
    if (c->type == TC_TIME)
        return c->time[row] == NS_NONE;
    return c->text[row] == 0;
}

struct rowset *table_to_rowset(const struct table *t, const char *name)
{
    return table_rows_to_rowset(t, name, SIZE_MAX, 0);
}

struct rowset *table_rows_to_rowset(const struct table *t, const char *name, size_t col, uint32_t id)
{
    struct rowset *rs = rowset_new(name);
    if (!rs)
        return NULL;
    size_t *map = malloc((t->ncols ? t->ncols : 1) * sizeof *map);
    if (!map) {
        rowset_free(rs);
        return NULL;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        char key[256];
        const struct table_col *tc = &t->cols[c];
        enum rs_type ty = tc->type == TC_NUM ? RS_NUM : tc->type == TC_TIME ? RS_NS : RS_STR;
        table_rowset_key(tc->key, key, sizeof key - 4);
        size_t kl = strlen(key);
        if (tc->type == TC_TIME && (kl < 3 || strcmp(key + kl - 3, "_us")))
            strcat(key, "_us");     /* RS_NS columns are µs figures */
        map[c] = rowset_col(rs, key, tc->header, ty, tc->prec > 6 ? 6 : tc->prec);
        if (map[c] == SIZE_MAX)
            goto fail;
    }
    bool pick = col < t->ncols && t->cols[col].type == TC_TEXT;
    for (size_t r = 0; r < t->nrows; r++) {
        if (pick && t->cols[col].text[r] != id)
            continue;
        size_t row = rowset_row(rs);
        if (row == SIZE_MAX)
            goto fail;
        for (size_t c = 0; c < t->ncols; c++) {
            const struct table_col *tc = &t->cols[c];
            if (table_is_missing(t, r, c))
                continue;
            if (tc->type == TC_NUM)
                rowset_num(rs, row, map[c], tc->num[r]);
            else if (tc->type == TC_TIME)
                rowset_ns(rs, row, map[c], tc->time[r]);
            else
                rowset_strn(rs, row, map[c], strtab_get(t->str, tc->text[r]), strtab_len(t->str, tc->text[r]));
        }
        if (t->slice && t->slice[r] != SLICE_NONE)
            rs->link[row] = t->slice[r];
    }
    free(map);
    return rs;
fail:
    free(map);
    rowset_free(rs);
    return NULL;
}
