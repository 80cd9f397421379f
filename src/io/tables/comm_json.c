#include "io/tables/comm_json.h"
#include "util/read_full.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Diagnostics per file beyond this are counted, not listed. */
#define MAX_DIAGS 20

/* Parser state of one file. Key paths are kept as a stack of names joined by '/'. */
struct ctx {
    const char *path;
    struct comm *c;
    struct diag *d;
    size_t ndiag, unknown, bad;
    char first_unknown[256];
    const char *keys[8];
    int depth;
};

static void push(struct ctx *x, const char *key)
{
    if (x->depth < (int)(sizeof x->keys / sizeof x->keys[0]))
        x->keys[x->depth] = key;
    x->depth++;
}

static void pop(struct ctx *x) { x->depth--; }

/* The current key path plus an optional last key, as "a/b/c". */
static void key_path(const struct ctx *x, const char *last, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    int depth = x->depth < 8 ? x->depth : 8;
    for (int i = 0; i <= depth && n + 1 < size; i++) {
        const char *k = i < depth ? x->keys[i] : last;
        if (!k)
            break;
        int w = snprintf(buf + n, size - n, "%s%.80s", n ? "/" : "", k);
        if (w < 0)
            break;
        n += (size_t)w;
        if (n >= size)
            n = size - 1;
    }
}

static bool is_num(const cJSON *v);

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v) || is_num(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "an invalid value";
}

static void bad_type(struct ctx *x, const cJSON *v, const char *key, const char *want)
{
    x->bad++;
    x->c->bad_values++;
    if (x->ndiag++ >= MAX_DIAGS)
        return;
    char kp[512];
    key_path(x, key, kp, sizeof kp);
    diag_add(x->d, DIAG_WARN, x->path, "key %s: expected %s, found %s; value ignored", kp, want,
             type_name(v));
}

/* True when v is an object; else false, and a value of another type than null is said. */
static bool object_or_absent(struct ctx *x, const cJSON *v, const char *key)
{
    if (cJSON_IsObject(v))
        return true;
    if (!cJSON_IsNull(v))
        bad_type(x, v, key, "an object");
    return false;
}

static void unknown_key(struct ctx *x, const char *key)
{
    if (!x->unknown++)
        key_path(x, key, x->first_unknown, sizeof x->first_unknown);
    x->c->unknown_keys++;
}

static const char *key_of(const cJSON *v)
{
    return v->string ? v->string : "";
}

/* --- numbers as their text ----------------------------------------------------------------
 * cJSON turns numbers into doubles, which would lose the file's digits (a 16-digit µs
 * timestamp with decimals does not fit one). So before parsing, every number outside a
 * string is wrapped into a string whose first byte is NUM_MARK: 0xFF never occurs in UTF-8
 * and no JSON escape yields it (a raw 0xFF inside a file's string becomes '?'). After
 * parsing, such a string is a number whose text is what follows the mark. */
#define NUM_MARK '\xff'

/* The text of a number token at p (JSON grammar), its length, 0 when p holds none. */
static size_t number_token(const char *p, const char *end)
{
    const char *q = p;
    if (q < end && *q == '-')
        q++;
    if (q < end && *q == '0')
        q++;
    else if (q < end && *q >= '1' && *q <= '9')
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    else
        return 0;
    if (q + 1 < end && *q == '.' && q[1] >= '0' && q[1] <= '9')
        for (q++; q < end && *q >= '0' && *q <= '9'; q++) {}
    if (q < end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < end && (*e == '+' || *e == '-'))
            e++;
        if (e < end && *e >= '0' && *e <= '9') {
            for (q = e; q < end && *q >= '0' && *q <= '9'; q++) {}
        }
    }
    return (size_t)(q - p);
}

/* buf[0..len) with every number quoted as NUM_MARK text; NUL-terminated, caller frees. A
 * token that is not a valid number is left as it was, for cJSON to reject. */
