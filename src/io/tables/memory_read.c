#include "io/tables/memory_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "io/tables/csv_stream.h"
#include "model/index/table.h"
#include "model/index/timeparse.h"

__extension__ typedef __int128 i128;

/* What a column means, whatever the file kind. */
enum role {
    R_NONE, R_COMPONENT, R_TIMESTAMP, R_ALLOCATED, R_RESERVED, R_ACTIVE,
    R_NAME, R_SIZE, R_ALLOC_T, R_RELEASE_T, R_ACTIVE_RELEASE_T, R_DURATION, R_ACTIVE_DURATION,
    R_A_ALLOCATED, R_A_RESERVED, R_A_ACTIVE, R_R_ALLOCATED, R_R_RESERVED, R_R_ACTIVE,
    R_EVENT, R_DDR, R_HBM, R_MEMORY, R_MODEL, R_GRAPH, R_NODE_START, R_NODE_END, R_DEVICE_ID,
    R_COUNT
};

/* Canonical header (table_canon_key) without its unit → role. */
static const struct { const char *base; enum role role; } role_names[] = {
    { "component", R_COMPONENT }, { "timestamp", R_TIMESTAMP }, { "time_stamp", R_TIMESTAMP },
    { "total_allocated", R_ALLOCATED }, { "total_reserved", R_RESERVED }, { "total_active", R_ACTIVE },
    { "name", R_NAME }, { "operator", R_NAME }, { "size", R_SIZE },
    { "allocation_time", R_ALLOC_T }, { "release_time", R_RELEASE_T },
    { "active_release_time", R_ACTIVE_RELEASE_T }, { "duration", R_DURATION },
    { "active_duration", R_ACTIVE_DURATION },
    { "allocation_total_allocated", R_A_ALLOCATED }, { "allocation_total_reserved", R_A_RESERVED },
    { "allocation_total_active", R_A_ACTIVE }, { "release_total_allocated", R_R_ALLOCATED },
    { "release_total_reserved", R_R_RESERVED }, { "release_total_active", R_R_ACTIVE },
    { "event", R_EVENT }, { "ddr", R_DDR }, { "hbm", R_HBM }, { "memory", R_MEMORY },
    { "model_name", R_MODEL }, { "graph_id", R_GRAPH }, { "node_index_start", R_NODE_START },
    { "node_index_end", R_NODE_END }, { "device_id", R_DEVICE_ID },
};

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum mem_file memory_file_kind(const char *path)
{
    const char *b = base_name(path);
    if (starts(b, "memory_record") || starts(b, "ge_memory_record"))
        return MEMF_RECORD;
    if (starts(b, "operator_memory") || starts(b, "ge_operator_memory"))
        return MEMF_OPERATOR;
    if (starts(b, "npu_module_mem"))
        return MEMF_MODULE;
    if (starts(b, "npu_mem"))
        return MEMF_NPU_MEM;
    if (starts(b, "static_op_mem"))
        return MEMF_STATIC;
    return MEMF_UNKNOWN;
}

