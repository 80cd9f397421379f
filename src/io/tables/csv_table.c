#include "io/tables/csv_table.h"
#include "io/tables/csv_stream.h"
#include "model/index/num_prec.h"
#include "util/grow.h"
#include "util/utf8.h"
#include "util/free_all.h"

#include <iconv.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_PER_KIND 5     /* per problem kind and file: the first few, then a total */

enum problem { P_RAGGED_SHORT, P_RAGGED_LONG, P_NOT_NUM, P_NOT_TIME, P_APPROX, P_GBK, P_BAD_UTF8, P_DUP_HEADER, P_COUNT };

struct state {
    struct table *t;
    const char *path;
    struct diag *d;
    bool appending;
    bool header_done, fatal;
    /* file column → table column (SIZE_MAX: not kept) */
    size_t *map, nmap;
    char **hdr;
    size_t nhdr, hdr_cap;
    struct load_progress *p;
    /* the record being read */
    size_t row;
    uint64_t rec_line;          /* line where the current record starts */
    /* per table column: last text cell, to skip interning repeats */
    uint32_t *last_id;
    size_t nlast;
    /* text conversion */
    iconv_t cd;
    bool cd_open;
    char *conv;
    size_t conv_cap;
    size_t problems[P_COUNT];
    size_t approx_col_warned;   /* one warning per column is enough: bitmap for first 64 */
};

__attribute__((format(printf, 5, 6)))
static void problem(struct state *st, enum problem k, uint64_t line, size_t col, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    if (st->problems[k]++ >= DIAG_PER_KIND)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_add(st->d, DIAG_WARN, st->path, "line %llu, column %zu: %s", (unsigned long long)line, col + 1, msg);
}

/* Cell text shown in a message: at most 40 bytes. */
#define CELL(s, len) (int)((len) < 40 ? (len) : 40), (s)

/* --- column types by name ----------------------------------------------------------- */

static bool in_list(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(key, *list))
            return true;
    return false;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !memcmp(s + a - b, suffix, b);
}

static const char *const text_cols[] = {
    "name", "type", "accelerator_core", "op_state", "hf32_eligible", "input_shapes",
    "input_data_types", "input_formats", "output_shapes", "output_data_types", "output_formats",
    "call_stack", "level", "api_name", "component", "device_type", "device", "stream_ptr",
    "core_type", "model_name", "step", "stage_name", "op_type_name", "source",
    "device_id",    /* a number, or "host" for host-side rows (api_statistic): kept as written */
    NULL
};
static const char *const num_cols[] = {
    "step_id", "model_id", "task_id", "stream_id", "block_num", "mix_block_num",
    "count", "context_id", "graph_id", "node_index_start", "node_index_end", "variance",
    "iteration_id", "infer_id", "memory_bound", "index", "rank_id", NULL
};
static const char *const num_suffix[] = {
    "_ratio", "_rate", "(%)", "(gb/s)", "(mb/s)", "(kb)", "(mb)", "(gb)", "(ms)", "(byte)",
    "(bytes)", "_cycles", "_fops", "_bw", NULL
};
/* step_trace_time.csv gives µs without saying so in the header */
static const char *const step_trace_times[] = {
    "computing", "communication(not_overlapped)", "overlapped", "communication", "free",
    "stage", "bubble", "communication(not_overlapped_and_exclude_receive)", "preparing", NULL
};

static enum table_col_type known_type(const char *key, enum table_kind kind)
{
    if (ends_with(key, "(us)"))
        return TC_TIME;
    if (kind == TK_STEP_TRACE && in_list(key, step_trace_times))
        return TC_TIME;
    if (in_list(key, text_cols))
        return TC_TEXT;
    if (in_list(key, num_cols))
        return TC_NUM;
    for (const char *const *s = num_suffix; *s; s++)
        if (ends_with(key, *s))
            return TC_NUM;
    return TC_AUTO;
}