static char *quote_numbers(const char *buf, size_t len, size_t *out_len)
{
    size_t extra = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = buf[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t n = number_token(buf + i, buf + len);
            if (n) {
                extra += 3;
                i += n - 1;
            }
        }
    }
    char *out = malloc(len + extra + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = buf[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < len) {
                out[k++] = ch;
                ch = buf[++i];
            } else if (ch == '"') {
                in_str = false;
            }
            out[k++] = ch == NUM_MARK ? '?' : ch;
        } else if (ch == '"') {
            in_str = true;
            out[k++] = ch;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t n = number_token(buf + i, buf + len);
            if (!n) {
                out[k++] = ch;
                continue;
            }
            out[k++] = '"';
            out[k++] = NUM_MARK;
            memcpy(out + k, buf + i, n);
            k += n;
            out[k++] = '"';
            i += n - 1;
        } else {
            out[k++] = ch;
        }
    }
    out[k] = 0;
    *out_len = k;
    return out;
}

/* The text of a number value, NULL when v is not one. */
static const char *num_text(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring && v->valuestring[0] == NUM_MARK ? v->valuestring + 1 : NULL;
}

static bool is_num(const cJSON *v) { return num_text(v) != NULL; }

char *comm_json_quote_numbers(const char *buf, size_t len, size_t *out_len)
{
    return quote_numbers(buf, len, out_len);
}

const char *comm_json_num_text(const cJSON *v)
{
    return num_text(v);
}

static double num_value(const cJSON *v)
{
    const char *t = num_text(v);
    return t ? strtod(t, NULL) : NAN;
}

/* cJSON's compact text of v with the numbers unquoted again. Caller frees. */
static char *print_plain(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '"' && s[i + 1] == NUM_MARK) {
            for (i += 2; s[i] && s[i] != '"'; i++)
                s[k++] = s[i];
            if (!s[i])
                break;
            continue;
        }
        s[k++] = s[i];
    }
    s[k] = 0;
    return s;
}

/* A finite number field: 1 and *out, *text set, 0 when absent or null, -1 when of another
 * type. */
static int get_num(struct ctx *x, const cJSON *v, double *out, const char **text)
{
    if (cJSON_IsNull(v))
        return 0;
    if (!is_num(v)) {
        bad_type(x, v, key_of(v), "a number");
        return -1;
    }
    double d = num_value(v);
    if (!isfinite(d)) {
        bad_type(x, v, key_of(v), "a finite number");
        return -1;
    }
    *out = d;
    *text = num_text(v);
    return 1;
}

static uint32_t intern(struct ctx *x, const char *s)
{
    uint32_t id = strtab_intern_cstr(x->c->str, s);
    if (id == UINT32_MAX) {
        x->c->oom = true;
        return 0;
    }
    return id;
}

/* --- communication.json ------------------------------------------------------------------ */

struct num_field { const char *key; unsigned bit; size_t off; };

static const struct num_field time_fields[] = {
    { "Start Timestamp(us)", CF_START, offsetof(struct comm_op, start_us) },
    { "Elapse Time(ms)", CF_ELAPSE, offsetof(struct comm_op, elapse_ms) },
    { "Transit Time(ms)", CF_TRANSIT, offsetof(struct comm_op, transit_ms) },
    { "Wait Time(ms)", CF_WAIT, offsetof(struct comm_op, wait_ms) },
    { "Synchronization Time(ms)", CF_SYNC, offsetof(struct comm_op, sync_ms) },
    { "Idle Time(ms)", CF_IDLE, offsetof(struct comm_op, idle_ms) },
    { "Wait Time Ratio", CF_WAIT_RATIO, offsetof(struct comm_op, wait_ratio) },
    { "Synchronization Time Ratio", CF_SYNC_RATIO, offsetof(struct comm_op, sync_ratio) },
};

static const struct num_field bw_fields[] = {
    { "Transit Size(MB)", CB_SIZE, offsetof(struct comm_bw, size_mb) },
    { "Transit Time(ms)", CB_TIME, offsetof(struct comm_bw, time_ms) },
    { "Bandwidth(GB/s)", CB_GBPS, offsetof(struct comm_bw, gbps) },
    { "Large Packet Ratio", CB_LARGE, offsetof(struct comm_bw, large_ratio) },
};

/* Reads the number fields of obj listed in f into base and their texts into texts (by bit
 * index); returns the presence bits. */