static void trim(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t'))
        (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
        (*len)--;
}

int memory_parse_scaled(const char *s, size_t len, int shift, int64_t *out)
{
    trim(&s, &len);
    if (table_is_missing_text(s, len))
        return -1;
    struct decimal_parts d;
    if (!decimal_split(s, len, 100000000000000000ull, &d))
        return -2;
    int exp10 = d.exp10;
    i128 v = (i128)d.mant << shift;
    for (; exp10 > 0 && v; exp10--) {
        v *= 10;
        if (v > INT64_MAX)
            return -2;
    }
    if (exp10 < 0) {
        if (exp10 < -38) {
            v = 0;
        } else {
            i128 den = 1;
            for (int k = 0; k < -exp10; k++)
                den *= 10;
            v = (v + den / 2) / den;
        }
    }
    if (v > INT64_MAX)
        return -2;
    *out = d.neg ? -(int64_t)v : (int64_t)v;
    return d.exponent ? 1 : 0;
}

/* Unit of a header "(MB)" → bit shift for sizes, or ns per unit for times. */
static int size_shift(const char *unit, int deflt)
{
    if (!strcmp(unit, "mb") || !strcmp(unit, "mib")) return 20;
    if (!strcmp(unit, "kb") || !strcmp(unit, "kib")) return 10;
    if (!strcmp(unit, "gb") || !strcmp(unit, "gib")) return 30;
    if (!strcmp(unit, "b") || !strcmp(unit, "byte") || !strcmp(unit, "bytes")) return 0;
    return deflt;
}

/* columns past these are not read (a memory file has about ten) */
#define HEADER_COLS 256

struct reader {
    const char *path;
    struct memory *m;
    struct diag *d;
    enum mem_file kind;
    bool header_done, failed;
    int col[R_COUNT];             /* field index per role, -1 when absent */
    int shift[R_COUNT];           /* sizes: bit shift of the header's unit */
    bool time_ns[R_COUNT];        /* times: the header says ns */
    char header[HEADER_COLS][48];
    size_t nheader;
    uint64_t rows, bad, approx;
    uint64_t bad_line;
    char bad_what[160];
    size_t last_series;           /* cache: series of the previous row */
    uint32_t last_comp_len;
    char last_comp[64];
};

static const char *kind_name(enum mem_file k)
{
    switch (k) {
    case MEMF_RECORD: return "memory_record";
    case MEMF_OPERATOR: return "operator_memory";
    case MEMF_MODULE: return "npu_module_mem";
    case MEMF_NPU_MEM: return "npu_mem";
    case MEMF_STATIC: return "static_op_mem";
    default: return "memory";
    }
}

static bool has(const struct reader *r, enum role x) { return r->col[x] >= 0; }

static bool read_header(struct reader *r, const struct csv_field *f, size_t n)
{
    for (int i = 0; i < R_COUNT; i++)
        r->col[i] = -1;
    r->nheader = n < HEADER_COLS ? n : HEADER_COLS;
    for (size_t i = 0; i < r->nheader; i++) {
        char key[128], unit[32] = "";
        table_canon_key(f[i].s, f[i].len, key, sizeof key);
        snprintf(r->header[i], sizeof r->header[i], "%.*s", (int)(f[i].len < 47 ? f[i].len : 47), f[i].s);
        char *paren = strchr(key, '(');
        if (paren) {
            snprintf(unit, sizeof unit, "%s", paren + 1);
            char *close = strchr(unit, ')');
            if (close)
                *close = 0;
            *paren = 0;
        }
        for (size_t k = 0; k < sizeof role_names / sizeof role_names[0]; k++) {
            enum role ro = role_names[k].role;
            if (strcmp(key, role_names[k].base) || r->col[ro] >= 0)
                continue;
            r->col[ro] = (int)i;
            r->time_ns[ro] = !strcmp(unit, "ns");
            /* sizes without a unit: MB for totals, KB for operator sizes (the documented ones) */
            r->shift[ro] = size_shift(unit, ro == R_SIZE || ro == R_DDR || ro == R_HBM || ro == R_MEMORY ? 10 : 20);
        }
    }
    if (r->kind == MEMF_UNKNOWN) {
        if (has(r, R_ALLOC_T))
            r->kind = MEMF_OPERATOR;
        else if (has(r, R_NODE_START))
            r->kind = MEMF_STATIC;
        else if (has(r, R_EVENT) && (has(r, R_HBM) || has(r, R_MEMORY)))
            r->kind = MEMF_NPU_MEM;
        else if (has(r, R_COMPONENT) && has(r, R_ALLOCATED))
            r->kind = MEMF_RECORD;
        else if (has(r, R_COMPONENT) && has(r, R_RESERVED))
            r->kind = MEMF_MODULE;
    }
    const char *missing = NULL;
    switch (r->kind) {
    case MEMF_RECORD:
        missing = !has(r, R_COMPONENT) ? "Component" : !has(r, R_TIMESTAMP) ? "Timestamp(us)"
                : !has(r, R_ALLOCATED) && !has(r, R_RESERVED) ? "Total Allocated / Total Reserved" : NULL;
        break;
    case MEMF_MODULE:
        missing = !has(r, R_COMPONENT) ? "Component" : !has(r, R_TIMESTAMP) ? "Timestamp(us)"
                : !has(r, R_RESERVED) ? "Total Reserved" : NULL;
        break;
    case MEMF_NPU_MEM:
        missing = !has(r, R_TIMESTAMP) ? "timestamp(us)"
                : !has(r, R_MEMORY) && !has(r, R_HBM) && !has(r, R_DDR) ? "memory / hbm / ddr" : NULL;
        break;
    case MEMF_OPERATOR:
        missing = !has(r, R_NAME) ? "Name" : !has(r, R_SIZE) ? "Size(KB)"
                : !has(r, R_ALLOC_T) && !has(r, R_RELEASE_T) ? "Allocation Time(us)" : NULL;
        break;
    case MEMF_STATIC:
        missing = !has(r, R_NAME) ? "Op Name" : !has(r, R_SIZE) ? "Size(KB)" : NULL;
        break;
    default:
        diag_add(r->d, DIAG_WARN, r->path, "line 1: not a memory file this reader knows (no "
                 "Component, Allocation Time or Node Index column); skipped");
        return false;
    }
    if (missing) {
        diag_add(r->d, DIAG_WARN, r->path, "line 1: %s file without a %s column; skipped",
                 kind_name(r->kind), missing);
        return false;
    }
    return true;
}

static const struct csv_field *cell(const struct reader *r, const struct csv_field *f, size_t n, enum role x)
{
    int c = r->col[x];
    return c >= 0 && (size_t)c < n ? &f[c] : NULL;
}

static void note_bad(struct reader *r, uint64_t line, enum role x, const struct csv_field *c)
{
    if (!r->bad++) {
        r->bad_line = line;
        snprintf(r->bad_what, sizeof r->bad_what, "column '%s': '%.*s'", r->header[r->col[x]],
                 (int)(c->len < 40 ? c->len : 40), c->s);
    }
}

static int64_t size_of(struct reader *r, const struct csv_field *f, size_t n, enum role x, uint64_t line)
{
    const struct csv_field *c = cell(r, f, n, x);
    int64_t v;
    if (!c)
        return MEM_NONE;
    int rc = memory_parse_scaled(c->s, c->len, r->shift[x], &v);
    if (rc == -2)
        note_bad(r, line, x, c);
    return rc >= 0 ? v : MEM_NONE;
}

static ns_t time_of(struct reader *r, const struct csv_field *f, size_t n, enum role x, uint64_t line)
{
    const struct csv_field *c = cell(r, f, n, x);
    if (!c)
        return NS_NONE;
    const char *s = c->s;
    size_t len = c->len;
    trim(&s, &len);
    if (table_is_missing_text(s, len))
        return NS_NONE;
    int64_t v;
    if (r->time_ns[x]) {
        if (memory_parse_scaled(s, len, 0, &v) >= 0)
            return v;
    } else if (decimal_us_to_ns(s, len, &v) == 0) {
        if (memchr(s, 'e', len) || memchr(s, 'E', len))
            r->approx++;
        return v;
    }
    note_bad(r, line, x, c);
    return NS_NONE;
}

static uint32_t text_of(struct reader *r, const struct csv_field *f, size_t n, enum role x)
{
    const struct csv_field *c = cell(r, f, n, x);
    if (!c)
        return 0;
    const char *s = c->s;
    size_t len = c->len;
    trim(&s, &len);
    uint32_t id = strtab_intern(r->m->str, s, len);
    if (id == UINT32_MAX) {
        r->m->oom = true;
        return 0;
    }
    return id;
}

/* The series of a component, with a one-entry cache (rows of a component come in runs). */
static size_t series_of(struct reader *r, const char *s, size_t len, enum mem_family fam)
{
    if (r->last_series != SIZE_MAX && len == r->last_comp_len && len < sizeof r->last_comp
        && !memcmp(s, r->last_comp, len) && r->m->series[r->last_series].family == fam)
        return r->last_series;
    size_t i = memory_series(r->m, s, len, fam);
    if (i != SIZE_MAX && len < sizeof r->last_comp) {
        memcpy(r->last_comp, s, len);
        r->last_comp_len = (uint32_t)len;
        r->last_series = i;
    } else {
        r->last_series = SIZE_MAX;
    }
    return i;
}

static void read_curve_row(struct reader *r, const struct csv_field *f, size_t n, uint64_t line)
{
    enum mem_family fam = r->kind == MEMF_RECORD ? MF_RECORD : r->kind == MEMF_MODULE ? MF_MODULE : MF_NPU_MEM;
    const char *cs = "NPU";
    size_t clen = 3;
    const struct csv_field *c = cell(r, f, n, fam == MF_NPU_MEM ? R_EVENT : R_COMPONENT);
    if (c) {
        cs = c->s;
        clen = c->len;
        trim(&cs, &clen);
    } else if (fam != MF_NPU_MEM) {
        return;     /* a ragged row without its component: nothing to place it under */
    }
    size_t si = series_of(r, cs, clen, fam);
    if (si == SIZE_MAX)
        return;
    int64_t v[MK_COUNT] = { MEM_NONE, MEM_NONE, MEM_NONE };
    if (fam == MF_NPU_MEM) {
        v[MK_RESERVED] = size_of(r, f, n, R_MEMORY, line);
        if (v[MK_RESERVED] == MEM_NONE) {
            int64_t a = size_of(r, f, n, R_DDR, line), b = size_of(r, f, n, R_HBM, line);
            if (a != MEM_NONE || b != MEM_NONE)
                v[MK_RESERVED] = (a == MEM_NONE ? 0 : a) + (b == MEM_NONE ? 0 : b);
        }
    } else {
        v[MK_ALLOCATED] = size_of(r, f, n, R_ALLOCATED, line);
        v[MK_RESERVED] = size_of(r, f, n, R_RESERVED, line);
        v[MK_ACTIVE] = size_of(r, f, n, R_ACTIVE, line);
    }
    memory_add_point(r->m, si, time_of(r, f, n, R_TIMESTAMP, line), v);
}

static void read_op_row(struct reader *r, const struct csv_field *f, size_t n, uint64_t line)
{
    struct mem_op op = {
        .name = text_of(r, f, n, R_NAME),
        .size = size_of(r, f, n, R_SIZE, line),
        .alloc = time_of(r, f, n, R_ALLOC_T, line),
        .release = time_of(r, f, n, R_RELEASE_T, line),
        .active_release = time_of(r, f, n, R_ACTIVE_RELEASE_T, line),
        .duration = time_of(r, f, n, R_DURATION, line),
        .active_duration = time_of(r, f, n, R_ACTIVE_DURATION, line),
        .at_alloc = { size_of(r, f, n, R_A_ALLOCATED, line), size_of(r, f, n, R_A_RESERVED, line),
                      size_of(r, f, n, R_A_ACTIVE, line) },
        .at_release = { size_of(r, f, n, R_R_ALLOCATED, line), size_of(r, f, n, R_R_RESERVED, line),
                        size_of(r, f, n, R_R_ACTIVE, line) },
        .line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line,
    };
    memory_add_op(r->m, &op);
}

static int64_t int_of(struct reader *r, const struct csv_field *f, size_t n, enum role x, uint64_t line)
{
    const struct csv_field *c = cell(r, f, n, x);
    int64_t v;
    if (!c)
        return MEM_NONE;
    int rc = memory_parse_scaled(c->s, c->len, 0, &v);
    if (rc == -2)
        note_bad(r, line, x, c);
    return rc >= 0 ? v : MEM_NONE;
}

static void read_static_row(struct reader *r, const struct csv_field *f, size_t n, uint64_t line)
{
    struct mem_static st = {
        .name = text_of(r, f, n, R_NAME), .model = text_of(r, f, n, R_MODEL),
        .device = text_of(r, f, n, R_DEVICE_ID),
        .graph_id = int_of(r, f, n, R_GRAPH, line), .node_start = int_of(r, f, n, R_NODE_START, line),
        .node_end = int_of(r, f, n, R_NODE_END, line), .size = size_of(r, f, n, R_SIZE, line),
    };
    memory_add_static(r->m, &st);
}

static int on_record(void *ctx, const struct csv_field *f, size_t n, uint64_t line)
{
    struct reader *r = ctx;
    if (!r->header_done) {
        r->header_done = true;
        if (!read_header(r, f, n)) {
            r->failed = true;
            return 1;
        }
        return 0;
    }
    r->rows++;
    switch (r->kind) {
    case MEMF_RECORD: case MEMF_MODULE: case MEMF_NPU_MEM: read_curve_row(r, f, n, line); break;
    case MEMF_OPERATOR: read_op_row(r, f, n, line); break;
    case MEMF_STATIC: read_static_row(r, f, n, line); break;
    default: break;
    }
    return 0;
}

static int finish(struct reader *r, int rc, const struct csv_stream_result *res)
{
    csv_stream_diags(res, r->path, r->d);
    if (rc < 0)
        return -1;
    if (!r->header_done) {
        diag_add(r->d, DIAG_WARN, r->path, "empty file: no header, no rows");
        return -1;
    }
    if (r->failed)
        return -1;
    if (r->bad)
        diag_add(r->d, DIAG_WARN, r->path, "line %llu, %s is not a number (%llu such cells, left empty)",
                 (unsigned long long)r->bad_line, r->bad_what, (unsigned long long)r->bad);
    if (r->approx) {
        diag_add(r->d, DIAG_WARN, r->path, "%llu times written in E-notation (saved by a spreadsheet): "
                 "they are rounded, so times and lifetimes from them are approximate",
                 (unsigned long long)r->approx);
        r->m->approx_cells += r->approx;
    }
    if (r->m->oom)
        diag_out_of_memory(r->d, r->path, "out of memory: some rows are missing");
    r->m->nfiles++;
    return 0;
}

static void reader_init(struct reader *r, const char *path, struct memory *m, struct diag *d)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->m = m;
    r->d = d;
    r->kind = memory_file_kind(path);
    r->last_series = SIZE_MAX;
}

int memory_read_csv(const char *path, struct memory *m, struct diag *d, struct load_progress *p)
{
    struct reader r;
    struct csv_stream_result res;
    reader_init(&r, path, m, d);
    int rc = csv_stream_file(path, on_record, &r, p, &res);
    return finish(&r, rc, &res);
}

int memory_read_csv_buffer(const char *buf, size_t len, const char *name, struct memory *m,
                           struct diag *d)
{
    struct reader r;
    struct csv_stream_result res;
    reader_init(&r, name, m, d);
    int rc = csv_stream_buffer(buf, len, on_record, &r, &res);
    return finish(&r, rc, &res);
}
