#include "io/tables/summary_json.h"
#include "util/oom.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/tables/comm_json.h"
#include "io/tables/pgroups_json.h"
#include "model/analysis/comm.h"
#include "model/index/rank_digest.h"
#include "model/analysis/steps.h"
#include "model/index/timeparse.h"
#include "util/grow.h"
#include "util/read_full.h"

/* ---- reading a file --------------------------------------------------------------------- */

/* The whole file, NUL-terminated (caller frees); NULL with a diagnostic naming it. */
static char *read_whole(const char *path, size_t *len, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_add(d, DIAG_ERROR, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SUMMARY_MAX_BYTES) {
        diag_add(d, DIAG_ERROR, path, "%s", S_ISREG(st.st_mode) ? "larger than a summary can be (256 MiB); not read"
                                                                : "not a regular file");
        close(fd);
        return NULL;
    }
    size_t want = (size_t)st.st_size;
    char *buf = malloc(want + 1);
    if (!buf) {
        diag_out_of_memory(d, path, "out of memory reading %zu bytes", want);
        close(fd);
        return NULL;
    }
    size_t got = read_full(fd, buf, want);
    close(fd);
    buf[got] = 0;
    *len = got;
    return buf;
}

/* The file as a cJSON tree whose numbers are marked strings holding their digits
 * (comm_json_num_text); NULL with a diagnostic when it is not a JSON object. */
static cJSON *parse_file(const char *path, struct diag *d)
{
    size_t len = 0, qlen = 0;
    char *buf = read_whole(path, &len, d);
    if (!buf)
        return NULL;
    char *quoted = comm_json_quote_numbers(buf, len, &qlen);
    free(buf);
    if (!quoted) {
        diag_out_of_memory(d, path, "out of memory");
        return NULL;
    }
    cJSON *root = cJSON_ParseWithLengthOpts(quoted, qlen + 1, NULL, 1);
    free(quoted);
    if (!root || !cJSON_IsObject(root)) {
        diag_add(d, DIAG_ERROR, path, "%s", root ? "a summary must be a JSON object; not read"
                                                 : "not valid JSON (truncated?); not read as a summary");
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static const cJSON *array_or_null(const cJSON *v) { return cJSON_IsArray(v) ? v : NULL; }

static const char *num(const cJSON *v) { return v ? comm_json_num_text(v) : NULL; }

static const char *str(const cJSON *v)
{
    return v && cJSON_IsString(v) && !num(v) ? v->valuestring : NULL;
}

static bool int_of(const cJSON *v, int64_t *out)
{
    const char *t = num(v);
    char *end;
    if (!t)
        return false;
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (*end || errno)
        return false;
    *out = x;
    return true;
}

static bool ns_of(const cJSON *v, ns_t *out)
{
    const char *t = num(v);
    return t && decimal_us_to_ns(t, strlen(t), out) == 0;
}

/* ---- what a file covers --------------------------------------------------------------------- */

/* A report: an object of sections (arrays of rows, or the summary object), among them at
 * least one of those a cluster is made of. */
static bool is_summary(const cJSON *root)
{
    bool any = false;
    const cJSON *sec;
    cJSON_ArrayForEach(sec, root) {
        if (!cJSON_IsArray(sec) && !cJSON_IsObject(sec))
            return false;
        any |= !strcmp(sec->string, "steps") || !strcmp(sec->string, "ranks") || !strcmp(sec->string, "comm")
            || !strcmp(sec->string, "capture") || !strcmp(sec->string, "rank_steps");
    }
    return any;
}

struct rank_entry {
    int rank, device;
    const char *label, *note;   /* borrowed from the tree */
    unsigned sources;
};

/* The ranks a file covers: its capture section's rows, else the ranks its rows name, else rank 0
 * (a one-rank report names no rank in its steps). Returns how many (at most max). */
static size_t file_ranks(const cJSON *root, struct rank_entry *e, size_t max)
{
    size_t n = 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "capture");
    const cJSON *it;
    if (cJSON_IsArray(list)) {
        cJSON_ArrayForEach(it, list) {
            int64_t r, dev = -1, src = CS_JSON;
            if (n == max || !int_of(cJSON_GetObjectItemCaseSensitive(it, "rank"), &r) || r < 0 || r > INT32_MAX)
                continue;
            int_of(cJSON_GetObjectItemCaseSensitive(it, "device"), &dev);
            int_of(cJSON_GetObjectItemCaseSensitive(it, "comm_sources"), &src);
            e[n++] = (struct rank_entry){ (int)r, dev >= 0 && dev <= INT32_MAX ? (int)dev : -1,
                                          str(cJSON_GetObjectItemCaseSensitive(it, "label")),
                                          str(cJSON_GetObjectItemCaseSensitive(it, "steps_note")), (unsigned)src };
        }
        return n;
    }
    static const char *const named[] = { "ranks", "comm", "rank_steps", "comm_ends" };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, named[k]);
        cJSON_ArrayForEach(it, array_or_null(rows)) {
            int64_t r;
            if (!int_of(cJSON_GetObjectItemCaseSensitive(it, "rank"), &r) || r < 0 || r > INT32_MAX)
                continue;
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = e[i].rank == (int)r;
            if (!seen && n < max)
                e[n++] = (struct rank_entry){ (int)r, -1, NULL, NULL, CS_JSON };
        }
    }
    if (!n && max)
        e[n++] = (struct rank_entry){ 0, -1, NULL, NULL, CS_JSON };
    return n;
}