static unsigned read_fields(struct ctx *x, const cJSON *obj, const struct num_field *f, size_t nf,
                            void *base, uint32_t *texts, const char *const *also_known, size_t nalso)
{
    unsigned has = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, obj) {
        size_t i;
        for (i = 0; i < nf; i++)
            if (!strcmp(key_of(v), f[i].key))
                break;
        if (i == nf) {
            size_t j;
            for (j = 0; j < nalso; j++)
                if (!strcmp(key_of(v), also_known[j]))
                    break;
            if (j == nalso)
                unknown_key(x, key_of(v));
            continue;
        }
        double d;
        const char *text;
        if (get_num(x, v, &d, &text) == 1) {
            memcpy((char *)base + f[i].off, &d, sizeof d);
            texts[comm_bit_index(f[i].bit)] = intern(x, text);
            has |= f[i].bit;
        }
    }
    return has;
}

static void read_size_dist(struct ctx *x, const cJSON *dist, struct comm_bw *bw)
{
    if (cJSON_IsNull(dist))
        return;
    if (!cJSON_IsObject(dist)) {
        bad_type(x, dist, key_of(dist), "an object");
        return;
    }
    push(x, "Size Distribution");
    const cJSON *e;
    bool ok = true;
    cJSON_ArrayForEach(e, dist) {
        const cJSON *n = cJSON_IsArray(e) ? cJSON_GetArrayItem(e, 0) : NULL;
        double cnt = n ? num_value(n) : NAN;
        if (!isfinite(cnt) || cnt < 0) {
            bad_type(x, e, key_of(e), "an array [count, time]");
            ok = false;
            continue;
        }
        bw->packets += cnt < 1e18 ? (uint64_t)cnt : 0;
    }
    pop(x);
    bw->has |= CB_DIST;
    if (ok && dist->child) {
        char *s = print_plain(dist);
        if (s) {
            bw->dist = intern(x, s);
            cJSON_free(s);
        }
    }
}

static void read_bandwidth(struct ctx *x, const cJSON *info, struct comm_op *op)
{
    static const char *const dist_key[] = { "Size Distribution" };
    const cJSON *t;
    push(x, "Communication Bandwidth Info");
    cJSON_ArrayForEach(t, info) {
        enum comm_transport ct = comm_transport_from_name(key_of(t));
        if (ct == CT_COUNT) {
            unknown_key(x, key_of(t));
            continue;
        }
        if (!object_or_absent(x, t, key_of(t)))
            continue;
        struct comm_bw *bw = &op->bw[ct];
        push(x, key_of(t));
        bw->has |= CB_PRESENT | read_fields(x, t, bw_fields, 4, bw, bw->text, dist_key, 1);
        const cJSON *dist = cJSON_GetObjectItemCaseSensitive(t, "Size Distribution");
        if (dist)
            read_size_dist(x, dist, bw);
        pop(x);
    }
    pop(x);
}

static void read_op(struct ctx *x, const cJSON *v, uint32_t step, int64_t step_no, enum comm_kind kind)
{
    if (!cJSON_IsObject(v)) {
        bad_type(x, v, key_of(v), "an object");
        return;
    }
    struct comm_op op = { .step = step, .step_no = step_no, .kind = kind };
    op.name = intern(x, key_of(v));
    op.total = comm_is_total_key(key_of(v));
    push(x, key_of(v));
    const cJSON *f;
    cJSON_ArrayForEach(f, v) {
        const char *k = key_of(f);
        bool is_time = !strcmp(k, "Communication Time Info");
        bool is_bw = !strcmp(k, "Communication Bandwidth Info");
        if (!is_time && !is_bw) {
            unknown_key(x, k);
            continue;
        }
        if (!object_or_absent(x, f, k))
            continue;
        if (is_time) {
            push(x, k);
            op.has |= (uint16_t)read_fields(x, f, time_fields, 8, &op, op.text, NULL, 0);
            pop(x);
        } else {
            read_bandwidth(x, f, &op);
        }
    }
    pop(x);
    comm_add_op(x->c, &op);
}