/* Columns a kind cannot do without; "a|b" means either. */
static const char *required_cols(enum table_kind kind)
{
    switch (kind) {
    case TK_KERNELS: return "name,duration(us)";
    case TK_OP_STATISTIC: return "type,total_time(us)";
    case TK_OPERATOR_DETAILS: return "name";
    case TK_API_STATISTIC: return "api_name|name";
    case TK_STEP_TRACE: return "step|iteration_id|step_id";
    default: return "";
    }
}

static const char *kind_name(enum table_kind k)
{
    static const char *const names[TK_COUNT] = {
        "kernel table", "op statistic", "operator details", "API statistic", "step trace",
        "task time", "communication statistic", "memory table", "table"
    };
    return k < TK_COUNT ? names[k] : "table";
}

/* Returns true when every required column is present; otherwise says which is missing. */
static bool check_required(struct state *st)
{
    char req[128];
    snprintf(req, sizeof req, "%s", required_cols(st->t->kind));
    for (char *save = NULL, *tok = strtok_r(req, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bool found = false;
        char alts[64];
        snprintf(alts, sizeof alts, "%s", tok);
        for (char *s2 = NULL, *a = strtok_r(alts, "|", &s2); a && !found; a = strtok_r(NULL, "|", &s2))
            found = table_col(st->t, a) != SIZE_MAX;
        if (!found) {
            char list[512];
            size_t o = 0;
            list[0] = 0;
            for (size_t i = 0; i < st->nhdr && o + 4 < sizeof list; i++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%.40s\"", i ? ", " : "", st->hdr[i]);
            diag_add(st->d, DIAG_ERROR, st->path,
                     "line 1: no column \"%s\", which a %s needs (not this kind of file, or a different delimiter?); header has %zu columns: %s",
                     tok, kind_name(st->t->kind), st->nhdr, list);
            return false;
        }
    }
    return true;
}

/* --- text ----------------------------------------------------------------------------- */

static bool ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

/* Text that is not UTF-8 is taken as GBK (GB18030) when it converts cleanly; else kept. */
static void to_utf8(struct state *st, const char **s, size_t *len, uint64_t line, size_t col)
{
    if (ascii(*s, *len) || utf8_valid((const unsigned char *)*s, *len))
        return;
    if (!st->cd_open) {
        st->cd = iconv_open("UTF-8", "GB18030");
        st->cd_open = st->cd != (iconv_t)-1;
        if (!st->cd_open)
            st->cd = (iconv_t)-1;
    }
    if (st->cd_open) {
        size_t need = *len * 2 + 16;
        if (need > st->conv_cap) {
            char *nb = grow_exact(st->conv, need, 1);
            if (!nb)
                return;
            st->conv = nb;
            st->conv_cap = need;
        }
        char *in = (char *)*s, *out = st->conv;
        size_t inl = *len, outl = st->conv_cap;
        iconv(st->cd, NULL, NULL, NULL, NULL);
        if (iconv(st->cd, &in, &inl, &out, &outl) != (size_t)-1 && inl == 0) {
            problem(st, P_GBK, line, col, "text is not UTF-8; read as GBK");
            *s = st->conv;
            *len = (size_t)(out - st->conv);
            return;
        }
    }
    problem(st, P_BAD_UTF8, line, col, "text is neither UTF-8 nor GBK; kept as bytes");
}

/* --- records ---------------------------------------------------------------------------- */

static void header_cell(struct state *st, const char *s, size_t len)
{
    char **nh = grow_array(st->hdr, &st->hdr_cap, st->nhdr + 1, sizeof *nh);
    if (!nh) {
        st->fatal = true;
        return;
    }
    st->hdr = nh;
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    to_utf8(st, &s, &len, 1, st->nhdr);
    char *h = malloc(len + 16);
    if (!h) {
        st->fatal = true;
        return;
    }
    if (len)
        memcpy(h, s, len);
    h[len] = 0;
    if (!len)
        snprintf(h, len + 16, "Column %zu", st->nhdr + 1);
    st->hdr[st->nhdr++] = h;
}

static void set_cell(struct state *st, size_t fcol, const char *s, size_t len)
{
    struct table *t = st->t;
    size_t col = st->map[fcol];
    struct table_col *c = &t->cols[col];
    size_t row = st->row;
    if (c->type == TC_TIME) {
        int64_t ns;
        int rc = table_parse_us(s, len, &ns);
        if (rc >= 0) {
            c->time[row] = ns;
            if (rc == 1) {
                t->approx_cells++;
                if (col >= 64 || !(st->approx_col_warned & (1ull << col))) {
                    if (col < 64)
                        st->approx_col_warned |= 1ull << col;
                    diag_add(st->d, DIAG_WARN, st->path,
                             "line %llu, column %zu: \"%.40s\" is in E-notation (saved by a spreadsheet?): times in %s are approximate",
                             (unsigned long long)st->rec_line, fcol + 1, s, c->header);
                }
            }
        } else if (rc == -2) {
            problem(st, P_NOT_TIME, st->rec_line, fcol, "not a time in µs: \"%.*s\"", CELL(s, len));
        }
    } else if (c->type == TC_NUM) {
        double v;
        int dec = 0;
        int rc = table_parse_num(s, len, &v, &dec);
        if (rc == 0) {
            c->num[row] = v;
            int p = c->prec < NUM_PREC_MAX ? num_prec_of_text(s, len) : 0;   /* its column's precision */
            if (p > c->prec)
                c->prec = p;
        } else if (rc == -2) {
            problem(st, P_NOT_NUM, st->rec_line, fcol, "not a number: \"%.*s\"", CELL(s, len));
        }
    } else {
        if (!len)
            return;
        uint32_t last = st->last_id[col];
        if (last && strtab_len(t->str, last) == len && !memcmp(strtab_get(t->str, last), s, len)) {
            c->text[row] = last;
            return;
        }
        to_utf8(st, &s, &len, st->rec_line, fcol);
        uint32_t id = strtab_intern(t->str, s, len);
        if (id == UINT32_MAX) {
            st->fatal = true;
            return;
        }
        c->text[row] = id;
        st->last_id[col] = id;
    }
}

/* Builds (or, when appending, matches) the table's columns from the header cells. */
static void finish_header(struct state *st)
{
    struct table *t = st->t;
    st->map = malloc(st->nhdr * sizeof *st->map);
    if (!st->map) {
        st->fatal = true;
        return;
    }
    st->nmap = st->nhdr;
    struct strtab *seen = strtab_new();     /* keys met so far: repeats are ignored */
    if (!seen) {
        st->fatal = true;
        return;
    }
    for (size_t i = 0; i < st->nhdr; i++) {
        char key[256];
        table_canon_key(st->hdr[i], strlen(st->hdr[i]), key, sizeof key);
        size_t col = SIZE_MAX;
        uint32_t before = strtab_count(seen);
        if (key[0] && strtab_intern_cstr(seen, key) < before) {
            problem(st, P_DUP_HEADER, 1, i, "header \"%.60s\" repeats an earlier column; ignored", st->hdr[i]);
            st->map[i] = SIZE_MAX;
            continue;
        }
        if (st->appending)
            col = table_col(t, key);
        if (col == SIZE_MAX)
            col = table_add_col(t, st->hdr[i], known_type(key, t->kind));
        st->map[i] = col;
        if (col == SIZE_MAX)
            st->fatal = true;
    }
    strtab_free(seen);
    st->nlast = t->ncols;
    st->last_id = calloc(t->ncols ? t->ncols : 1, sizeof *st->last_id);
    if (!st->last_id)
        st->fatal = true;
    if (!st->fatal && !check_required(st))
        st->fatal = true;
}


/* One record of the file: the header first, then rows. Returns nonzero to stop. */
static int on_record(void *ud, const struct csv_field *f, size_t n, uint64_t line)
{
    struct state *st = ud;
    st->rec_line = line;
    if (!st->header_done) {
        for (size_t i = 0; i < n && !st->fatal; i++)
            header_cell(st, f[i].s, f[i].len);
        st->header_done = true;
        if (!st->fatal)
            finish_header(st);
        return st->fatal;
    }
    st->row = table_add_row(st->t);
    if (st->row == SIZE_MAX) {
        st->fatal = true;
        diag_out_of_memory(st->d, st->path, "line %llu: out of memory; rows after this one are not read",
                           (unsigned long long)line);
        return 1;
    }
    st->t->line[st->row] = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    for (size_t i = 0; i < n && i < st->nmap && !st->fatal; i++)
        if (st->map[i] != SIZE_MAX)
            set_cell(st, i, f[i].s, f[i].len);
    if (n < st->nhdr)
        problem(st, P_RAGGED_SHORT, line, n,
                "record ends after %zu of the header's %zu columns; the missing cells are left empty", n, st->nhdr);
    else if (n > st->nhdr)
        problem(st, P_RAGGED_LONG, line, st->nhdr,
                "record has %zu cells, the header %zu; the extra cells are ignored", n, st->nhdr);
    if (st->p)
        atomic_store_explicit(&st->p->events, st->t->nrows, memory_order_relaxed);
    return st->fatal;
}

/* --- driver ---------------------------------------------------------------------------- */

static void state_done(struct state *st)
{
    for (size_t i = 0; i < st->nhdr; i++)
        free(st->hdr[i]);
    FREE_ALL(st->hdr, st->map, st->last_id, st->conv);
    if (st->cd_open)
        iconv_close(st->cd);
}

/* What the stream read becomes a table (or not): the diagnostics, the totals of repeated
 * problems, the finished columns. Returns 0 or -1 (st->t unusable). */
static int finish(struct state *st, int rc, const struct csv_stream_result *r, size_t rows0)
{
    csv_stream_diags(r, st->path, st->d);
    if (r->cancelled || st->fatal)
        rc = -1;
    if (rc == 0 && !st->header_done) {
        diag_add(st->d, DIAG_ERROR, st->path, "line 1: empty file, no header");
        rc = -1;
    }
    if (rc)
        return -1;
    static const char *const what[P_COUNT] = {
        "short records", "long records", "cells that are not numbers", "cells that are not times",
        "", "GBK cells", "cells in an unknown encoding", "repeated headers"
    };
    for (int k = 0; k < P_COUNT; k++)
        if (st->problems[k] > DIAG_PER_KIND)
            diag_add(st->d, DIAG_WARN, st->path, "%zu %s in all (only the first %d are listed)",
                     st->problems[k], what[k], DIAG_PER_KIND);
    table_finish(st->t);
    if (st->t->nrows == rows0 && st->t->kind != TK_OTHER && st->t->kind != TK_MEMORY)
        diag_add(st->d, DIAG_INFO, st->path, "header only, no rows");
    return 0;
}

/* Reads path (or buf[0..len) when path is NULL) into into, or a new table of kind. */
static int load(const char *path, const char *buf, size_t len, const char *name, enum table_kind kind,
                struct table *into, struct table **out, struct diag *d, struct load_progress *p)
{
    struct state st = { .path = name, .d = d, .appending = into != NULL, .p = p, .row = SIZE_MAX };
    if (out)
        *out = NULL;
    st.t = into ? into : table_new(kind, name);
    if (!st.t) {
        diag_out_of_memory(d, name, "out of memory");
        return -1;
    }
    size_t rows0 = st.t->nrows;
    struct csv_stream_result r;
    int rc = path ? csv_stream_file(path, on_record, &st, p, &r) : csv_stream_buffer(buf, len, on_record, &st, &r);
    rc = finish(&st, rc, &r, rows0);
    state_done(&st);
    if (!into) {
        if (rc)
            table_free(st.t);
        else
            *out = st.t;
    }
    return rc;
}

int csv_table_load(const char *path, enum table_kind kind, struct table **out,
                   struct diag *d, struct load_progress *p)
{
    return load(path, NULL, 0, path, kind, NULL, out, d, p);
}

int csv_table_load_buffer(const char *buf, size_t len, const char *name, enum table_kind kind,
                          struct table **out, struct diag *d)
{
    return load(NULL, buf, len, name ? name : "", kind, NULL, out, d, NULL);
}

int csv_table_append(const char *path, struct table *t, struct diag *d, struct load_progress *p)
{
    if (!t)
        return -1;
    return load(path, NULL, 0, path, t->kind, t, NULL, d, p);
}