#define MAX_FILE_RANKS 4096

/* Whether row belongs to rank: its "rank" value, or any row when the file covers one rank
 * (a one-rank report leaves the rank out of some sections). */
static bool row_of(const cJSON *row, int rank, bool single)
{
    int64_t r;
    if (!int_of(cJSON_GetObjectItemCaseSensitive(row, "rank"), &r))
        return single;
    return r == rank;
}

/* The row of rank after `after` in rows (a section's array; the first one when after is
 * NULL), skipping what is not an object; NULL after the last. */
static const cJSON *next_rank_row(const cJSON *rows, const cJSON *after, int rank, bool single)
{
    const cJSON *row = after ? after->next : cJSON_IsArray(rows) ? rows->child : NULL;
    while (row && !(cJSON_IsObject(row) && row_of(row, rank, single)))
        row = row->next;
    return row;
}

/* ---- discovery ------------------------------------------------------------------------- */

bool summary_file_head(const char *path)
{
    char head[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0)
        return false;
    head[n] = 0;
    const char *p = head;
    if (!strncmp(p, "\xef\xbb\xbf", 3))
        p += 3;
    p += strspn(p, " \t\r\n");
    if (*p++ != '{')
        return false;
    p += strspn(p, " \t\r\n");
    static const char *const first[] = { "\"capture\"", "\"summary\"", "\"steps\"", "\"ranks\"", "\"comm\"",
                                         "\"rank_steps\"", "\"comm_ends\"" };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        if (!strncmp(p, first[i], strlen(first[i])))
            return true;
    return false;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p)
        oom_exit("a file name", n);
    snprintf(p, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return p;
}

static char *dup_or_die(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom_exit("a file name", strlen(s) + 1);
    return p;
}