/* Reads one step object {collective: {...}, p2p: {...}}. */
static void read_step(struct ctx *x, const cJSON *s, const char *step_key,
                      void (*per_group)(struct ctx *, const cJSON *, uint32_t, int64_t, enum comm_kind))
{
    uint32_t step = intern(x, step_key);
    int64_t step_no = comm_step_number(step_key);
    const cJSON *g;
    cJSON_ArrayForEach(g, s) {
        const char *k = key_of(g);
        enum comm_kind kind;
        if (!strcmp(k, "collective"))
            kind = COMM_COLLECTIVE;
        else if (!strcmp(k, "p2p"))
            kind = COMM_P2P;
        else {
            if (strcmp(k, "total"))   /* a step-level aggregate: known, not needed */
                unknown_key(x, k);
            continue;
        }
        if (!object_or_absent(x, g, k))
            continue;
        push(x, k);
        const cJSON *e;
        cJSON_ArrayForEach(e, g)
            per_group(x, e, step, step_no, kind);
        pop(x);
    }
}

/* The top object: step keys, or (tolerated) the groups directly without steps. */
static void read_steps(struct ctx *x, const cJSON *root,
                       void (*per_group)(struct ctx *, const cJSON *, uint32_t, int64_t, enum comm_kind))
{
    if (cJSON_GetObjectItemCaseSensitive(root, "collective") || cJSON_GetObjectItemCaseSensitive(root, "p2p")) {
        read_step(x, root, "", per_group);
        return;
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, root) {
        if (!cJSON_IsObject(s)) {
            bad_type(x, s, key_of(s), "an object");
            continue;
        }
        push(x, key_of(s));
        read_step(x, s, key_of(s), per_group);
        pop(x);
    }
}

/* --- communication_matrix.json ----------------------------------------------------------- */

static bool parse_link_key(const char *k, int64_t *src, int64_t *dst)
{
    char *end;
    errno = 0;
    long long a = strtoll(k, &end, 10);
    if (end == k || *end != '-' || errno)
        return false;
    const char *p = end + 1;
    long long b = strtoll(p, &end, 10);
    if (end == p || *end || errno)
        return false;
    *src = a;
    *dst = b;
    return true;
}

static const struct num_field link_fields[] = {
    { "Transit Size(MB)", CL_SIZE, offsetof(struct comm_link, size_mb) },
    { "Transit Time(ms)", CL_TIME, offsetof(struct comm_link, time_ms) },
    { "Bandwidth(GB/s)", CL_GBPS, offsetof(struct comm_link, gbps) },
    { "Large Packet Ratio", CL_LARGE, offsetof(struct comm_link, large_ratio) },
};

/* Transport Type as text, or as the integer enum of the array form. */
static void read_transport(struct ctx *x, const cJSON *t, struct comm_link *l)
{
    static const char *const by_num[] = { "HCCS", "PCIE", "RDMA", "LOCAL", "SIO" };
    if (!t || cJSON_IsNull(t))
        return;
    if (cJSON_IsString(t) && !is_num(t)) {
        l->transport = intern(x, t->valuestring);
    } else if (is_num(t)) {
        double v = num_value(t);
        if (v >= 0 && v < 5 && v == (int)v) {
            l->transport = intern(x, by_num[(int)v]);
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "%.0f", isfinite(v) && fabs(v) < 1e15 ? v : -1.0);
            l->transport = intern(x, buf);
        }
    } else {
        bad_type(x, t, key_of(t), "a string");
    }
}

static void read_link_fields(struct ctx *x, const cJSON *v, struct comm_link *l)
{
    static const char *const strs[] = { "Transport Type", "Op Name", "Src Rank", "Dst Rank",
                                         "Bandwidth(Utilization)" };
    l->has |= (uint8_t)read_fields(x, v, link_fields, 4, l, l->text, strs, 5);
    read_transport(x, cJSON_GetObjectItemCaseSensitive(v, "Transport Type"), l);
    const cJSON *on = cJSON_GetObjectItemCaseSensitive(v, "Op Name");
    if (on && cJSON_IsString(on) && !is_num(on))
        l->op_name = intern(x, on->valuestring);
    else if (on && !cJSON_IsNull(on))
        bad_type(x, on, "Op Name", "a string");
}

static void read_matrix_group(struct ctx *x, const cJSON *g, uint32_t step, int64_t step_no,
                              enum comm_kind kind)
{
    if (!cJSON_IsObject(g)) {
        bad_type(x, g, key_of(g), "an object");
        return;
    }
    uint32_t group = intern(x, key_of(g));
    push(x, key_of(g));
    const cJSON *v;
    cJSON_ArrayForEach(v, g) {
        if (!cJSON_IsObject(v)) {
            bad_type(x, v, key_of(v), "an object");
            continue;
        }
        struct comm_link l = { .step = step, .step_no = step_no, .kind = kind, .group = group };
        l.link = intern(x, key_of(v));
        if (parse_link_key(key_of(v), &l.src, &l.dst))
            l.has |= CL_RANKS;
        push(x, key_of(v));
        read_link_fields(x, v, &l);
        pop(x);
        comm_add_link(x->c, &l);
    }
    pop(x);
}

/* Rank in "Src Rank"/"Dst Rank": written as text or as a number. */
static bool rank_value(const cJSON *v, int64_t *out)
{
    double d = num_value(v);
    if (is_num(v) && isfinite(d) && fabs(d) < 9e15) {
        *out = (int64_t)d;
        return true;
    }
    if (cJSON_IsString(v)) {
        char *end;
        long long r = strtoll(v->valuestring, &end, 10);
        if (end != v->valuestring && !*end) {
            *out = r;
            return true;
        }
    }
    return false;
}

/* The array form: [{"op_name": ..., "link_info": [{"Src Rank", "Dst Rank", ...}]}]. */
static void read_matrix_array(struct ctx *x, const cJSON *root)
{
    const cJSON *e;
    int i = 0;
    char idx[24];
    cJSON_ArrayForEach(e, root) {
        snprintf(idx, sizeof idx, "[%d]", i++);
        if (!cJSON_IsObject(e)) {
            bad_type(x, e, idx, "an object");
            continue;
        }
        push(x, idx);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "op_name");
        const cJSON *links = cJSON_GetObjectItemCaseSensitive(e, "link_info");
        uint32_t group = 0;
        if (cJSON_IsString(name) && !is_num(name))
            group = intern(x, name->valuestring);
        else if (name)
            bad_type(x, name, "op_name", "a string");
        const cJSON *f;
        cJSON_ArrayForEach(f, e)
            if (strcmp(key_of(f), "op_name") && strcmp(key_of(f), "link_info"))
                unknown_key(x, key_of(f));
        if (links && !cJSON_IsArray(links)) {
            bad_type(x, links, "link_info", "an array");
            links = NULL;
        }
        const cJSON *v;
        push(x, "link_info");
        cJSON_ArrayForEach(v, links) {
            if (!cJSON_IsObject(v)) {
                bad_type(x, v, "[]", "an object");
                continue;
            }
            struct comm_link l = { .step_no = -1, .group = group };
            if (rank_value(cJSON_GetObjectItemCaseSensitive(v, "Src Rank"), &l.src)
                && rank_value(cJSON_GetObjectItemCaseSensitive(v, "Dst Rank"), &l.dst)) {
                char lk[48];
                snprintf(lk, sizeof lk, "%lld-%lld", (long long)l.src, (long long)l.dst);
                l.link = intern(x, lk);
                l.has |= CL_RANKS;
            }
            read_link_fields(x, v, &l);
            comm_add_link(x->c, &l);
        }
        pop(x);
        pop(x);
    }
}

/* --- entry points ------------------------------------------------------------------------ */