static void add_skip(struct capture *c, const char *path, const char *why)
{
    struct capture_skip *s = grow_exact_or_exit(c->skipped, c->nskipped + 1, sizeof *s, "the list of skipped files");
    c->skipped = s;
    s[c->nskipped++] = (struct capture_skip){ dup_or_die(path), dup_or_die(why) };
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct capture_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The ranks of one summary file appended to c (a rank already there is said and left out). */
static void add_file_ranks(struct capture *c, const char *path, const cJSON *root, struct diag *d)
{
    struct rank_entry *e = malloc(MAX_FILE_RANKS * sizeof *e);
    if (!e)
        oom_exit("the ranks of a summary file", MAX_FILE_RANKS * sizeof *e);
    size_t n = file_ranks(root, e, MAX_FILE_RANKS);
    struct stat st;
    uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    for (size_t i = 0; i < n; i++) {
        const char *dup = NULL;
        for (size_t k = 0; k < c->nranks && !dup; k++)
            if (c->ranks[k].rank == e[i].rank)
                dup = c->ranks[k].files[0].path;
        if (dup) {
            diag_add(d, DIAG_WARN, path, "rank %d is also in %s (read from there); not read from this file",
                     e[i].rank, dup);
            continue;
        }
        struct capture_rank *r = grow_exact_or_exit(c->ranks, c->nranks + 1, sizeof *r, "the list of ranks");
        c->ranks = r;
        r = &c->ranks[c->nranks++];
        memset(r, 0, sizeof *r);
        r->rank = e[i].rank;
        r->device = e[i].device;
        r->dir = dup_or_die(path);
        char label[160];
        if (e[i].label && e[i].label[0])
            snprintf(label, sizeof label, "%s", e[i].label);
        else
            snprintf(label, sizeof label, "rank %d", e[i].rank);
        r->label = dup_or_die(label);
        r->cls = CLASS_UNKNOWN;
        r->group = dup_or_die(c->root ? c->root : path);
        r->files = calloc(1, sizeof *r->files);
        if (!r->files)
            oom_exit("the list of ranks", sizeof *r->files);
        r->nfiles = 1;
        r->files[0] = (struct capture_file){ .path = dup_or_die(path), .kind = FK_SUMMARY_JSON, .size = size };
    }
    free(e);
}

int summary_discover(const char *path, struct capture *out, struct diag *d)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool subdirs = false;
    for (struct dirent *de; (de = readdir(dir)); ) {
        if (de->d_name[0] == '.')
            continue;
        char *full = join(path, de->d_name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
            subdirs = true;
        else if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            char **nn = grow_array(names, &cap, n + 1, sizeof *nn);
            if (!nn)
                oom_exit("the list of files", (n + 1) * sizeof *nn);
            names = nn;
            names[n++] = dup_or_die(de->d_name);
        }
        free(full);
    }
    closedir(dir);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    /* a folder with subfolders is a capture (a saved report beside rank folders is not a
     * summaries folder); else any summary among its files makes it one */
    size_t heads = 0;
    for (size_t i = 0; i < n && !subdirs; i++) {
        char *full = join(path, names[i]);
        heads += summary_file_head(full);
        free(full);
    }
    if (!heads) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char *full = join(path, names[i]);
        cJSON *root = summary_file_head(full) ? parse_file(full, d) : NULL;
        if (root && is_summary(root))
            add_file_ranks(out, full, root, d);
        else
            add_skip(out, full, root ? "a JSON object but not an aptop report; not read"
                                     : "not an aptop report (summaries folder); not read");
        cJSON_Delete(root);
        free(full);
        free(names[i]);
    }
    free(names);
    if (out->nranks)
        qsort(out->ranks, out->nranks, sizeof *out->ranks, cmp_rank);
    out->ngroups = 1;
    if (!out->nranks) {
        diag_add(d, DIAG_ERROR, path, "summaries folder: none of its %zu summary file%s could be read", heads,
                 heads == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

/* ---- loading one rank ------------------------------------------------------------------ */

/* Sets one cell of a rebuilt row from its printed value, by the column's type: the printed
 * text reads back into exactly the value it was printed from. */
static void set_cell(struct rowset *rs, size_t r, size_t c, const cJSON *v)
{
    const char *t = num(v);
    int64_t i;
    ns_t ns;
    if (!v || cJSON_IsNull(v))
        return;
    switch (rs->cols[c].type) {
    case RS_STR:
        if (str(v))
            rowset_str(rs, r, c, str(v));
        break;
    case RS_INT:
        if (int_of(v, &i))
            rowset_int(rs, r, c, i);
        break;
    case RS_NS:
        if (ns_of(v, &ns))
            rowset_ns(rs, r, c, ns);
        break;
    case RS_NUM:
    case RS_PCT:
        if (t)
            rowset_num(rs, r, c, strtod(t, NULL));
        break;
    case RS_DEC:
        if (t)
            rowset_dec(rs, r, c, t);
        break;
    case RS_RAW:
        if (t)
            rowset_raw(rs, r, c, t);
        break;
    }
}

/* The rows of one rank of a section, rebuilt with the columns of schema (keys the schema
 * does not know keep their text: numbers as written, strings as strings). The "rank" column
 * is left out: the session's rank says it. NULL when the file has no such section; the
 * section without rows of the rank gives no rows (the schema's columns but empty_drop). */
static struct rowset *rebuild_rows(const cJSON *rows, const struct rowset *schema, int rank, bool single,
                                   const char *empty_drop)
{
    struct rowset *rs = NULL;
    for (const cJSON *row = next_rank_row(rows, NULL, rank, single); row;
         row = next_rank_row(rows, row, rank, single)) {
        if (!rs) {
            rs = rowset_new(schema->name);
            if (!rs)
                return NULL;
            const cJSON *k;
            cJSON_ArrayForEach(k, row) {
                if (!strcmp(k->string, "rank"))
                    continue;
                size_t sc = rowset_find_col(schema, k->string);
                if (sc != SIZE_MAX)
                    rowset_col(rs, k->string, schema->cols[sc].title, schema->cols[sc].type, schema->cols[sc].prec);
                else
                    rowset_col(rs, k->string, k->string, str(k) ? RS_STR : RS_DEC, 0);
            }
        }
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        rs->link[r] = rs->nrows - 1;
        for (size_t c = 0; c < rs->ncols; c++)
            set_cell(rs, r, c, cJSON_GetObjectItemCaseSensitive(row, rs->cols[c].key));
    }
    if (!rs && cJSON_IsArray(rows) && (rs = rowset_new(schema->name)))
        for (size_t c = 0; c < schema->ncols; c++)
            if (!empty_drop || strcmp(schema->cols[c].key, empty_drop))
                rowset_col(rs, schema->cols[c].key, schema->cols[c].title, schema->cols[c].type, schema->cols[c].prec);
    return rs;
}

/* The steps section's columns: steps_rowset's, and file_stage_us (steps_rowset_of_rank). */
static struct rowset *steps_schema(void)
{
    struct rowset *rs = steps_rowset(NULL);
    if (rs)
        rowset_col(rs, "file_stage_us", "File stage µs", RS_NS, 0);
    return rs;
}

static int read_rank_steps(struct rank_digest *g, const cJSON *rows, int rank, bool single)
{
    size_t cap = 0;
    for (const cJSON *row = next_rank_row(rows, NULL, rank, single); row;
         row = next_rank_row(rows, row, rank, single)) {
        struct rank_step st = { .step_no = -1, .step = NS_NONE, .computing = NS_NONE,
                                .comm_not_overlapped = NS_NONE, .free = NS_NONE, .stage = NS_NONE };
        int_of(cJSON_GetObjectItemCaseSensitive(row, "step"), &st.step_no);
        ns_of(cJSON_GetObjectItemCaseSensitive(row, "step_us"), &st.step);
        ns_of(cJSON_GetObjectItemCaseSensitive(row, "computing_us"), &st.computing);
        ns_of(cJSON_GetObjectItemCaseSensitive(row, "comm_not_overlapped_us"), &st.comm_not_overlapped);
        ns_of(cJSON_GetObjectItemCaseSensitive(row, "free_us"), &st.free);
        ns_of(cJSON_GetObjectItemCaseSensitive(row, "file_stage_us"), &st.stage);
        const char *src = str(cJSON_GetObjectItemCaseSensitive(row, "source"));
        if (src && !g->rsteps_source && !(g->rsteps_source = strdup(src)))
            return -1;
        struct rank_step *p = grow_push((void **)&g->rsteps, &g->nrsteps, &cap, sizeof *p);
        if (!p)
            return -1;
        *p = st;
    }
    return 0;
}

static int read_ends(struct rank_digest *g, const cJSON *rows, int rank, bool single)
{
    size_t cap = 0;
    for (const cJSON *row = next_rank_row(rows, NULL, rank, single); row;
         row = next_rank_row(rows, row, rank, single)) {
        const char *name = str(cJSON_GetObjectItemCaseSensitive(row, "name"));
        struct digest_end e = { 0, 0, NS_NONE };
        if (!name || !int_of(cJSON_GetObjectItemCaseSensitive(row, "ordinal"), &e.ord)
            || !ns_of(cJSON_GetObjectItemCaseSensitive(row, "end_us"), &e.end))
            continue;
        if ((e.name = strtab_intern_cstr(g->str, name)) == UINT32_MAX)
            return -1;
        struct digest_end *p = grow_push((void **)&g->ends, &g->nends, &cap, sizeof *p);
        if (!p)
            return -1;
        *p = e;
    }
    return 0;
}

static struct digest_summary *read_summary(const cJSON *o)
{
    if (!cJSON_IsObject(o))
        return NULL;
    struct digest_summary *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    struct { const char *key; int64_t *v; } f[] = {
        { "ranks", &s->ranks }, { "files", &s->files }, { "events", &s->events }, { "unknown_ph", &s->unknown_ph },
        { "slices", &s->slices }, { "flows_matched", &s->flows_matched }, { "flows_unmatched", &s->flows_unmatched },
        { "flows_unbound", &s->flows_unbound }, { "lanes", &s->lanes }, { "counter_tracks", &s->counter_tracks },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        int_of(cJSON_GetObjectItemCaseSensitive(o, f[i].key), f[i].v);
    const cJSON *ph;
    cJSON_ArrayForEach(ph, cJSON_GetObjectItemCaseSensitive(o, "events_by_ph")) {
        unsigned char p = (unsigned char)ph->string[0];
        if (p < 128 && ph->string[1] == 0)
            int_of(ph, &s->by_ph[p]);
    }
    ns_t span;
    if (ns_of(cJSON_GetObjectItemCaseSensitive(o, "start_us"), &s->start)
        && ns_of(cJSON_GetObjectItemCaseSensitive(o, "span_us"), &span)) {
        s->has_span = true;
        s->end = s->start + span;
    }
    return s;
}

/* The rank's overview row: the figures of its trace (model/analysis/overview.h). */
static struct digest_overview *read_overview(const cJSON *rows, int rank, bool single)
{
    const cJSON *mine = next_rank_row(rows, NULL, rank, single);
    if (!mine)
        return NULL;
    struct digest_overview *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->has_span = ns_of(cJSON_GetObjectItemCaseSensitive(mine, "span_us"), &g->span);
    g->has_busy = ns_of(cJSON_GetObjectItemCaseSensitive(mine, "device_busy_us"), &g->busy);
    g->has_idle = ns_of(cJSON_GetObjectItemCaseSensitive(mine, "idle_us"), &g->idle);
    /* null: its host knew no launch links, so host-bound idle is unknown there */
    g->has_host_bound = g->has_idle && ns_of(cJSON_GetObjectItemCaseSensitive(mine, "host_bound_idle_us"), &g->host_bound);
    g->has_parts = ns_of(cJSON_GetObjectItemCaseSensitive(mine, "outside_us"), &g->outside) &&
                   ns_of(cJSON_GetObjectItemCaseSensitive(mine, "other_us"), &g->other);
    int64_t n = 0;
    if (int_of(cJSON_GetObjectItemCaseSensitive(mine, "steps"), &n) && n >= 0)
        g->nsteps = (size_t)n;
    const cJSON *k;
    cJSON_ArrayForEach(k, array_or_null(cJSON_GetObjectItemCaseSensitive(mine, "top_kernels"))) {
        const char *name = str(cJSON_GetObjectItemCaseSensitive(k, "name"));
        const char *share = num(cJSON_GetObjectItemCaseSensitive(k, "share"));
        ns_t total;
        if (g->ntop == OV_TOP || !name || !share || !ns_of(cJSON_GetObjectItemCaseSensitive(k, "total_us"), &total))
            continue;
        if (!(g->top[g->ntop].name = strdup(name)))
            break;
        g->top[g->ntop].share = strtod(share, NULL);
        g->top[g->ntop++].total = total;
    }
    for (int p = 0; p < PHASE_COUNT; p++) {
        static const char *const sfx[4] = { "steps", "p50_us", "p90_us", "p99_us" };
        char key[48];
        struct phase_stat *ps = &g->phase[p];
        snprintf(key, sizeof key, "%s_%s", step_phase_name((enum step_phase)p), sfx[0]);
        if (!int_of(cJSON_GetObjectItemCaseSensitive(mine, key), &n) || n <= 0 || n > UINT32_MAX)
            continue;
        ps->count = (uint32_t)n;
        ns_t *dst[3] = { &ps->p50, &ps->p90, &ps->p99 };
        for (int q = 0; q < 3; q++) {
            snprintf(key, sizeof key, "%s_%s", step_phase_name((enum step_phase)p), sfx[q + 1]);
            ns_of(cJSON_GetObjectItemCaseSensitive(mine, key), dst[q]);
        }
    }
    return g;
}

/* One text field of a comm op: its digits, and the double they read as. */
static void op_field(struct comm *c, struct comm_op *op, const cJSON *row, const char *key, unsigned bit,
                     double *value)
{
    const char *t = num(cJSON_GetObjectItemCaseSensitive(row, key));
    uint32_t id;
    if (!t || (id = strtab_intern_cstr(c->str, t)) == UINT32_MAX)
        return;
    op->has |= (uint16_t)bit;
    op->text[comm_bit_index(bit)] = id;
    *value = strtod(t, NULL);
}

static void bw_field(struct comm *c, struct comm_bw *bw, const char *t, unsigned bit, double *value)
{
    uint32_t id;
    if (!t || (id = strtab_intern_cstr(c->str, t)) == UINT32_MAX)
        return;
    bw->has |= (uint8_t)(CB_PRESENT | bit);
    bw->text[comm_bit_index(bit)] = id;
    *value = strtod(t, NULL);
}

/* The comm section's rows of the rank as communication ops. What a row does not carry is
 * absent: per transport only the bandwidth; the size moved (transit_mb, the sum of RDMA and
 * SDMA sizes) is kept whole as the RDMA size, which gives the same sum back. */
static struct comm *read_comm(const cJSON *rows, int rank, bool single, unsigned sources)
{
    static const char *const bw_key[CT_COUNT] = { "hccs_gbps", "rdma_gbps", "sdma_gbps", "pcie_gbps", "sio_gbps" };
    struct comm *c = NULL;
    for (const cJSON *row = next_rank_row(rows, NULL, rank, single); row;
         row = next_rank_row(rows, row, rank, single)) {
        if (!c && !(c = comm_new()))
            return NULL;
        const char *step = str(cJSON_GetObjectItemCaseSensitive(row, "step"));
        const char *name = str(cJSON_GetObjectItemCaseSensitive(row, "name"));
        const char *kind = str(cJSON_GetObjectItemCaseSensitive(row, "kind"));
        struct comm_op op = { .step_no = comm_step_number(step ? step : ""),
                              .kind = kind && !strcmp(kind, comm_kind_name(COMM_P2P)) ? COMM_P2P : COMM_COLLECTIVE };
        op.step = strtab_intern_cstr(c->str, step ? step : "");
        op.name = strtab_intern_cstr(c->str, name ? name : "");
        op.total = comm_is_total_key(name ? name : "");
        op_field(c, &op, row, "start_us", CF_START, &op.start_us);
        op_field(c, &op, row, "elapse_ms", CF_ELAPSE, &op.elapse_ms);
        op_field(c, &op, row, "transit_ms", CF_TRANSIT, &op.transit_ms);
        op_field(c, &op, row, "wait_ms", CF_WAIT, &op.wait_ms);
        op_field(c, &op, row, "sync_ms", CF_SYNC, &op.sync_ms);
        op_field(c, &op, row, "idle_ms", CF_IDLE, &op.idle_ms);
        op_field(c, &op, row, "wait_ratio", CF_WAIT_RATIO, &op.wait_ratio);
        op_field(c, &op, row, "sync_ratio", CF_SYNC_RATIO, &op.sync_ratio);
        for (int t = 0; t < CT_COUNT; t++)
            bw_field(c, &op.bw[t], num(cJSON_GetObjectItemCaseSensitive(row, bw_key[t])), CB_GBPS, &op.bw[t].gbps);
        bw_field(c, &op.bw[CT_RDMA], num(cJSON_GetObjectItemCaseSensitive(row, "transit_mb")), CB_SIZE,
                 &op.bw[CT_RDMA].size_mb);
        if (op.step == UINT32_MAX || op.name == UINT32_MAX || comm_add_op(c, &op) == SIZE_MAX) {
            comm_free(c);
            return NULL;
        }
    }
    if (c)
        c->sources = sources;
    return c;
}

int summary_load_rank(const struct capture_rank *cr, size_t rank_index, struct diag *d,
                      reader_handover_fn hand_over, void *ctx, char *status, size_t status_size)
{
    const char *path = cr->files[0].path;
    cJSON *root = parse_file(path, d);
    if (!root) {
        snprintf(status, status_size, "summary not readable (see diagnostics)");
        return -1;
    }
    struct rank_entry *e = malloc(MAX_FILE_RANKS * sizeof *e);
    if (!e)
        oom_exit("the ranks of a summary file", MAX_FILE_RANKS * sizeof *e);
    size_t n = file_ranks(root, e, MAX_FILE_RANKS), me = SIZE_MAX;
    for (size_t i = 0; i < n && me == SIZE_MAX; i++)
        if (e[i].rank == cr->rank)
            me = i;
    bool single = n == 1;
    struct rank_digest *g = me == SIZE_MAX ? NULL : rank_digest_new(path);
    int parts = 0;
    bool oom = false;
    if (g) {
        snprintf(g->steps_note, sizeof g->steps_note, "%s", e[me].note ? e[me].note : "");
        struct rowset *schema = steps_schema();
        g->steps = schema ? rebuild_rows(cJSON_GetObjectItemCaseSensitive(root, "steps"), schema, cr->rank, single,
                                         "file_stage_us") : NULL;
        rowset_free(schema);
        schema = steps_phase_rowset(NULL);
        g->phases = schema ? rebuild_rows(cJSON_GetObjectItemCaseSensitive(root, "phases"), schema, cr->rank, single,
                                          NULL) : NULL;
        rowset_free(schema);
        const cJSON *rsteps = cJSON_GetObjectItemCaseSensitive(root, "rank_steps");
        g->has_rank_steps = cJSON_IsArray(rsteps);
        oom |= read_rank_steps(g, rsteps, cr->rank, single) != 0;
        oom |= read_ends(g, cJSON_GetObjectItemCaseSensitive(root, "comm_ends"), cr->rank, single) != 0;
        if (me == 0)
            g->summary = read_summary(cJSON_GetObjectItemCaseSensitive(root, "summary"));
        g->ov = read_overview(cJSON_GetObjectItemCaseSensitive(root, "overview"), cr->rank, single);
        struct comm *c = read_comm(cJSON_GetObjectItemCaseSensitive(root, "comm"), cr->rank, single, e[me].sources);
        if (c) {
            hand_over(ctx, rank_index, RP_COMM, -1, c);
            parts++;
        }
        const cJSON *row;
        cJSON_ArrayForEach(row, array_or_null(cJSON_GetObjectItemCaseSensitive(root, "ranks"))) {
            struct pgroups *pg = row_of(row, cr->rank, single)
                               ? pgroups_from_json(cJSON_GetObjectItemCaseSensitive(row, "groups")) : NULL;
            if (pg) {   /* the parallel groups its own host read */
                hand_over(ctx, rank_index, RP_GROUPS, -1, pg);
                parts++;
                break;
            }
        }
        if (!g->has_rank_steps)
            diag_add(d, DIAG_WARN, path, "no rank_steps section: rank %d's step figures are not known (print the "
                     "summary with --section capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends)", cr->rank);
        hand_over(ctx, rank_index, RP_DIGEST, -1, g);
        parts++;
    } else {
        diag_add(d, DIAG_ERROR, path, "rank %d is not in this summary any more; not read", cr->rank);
    }
    if (oom)
        diag_out_of_memory(d, path, "out of memory: some figures of rank %d are missing", cr->rank);
    const char *base = strrchr(path, '/');
    snprintf(status, status_size, "from summary %s (no trace)", base ? base + 1 : path);
    free(e);
    cJSON_Delete(root);
    return parts;
}