/* Line and column (1-based) of byte offset off in buf. */
static void position(const char *buf, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

enum which { W_COMM, W_MATRIX };

/* buf must hold len bytes followed by a NUL. */
static int parse(const char *buf, size_t len, const char *path, struct comm **io_comm,
                 struct diag *d, enum which w)
{
    const char *end = NULL;
    size_t qlen = 0;
    char *quoted = quote_numbers(buf, len, &qlen);
    if (!quoted) {
        diag_out_of_memory(d, path, "out of memory");
        return -1;
    }
    cJSON *root = cJSON_ParseWithLengthOpts(quoted, qlen + 1, NULL, 1);
    free(quoted);
    if (!root) {
        /* the position of the error in the file as written */
        cJSON *again = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
        cJSON_Delete(again);
        int line, col;
        size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
        position(buf, off, &line, &col);
        diag_add(d, DIAG_ERROR, path, "line %d, column %d: not valid JSON%s", line, col,
                 len == 0 ? " (empty file)" : "");
        return -1;
    }
    bool ok = w == W_COMM ? cJSON_IsObject(root) : (cJSON_IsObject(root) || cJSON_IsArray(root));
    if (!ok) {
        diag_add(d, DIAG_ERROR, path, "line 1, column 1: expected a JSON object at the top, found %s",
                 type_name(root));
        cJSON_Delete(root);
        return -1;
    }
    bool created = !*io_comm;
    struct comm *c = created ? comm_new() : *io_comm;
    if (!c) {
        cJSON_Delete(root);
        diag_out_of_memory(d, path, "out of memory");
        return -1;
    }
    struct ctx x = { .path = path, .c = c, .d = d };
    if (w == W_COMM) {
        read_steps(&x, root, read_op);
        c->sources |= CS_JSON;
    } else {
        if (cJSON_IsArray(root))
            read_matrix_array(&x, root);
        else
            read_steps(&x, root, read_matrix_group);
        c->sources |= CS_MATRIX;
    }
    cJSON_Delete(root);
    if (x.ndiag > MAX_DIAGS)
        diag_add(d, DIAG_WARN, path, "%zu more values of the wrong type not listed", x.ndiag - MAX_DIAGS);
    if (x.unknown)
        diag_add(d, DIAG_INFO, path, "%zu unknown key%s ignored (first: %s)", x.unknown,
                 x.unknown == 1 ? "" : "s", x.first_unknown);
    if (c->oom)
        diag_out_of_memory(d, path, "out of memory: some entries were not kept");
    *io_comm = c;
    return 0;
}

static int parse_copy(const char *buf, size_t len, const char *path, struct comm **io_comm,
                      struct diag *d, enum which w)
{
    char *copy = malloc(len + 1);
    if (!copy) {
        diag_out_of_memory(d, path, "out of memory");
        return -1;
    }
    if (len)
        memcpy(copy, buf, len);
    copy[len] = 0;
    int r = parse(copy, len, path, io_comm, d, w);
    free(copy);
    return r;
}

int comm_parse_buf(const char *buf, size_t len, const char *path, struct comm **io_comm, struct diag *d)
{
    return parse_copy(buf, len, path ? path : "", io_comm, d, W_COMM);
}

int comm_parse_matrix_buf(const char *buf, size_t len, const char *path, struct comm **io_comm,
                          struct diag *d)
{
    return parse_copy(buf, len, path ? path : "", io_comm, d, W_MATRIX);
}

static int load(const char *path, struct comm **io_comm, struct diag *d, enum which w)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_add(d, DIAG_ERROR, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        diag_add(d, DIAG_ERROR, path, "not a regular file");
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > COMM_JSON_MAX_BYTES) {
        diag_add(d, DIAG_ERROR, path, "%lld bytes: larger than the %zu MiB this file can be; not read",
                 (long long)st.st_size, COMM_JSON_MAX_BYTES >> 20);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    char *buf = malloc(len + 1);
    if (!buf) {
        diag_out_of_memory(d, path, "out of memory reading %zu bytes", len);
        close(fd);
        return -1;
    }
    size_t got = read_full(fd, buf, len);
    close(fd);
    if (got < len)
        diag_add(d, DIAG_WARN, path, "byte %zu: file ended early (expected %zu bytes)", got, len);
    buf[got] = 0;
    int r = parse(buf, got, path, io_comm, d, w);
    free(buf);
    return r;
}

int comm_load(const char *path, struct comm **io_comm, struct diag *d)
{
    return load(path, io_comm, d, W_COMM);
}

int comm_load_matrix(const char *path, struct comm **io_comm, struct diag *d)
{
    return load(path, io_comm, d, W_MATRIX);
}
