/* Capture discovery. Walks what the user typed (bounded depth, bounded entries, each
 * directory once), decides what each directory is (a Class A rank dir, its
 * ASCEND_PROFILER_OUTPUT, a PROF_* tree, a folder holding output files, or a folder of
 * such folders), classifies files from their name and first bytes, and reads nothing else
 * but profiler_info*.json. Everything is opened O_RDONLY; nothing is ever written. */
#include "io/capture.h"
#include "io/gz_stream.h"
#include "io/kineto.h"
#include "io/summary_json.h"

#include "io/db_util.h"
#include "model/escape.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH       8       /* levels below the given folder searched for ranks */
#define MAX_ENTRIES     10000   /* entries read per directory */
#define MAX_RANKS       4096
#define MAX_FILES       2048    /* files per rank */
#define MAX_VISITED     20000   /* directories visited in one discovery */
#define SNIFF_BYTES     4096
#define HEAD_BYTES      (64 << 10)   /* JSON heads that need more (Kineto metadata, gzip) */
#define INFO_MAX_BYTES  (1 << 20)

static const char ANALYSE_LINE[] = "from torch_npu.profiler.profiler import analyse; analyse(\"%s\")";

const char *file_kind_name(enum file_kind k)
{
    switch (k) {
    case FK_UNKNOWN: return "unknown";
    case FK_TRACE_JSON: return "trace";
    case FK_KERNEL_DETAILS: return "kernel_details";
    case FK_OP_SUMMARY: return "op_summary";
    case FK_OP_STATISTIC: return "op_statistic";
    case FK_OPERATOR_DETAILS: return "operator_details";
    case FK_API_STATISTIC: return "api_statistic";
    case FK_STEP_TRACE_TIME: return "step_trace";
    case FK_TASK_TIME: return "task_time";
    case FK_COMM_STATISTIC: return "comm_statistic";
    case FK_MEMORY_CSV: return "memory";
    case FK_OTHER_CSV: return "csv";
    case FK_COMMUNICATION: return "communication";
    case FK_COMM_MATRIX: return "comm_matrix";
    case FK_PROFILER_INFO: return "profiler_info";
    case FK_PROFILER_METADATA: return "profiler_metadata";
    case FK_DB_TORCH: return "db_torch";
    case FK_DB_MSPROF: return "db_msprof";
    case FK_DB_ANALYSIS: return "db_analysis";
    case FK_DB_OTHER: return "db";
    case FK_OTHER_JSON: return "json";
    case FK_CLOCK: return "clock";
    case FK_SUMMARY_JSON: return "summary";
    }
    return "unknown";
}

const char *capture_class_name(enum capture_class c)
{
    return c == CLASS_A ? "A" : c == CLASS_B ? "B" : "?";
}

bool capture_file_loadable(const struct capture_file *f)
{
    if (f->problem || f->skipped)
        return false;
    switch (f->kind) {
    case FK_UNKNOWN: case FK_OTHER_CSV: case FK_OTHER_JSON:
    case FK_PROFILER_INFO: case FK_PROFILER_METADATA: case FK_CLOCK:
        return false;
    default:
        return true;
    }
}

/* ---- small string helpers ------------------------------------------------------------ */

static bool starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool ends_with_ci(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

static char *xstrdup(const char *s)
{
    char *r = strdup(s ? s : "");
    if (!r)
        abort();
    return r;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    bool slash = la && a[la - 1] == '/';
    char *r = malloc(la + lb + 2);
    if (!r)
        abort();
    memcpy(r, a, la);
    if (!slash)
        r[la++] = '/';
    memcpy(r + la, b, lb + 1);
    return r;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* The directory part of path ("." when none); malloc'd. Trailing slashes are ignored. */
static char *dir_name(const char *path)
{
    char *p = xstrdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    char *s = strrchr(p, '/');
    if (!s) {
        free(p);
        return xstrdup(".");
    }
    if (s == p)
        s[1] = 0;
    else
        *s = 0;
    return p;
}

/* Base name without trailing slashes, copied into buf. */
static const char *clean_base(const char *path, char *buf, size_t size)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t len = n - start;
    if (len >= size)
        len = size - 1;
    memcpy(buf, path + start, len);
    buf[len] = 0;
    return buf;
}

/* ---- directory listing --------------------------------------------------------------- */

struct entry { char *name; bool is_dir, is_reg; };
struct listing { struct entry *e; size_t n; int err; bool truncated; };

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Sorted entries of dir (symlinks followed for the type); err set when it cannot be opened. */
static void list_dir(const char *dir, struct listing *l)
{
    memset(l, 0, sizeof *l);
    DIR *d = opendir(dir);
    if (!d) {
        l->err = errno;
        return;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (l->n >= MAX_ENTRIES) {
            l->truncated = true;
            break;
        }
        if (l->n == cap) {
            cap = cap ? cap * 2 : 32;
            struct entry *ne = realloc(l->e, cap * sizeof *ne);
            if (!ne)
                abort();
            l->e = ne;
        }
        char *full = join(dir, de->d_name);
        struct stat st;
        bool ok = stat(full, &st) == 0;
        free(full);
        l->e[l->n].name = xstrdup(de->d_name);
        l->e[l->n].is_dir = ok && S_ISDIR(st.st_mode);
        l->e[l->n].is_reg = ok && S_ISREG(st.st_mode);
        l->n++;
    }
    closedir(d);
    if (l->n)
        qsort(l->e, l->n, sizeof *l->e, cmp_entry);
}

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].name);
    free(l->e);
    memset(l, 0, sizeof *l);
}

static const struct entry *find_entry(const struct listing *l, const char *name, bool dir)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->e[i].name, name) && (dir ? l->e[i].is_dir : l->e[i].is_reg))
            return &l->e[i];
    return NULL;
}

static bool has_dir_prefix(const struct listing *l, const char *prefix)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].is_dir && starts_with(l->e[i].name, prefix))
            return true;
    return false;
}

/* device_<digits> → the number, else -1. */
static int device_dir_id(const char *name)
{
    if (!starts_with(name, "device_") || !name[7])
        return -1;
    long v = 0;
    for (const char *p = name + 7; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 100000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return (int)v;
}

/* ---- file classification ------------------------------------------------------------- */

static bool listable_name(const char *name)
{
    if (name[0] == '.')
        return false;
    return ends_with_ci(name, ".json") || ends_with_ci(name, ".json.gz") || ends_with_ci(name, ".csv") || ends_with_ci(name, ".db")
        || ends_with_ci(name, ".dat");
}

/* msprof_<digits>..., op_summary_<digits>...: Class B file names carry a number after the stem. */
static bool stem_digits(const char *name, const char *stem)
{
    return starts_with(name, stem) && isdigit((unsigned char)name[strlen(stem)]);
}

static enum file_kind kind_from_name(const char *name)
{
    bool json = ends_with_ci(name, ".json"), csv = ends_with_ci(name, ".csv");
    if (json) {
        if (starts_with(name, "profiler_info"))
            return FK_PROFILER_INFO;
        if (!strcmp(name, "profiler_metadata.json"))
            return FK_PROFILER_METADATA;
        if (!strcmp(name, "communication.json"))
            return FK_COMMUNICATION;
        if (!strcmp(name, "communication_matrix.json"))
            return FK_COMM_MATRIX;
        if (starts_with(name, "trace_view") || starts_with(name, "msprof_") || ends_with_ci(name, ".pt.trace.json"))
            return FK_TRACE_JSON;
        return FK_OTHER_JSON;
    }
    if (csv) {
        if (starts_with(name, "kernel_details"))
            return FK_KERNEL_DETAILS;
        if (starts_with(name, "op_summary"))
            return FK_OP_SUMMARY;
        if (starts_with(name, "op_statistic"))
            return FK_OP_STATISTIC;
        if (starts_with(name, "operator_details"))
            return FK_OPERATOR_DETAILS;
        if (starts_with(name, "api_statistic"))
            return FK_API_STATISTIC;
        if (starts_with(name, "step_trace_time") || stem_digits(name, "step_trace_"))
            return FK_STEP_TRACE_TIME;
        if (starts_with(name, "task_time"))
            return FK_TASK_TIME;
        if (starts_with(name, "communication_statistic"))
            return FK_COMM_STATISTIC;
        if (starts_with(name, "memory_record") || starts_with(name, "ge_memory_record")
            || starts_with(name, "operator_memory") || starts_with(name, "ge_operator_memory")
            || starts_with(name, "npu_module_mem") || starts_with(name, "npu_mem")
            || starts_with(name, "static_op_mem"))
            return FK_MEMORY_CSV;
        return FK_OTHER_CSV;
    }
    return FK_UNKNOWN;
}

static enum file_kind db_kind_from_name(const char *name)
{
    if (starts_with(name, "ascend_pytorch_profiler"))
        return FK_DB_TORCH;
    if (starts_with(name, "msprof_"))
        return FK_DB_MSPROF;
    if (starts_with(name, "analysis."))
        return FK_DB_ANALYSIS;
    return FK_DB_OTHER;
}

/* An SQLite file whose name says nothing (renamed, .dat, another stem): what its tables are. */
static enum file_kind db_kind_from_tables(const char *path)
{
    sqlite3 *db = dbu_open(path, NULL);
    enum file_kind k = FK_DB_OTHER;
    if (!db)
        return k;
    if (dbu_has_table(db, "TASK") || dbu_has_table(db, "COMPUTE_TASK_INFO") || dbu_has_table(db, "CANN_API"))
        k = dbu_has_table(db, "PYTORCH_API") ? FK_DB_TORCH : FK_DB_MSPROF;
    else if (dbu_has_table(db, "StepTraceTime") || dbu_has_table(db, "CommAnalyzerTime")
             || dbu_has_table(db, "CommAnalyzerBandwidth") || dbu_has_table(db, "CommAnalyzerMatrix"))
        k = FK_DB_ANALYSIS;
    sqlite3_close(db);
    return k;
}

/* Does the comma-separated header line (length n) hold column col? Quotes and spaces trimmed. */
static bool has_col(const char *h, size_t n, const char *col)
{
    size_t cl = strlen(col), i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && h[j] != ',')
            j++;
        size_t a = i, b = j;
        while (a < b && (h[a] == ' ' || h[a] == '"' || h[a] == '\t'))
            a++;
        while (b > a && (h[b - 1] == ' ' || h[b - 1] == '"' || h[b - 1] == '\t'))
            b--;
        if (b - a == cl && !strncasecmp(h + a, col, cl))
            return true;
        i = j + 1;
    }
    return false;
}

/* The CSV header decides between the kernel tables where names may lie. */
static enum file_kind kind_from_csv_header(const char *buf, size_t n, enum file_kind by_name)
{
    if (n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
        buf += 3;
        n -= 3;
    }
    size_t hl = 0;
    while (hl < n && buf[hl] != '\n' && buf[hl] != '\r')
        hl++;
    if (!hl)
        return by_name;
    bool op_summary = has_col(buf, hl, "Op Name") || has_col(buf, hl, "Task Start Time(us)")
                   || has_col(buf, hl, "Task Duration(us)");
    bool kernel = has_col(buf, hl, "Name") && (has_col(buf, hl, "Duration(us)") || has_col(buf, hl, "Start Time(us)"))
                  && !has_col(buf, hl, "Call Stack");
    if (by_name == FK_KERNEL_DETAILS || by_name == FK_OP_SUMMARY || by_name == FK_OTHER_CSV) {
        if (op_summary && (has_col(buf, hl, "Task Duration(us)") || has_col(buf, hl, "Duration(us)")))
            return FK_OP_SUMMARY;
        if (kernel)
            return FK_KERNEL_DETAILS;
    }
    if (by_name != FK_OTHER_CSV)
        return by_name;
    if (has_col(buf, hl, "OP Type") && has_col(buf, hl, "Core Type") && has_col(buf, hl, "Count"))
        return FK_OP_STATISTIC;
    if (has_col(buf, hl, "API Name"))
        return FK_API_STATISTIC;
    if (has_col(buf, hl, "Call Stack") || has_col(buf, hl, "Host Self Duration(us)"))
        return FK_OPERATOR_DETAILS;
    if (has_col(buf, hl, "Step") && has_col(buf, hl, "Computing") && !has_col(buf, hl, "Type"))
        return FK_STEP_TRACE_TIME;
    return FK_OTHER_CSV;
}

/* The first top-level key of a JSON object starting at p (after '{'), into key. */
static void first_key(const char *p, const char *end, char *key, size_t size)
{
    key[0] = 0;
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p >= end || *p != '"')
        return;
    p++;
    size_t k = 0;
    while (p < end && *p != '"' && k + 1 < size)
        key[k++] = *p++;
    key[k] = 0;
}

static bool mem_has(const char *buf, size_t n, const char *s)
{
    return memmem(buf, n, s, strlen(s)) != NULL;
}

static enum file_kind kind_from_json_head(const char *buf, size_t n, enum file_kind by_name)
{
    const char *p = buf, *end = buf + n;
    if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p >= end)
        return by_name;
    /* communication_matrix.json is an array too (of {"op_name", "link_info"}): an array
     * under that name is a trace only when it holds trace events */
    if (*p == '[')
        return by_name == FK_COMM_MATRIX && !mem_has(p, (size_t)(end - p), "\"ph\"") ? FK_COMM_MATRIX
                                                                                   : FK_TRACE_JSON;
    if (*p != '{')
        return by_name;
    if (mem_has(p, (size_t)(end - p), "\"traceEvents\"") || mem_has(p, (size_t)(end - p), "\"deviceProperties\"")
        || mem_has(p, (size_t)(end - p), "\"schemaVersion\""))
        return FK_TRACE_JSON;
    if (by_name != FK_OTHER_JSON)
        return by_name;
    /* communication.json and its matrix under another name: top keys are steps. */
    char key[64];
    first_key(p + 1, end, key, sizeof key);
    if (starts_with(key, "step")) {
        if (mem_has(p, (size_t)(end - p), "Communication Time Info"))
            return FK_COMMUNICATION;
        if (mem_has(p, (size_t)(end - p), "Transport Type"))
            return FK_COMM_MATRIX;
    }
    return by_name;
}

static char *fmt_problem(const char *fmt, const char *arg)
{
    char buf[512];
    snprintf(buf, sizeof buf, fmt, arg);
    return xstrdup(buf);
}

/* The first n bytes of a plain file; the count, or -1. */
static long read_head(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return (long)got;
}

/* Fills kind, size and problem of f (path set) from its name and first bytes. */
static void classify_file(struct capture_file *f)
{
    const char *name = base_name(f->path);
    struct stat st;
    /* x.json.gz is classified as x.json (by its decompressed head below) */
    char plain[256];
    if (ends_with_ci(name, ".gz") && strlen(name) - 3 < sizeof plain) {
        snprintf(plain, sizeof plain, "%.*s", (int)(strlen(name) - 3), name);
        name = plain;
    }
    f->kind = kind_from_name(name);
    if (stat(f->path, &st) != 0) {
        f->problem = fmt_problem("cannot stat: %s", strerror(errno));
        return;
    }
    f->size = (uint64_t)st.st_size;
    if (!S_ISREG(st.st_mode)) {
        f->problem = xstrdup("not a regular file");
        return;
    }
    int fd = open(f->path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        f->problem = fmt_problem("not readable: %s", strerror(errno));
        return;
    }
    char buf[SNIFF_BYTES];
    ssize_t got = 0;
    while (got < (ssize_t)sizeof buf) {
        ssize_t r = read(fd, buf + got, sizeof buf - (size_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            f->problem = fmt_problem("not readable: %s", strerror(e));
            return;
        }
        if (r == 0)
            break;
        got += r;
    }
    close(fd);
    if (f->size == 0 || got == 0) {
        f->problem = xstrdup("0-byte file (empty)");
        if (ends_with_ci(name, ".db") || ends_with_ci(name, ".dat"))
            f->kind = db_kind_from_name(name);
        return;
    }
    size_t n = (size_t)got;
    if (gz_magic(buf, n) || (ends_with_ci(name, ".json") && n == sizeof buf)) {
        /* gzip under any name (what matters is what it holds), or a long JSON head: a
         * Kineto trace may write kilobytes of metadata before "traceEvents" */
        char err[160], *head = malloc(HEAD_BYTES);
        if (!head)
            abort();
        long k = gz_magic(buf, n) ? gz_read_range(f->path, 0, head, HEAD_BYTES, err, sizeof err)
                                  : read_head(f->path, head, HEAD_BYTES);
        if (k <= 0 && gz_magic(buf, n)) {
            f->problem = k < 0 ? fmt_problem("gzip: %s", err) : xstrdup("gzip file with no data (truncated?)");
            f->kind = FK_TRACE_JSON;
        } else if (k > 0) {
            f->kind = kind_from_json_head(head, (size_t)k, f->kind == FK_UNKNOWN ? FK_OTHER_JSON : f->kind);
        }
        free(head);
        if (k > 0 || gz_magic(buf, n))
            return;
    }
    if (n >= 16 && !memcmp(buf, "SQLite format 3", 16)) {
        f->kind = db_kind_from_name(name);
        if (f->kind == FK_DB_OTHER)
            f->kind = db_kind_from_tables(f->path);
        return;
    }
    if (ends_with_ci(name, ".db")) {
        f->kind = db_kind_from_name(name);
        f->problem = xstrdup("not an SQLite database (no SQLite header)");
        return;
    }
    if (ends_with_ci(name, ".dat")) {
        f->kind = FK_UNKNOWN;
        return;
    }
    /* a collective's summary (hccl_*.csv) lists ops with durations too: never a kernel table */
    if (ends_with_ci(name, ".csv") && !starts_with(name, "hccl_"))
        f->kind = kind_from_csv_header(buf, n, f->kind);
    else if (ends_with_ci(name, ".json"))
        f->kind = kind_from_json_head(buf, n, f->kind);
}

/* ---- discovery context --------------------------------------------------------------- */

struct dev_ino { dev_t dev; ino_t ino; };

struct strlist { char **v; size_t n, cap; };

struct ctx {
    struct capture *c;
    struct diag *d;
    struct dev_ino *visited;
    size_t nvisited, capvisited;
    bool too_many_ranks;
    struct strlist walked;  /* folders whose every entry is read, walked or said skipped */
    struct strlist taken;   /* folders walked or scanned: not skipped */
};

static void strlist_add(struct strlist *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **nv = realloc(l->v, l->cap * sizeof *nv);
        if (!nv)
            abort();
        l->v = nv;
    }
    l->v[l->n++] = xstrdup(s);
}

static void strlist_free(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* dir's entries are accounted for at the end (see account_skipped). */
static void walked(struct ctx *x, const char *dir)
{
    strlist_add(&x->walked, dir);
    strlist_add(&x->taken, dir);
}

/* Records something seen and not read. */
static void skip_add(struct ctx *x, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void skip_add(struct ctx *x, const char *path, const char *fmt, ...)
{
    struct capture *c = x->c;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    struct capture_skip *ns = realloc(c->skipped, (c->nskipped + 1) * sizeof *ns);
    if (!ns)
        abort();
    c->skipped = ns;
    c->skipped[c->nskipped++] = (struct capture_skip){ xstrdup(path), xstrdup(why) };
    strlist_add(&x->taken, path);
}

/* True the first time a directory is seen: symlink loops and aliases are walked once. */
static bool visit(struct ctx *x, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    for (size_t i = 0; i < x->nvisited; i++)
        if (x->visited[i].dev == st.st_dev && x->visited[i].ino == st.st_ino)
            return false;
    if (x->nvisited >= MAX_VISITED)
        return false;
    if (x->nvisited == x->capvisited) {
        x->capvisited = x->capvisited ? x->capvisited * 2 : 64;
        struct dev_ino *nv = realloc(x->visited, x->capvisited * sizeof *nv);
        if (!nv)
            abort();
        x->visited = nv;
    }
    x->visited[x->nvisited++] = (struct dev_ino){ st.st_dev, st.st_ino };
    return true;
}

static struct capture_rank *new_rank(struct ctx *x, const char *dir, const char *label, enum capture_class cls)
{
    struct capture *c = x->c;
    if (c->nranks >= MAX_RANKS) {
        if (!x->too_many_ranks)
            diag_add(x->d, DIAG_WARN, c->root, "more than %d ranks found; the rest are ignored", MAX_RANKS);
        x->too_many_ranks = true;
        return NULL;
    }
    struct capture_rank *nr = realloc(c->ranks, (c->nranks + 1) * sizeof *nr);
    if (!nr)
        abort();
    c->ranks = nr;
    struct capture_rank *r = &c->ranks[c->nranks++];
    memset(r, 0, sizeof *r);
    r->rank = -1;
    r->device = -1;
    r->dir = xstrdup(dir);
    r->label = xstrdup(label);
    r->cls = cls;
    return r;
}

/* The file, or NULL when the rank already has MAX_FILES (the caller counts those). */
static struct capture_file *add_file(struct ctx *x, struct capture_rank *r, const char *path)
{
    if (r->nfiles >= MAX_FILES)
        return NULL;
    struct capture_file *nf = realloc(r->files, (r->nfiles + 1) * sizeof *nf);
    if (!nf)
        abort();
    r->files = nf;
    struct capture_file *f = &r->files[r->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    classify_file(f);
    if (f->problem)
        diag_add(x->d, DIAG_WARN, f->path, "%s", f->problem);
    return f;
}

static void say_dropped(struct ctx *x, const char *dir, size_t dropped)
{
    if (dropped)
        diag_add(x->d, DIAG_WARN, dir, "more than %d files in this rank; %zu not listed", MAX_FILES, dropped);
}

/* msprof's timeline of one device: msprof_<digits>... (per iteration in the older layout:
 * msprof_<device>_<model>_<iteration>.json) or msprof_slice_<N>_... parts. */
static bool is_merged_timeline(const char *name)
{
    return !strcmp(name, "msprof.json")
        || (ends_with_ci(name, ".json") && (stem_digits(name, "msprof_") || starts_with(name, "msprof_slice_")));
}

/* A component timeline msprof merges: <stem>_<digits>....json (task_time_0_1_1.json,
 * hccl_0_1_1.json, step_trace_0_1.json, msprof_tx_..., acl_..., ge_...). */
static bool is_component_timeline(const char *name)
{
    if (is_merged_timeline(name) || starts_with(name, "trace_view") || ends_with_ci(name, ".pt.trace.json"))
        return false;
    for (const char *p = strchr(name, '_'); p; p = strchr(p + 1, '_'))
        if (isdigit((unsigned char)p[1]) || starts_with(p + 1, "slice_"))
            return true;
    return false;
}

/* The trace files of one folder by role, so that every event is counted once: a
 * trace_view.json holds all torch_npu exported (the CANN msprof_*.json beside it repeats its
 * device events); else msprof_*.json is the merge of the component timelines beside it. The
 * files that repeat another's events are listed as skipped, whatever their order or size. */
static void dedupe_trace_roles(struct ctx *x, struct capture_rank *r, size_t from)
{
    const char *torch = NULL, *merged = NULL;
    for (size_t i = from; i < r->nfiles; i++) {
        const struct capture_file *f = &r->files[i];
        const char *b = base_name(f->path);
        if (f->kind != FK_TRACE_JSON || f->problem)
            continue;
        if (starts_with(b, "trace_view") && !torch)
            torch = b;
        else if (is_merged_timeline(b) && !merged)
            merged = b;
    }
    for (size_t i = from; i < r->nfiles; i++) {
        struct capture_file *f = &r->files[i];
        const char *b = base_name(f->path);
        if (f->kind != FK_TRACE_JSON || f->skipped)
            continue;
        char why[600];
        if (torch && !starts_with(b, "trace_view") && (is_merged_timeline(b) || is_component_timeline(b))) {
            snprintf(why, sizeof why, "its events are also in %s (the merged timeline beside it); read from there", torch);
        } else if (!torch && merged && is_component_timeline(b)) {
            /* the merge of the same iteration: the same <device>_<model>_<iteration> suffix */
            const struct capture_file *same = NULL, *broken = NULL;
            const char *sfx = strchr(b, '_');
            while (sfx && !isdigit((unsigned char)sfx[1]))
                sfx = strchr(sfx + 1, '_');
            for (size_t k = from; k < r->nfiles; k++) {
                const char *m = base_name(r->files[k].path);
                if (!is_merged_timeline(m))
                    continue;
                if (sfx && strlen(m) > 6 && !strcmp(m + 6, sfx) && !same)
                    same = &r->files[k];
                if (r->files[k].problem && !broken)
                    broken = &r->files[k];
            }
            if (same && same->problem) {
                /* its merge is unusable: this part is read in its place, and said */
                diag_add(x->d, DIAG_WARN, f->path, "read in place of its merge %s (%s)", base_name(same->path),
                         same->problem);
                continue;
            }
            if (same) {
                snprintf(why, sizeof why, "merged into %s (msprof's timeline of this iteration); read from there",
                         base_name(same->path));
                f->merge = xstrdup(same->path);
            }
            else if (broken)
                snprintf(why, sizeof why, "merged into the msprof_*.json beside it (%s, ...); read from there; "
                         "the part of %s, which is unusable, is lost", merged, base_name(broken->path));
            else
                snprintf(why, sizeof why, "merged into the msprof_*.json beside it (%s, ...); read from there", merged);
        } else {
            continue;
        }
        f->skipped = xstrdup(why);
        diag_add(x->d, DIAG_INFO, f->path, "skipped: %s", why);
    }
}

/* Adds the listable regular files of dir (not recursive); returns how many did not fit
 * (already said when x->d is set). */
static size_t add_files_of(struct ctx *x, struct capture_rank *r, const char *dir, const struct listing *l)
{
    struct listing own;
    size_t dropped = 0, from = r->nfiles;
    if (!l) {
        list_dir(dir, &own);
        l = &own;
    }
    walked(x, dir);
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_reg || !listable_name(l->e[i].name))
            continue;
        char *p = join(dir, l->e[i].name);
        dropped += !add_file(x, r, p);
        free(p);
    }
    if (l == &own)
        listing_free(&own);
    dedupe_trace_roles(x, r, from);
    say_dropped(x, dir, dropped);
    return dropped;
}

/* Clock files of a device or host folder (info.json[.N], start_info[.N], end_info[.N]). */
static bool is_clock_name(const char *name)
{
    return starts_with(name, "info.json") || starts_with(name, "start_info") || starts_with(name, "end_info");
}

static void add_clock_files(struct ctx *x, struct capture_rank *r, const char *dir)
{
    struct listing l;
    list_dir(dir, &l);
    for (size_t i = 0; i < l.n; i++) {
        if (!l.e[i].is_reg || !is_clock_name(l.e[i].name))
            continue;
        char *p = join(dir, l.e[i].name);
        struct capture_file *f = add_file(x, r, p);
        if (f && !f->problem)
            f->kind = FK_CLOCK;
        free(p);
    }
    listing_free(&l);
}

static size_t count_loadable(const struct capture_rank *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        n += capture_file_loadable(&r->files[i]);
    return n;
}

/* A non-negative integer (number, or decimal text) from v, else -1. */
static int json_nonneg(const cJSON *v)
{
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < INT_MAX)
        return (int)v->valuedouble;
    if (cJSON_IsString(v) && v->valuestring[0]) {
        char *e;
        long l = strtol(v->valuestring, &e, 10);
        if (!*e && l >= 0 && l < INT_MAX)
            return (int)l;
    }
    return -1;
}

/* The first of keys (top level, or under "config"/"DeviceInfo"[0]) in a small JSON file
 * (profiler_info*.json, info.json.N) as a non-negative integer, else -1 (unset, -1, text). */
static int int_from_info(struct ctx *x, const char *path, const char *const *keys, bool warn)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > INFO_MAX_BYTES) {
        close(fd);
        return -1;
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *buf = malloc(n + 1);
    if (!buf)
        abort();
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = 0;
    int val = -1;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(buf, got, &end, 0);
    if (!j) {
        if (warn)
            diag_add(x->d, DIAG_WARN, path, "byte %zu: not valid JSON; rank taken from the directory name",
                     end ? (size_t)(end - buf) : (size_t)0);
    } else {
        const cJSON *dev_info = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "DeviceInfo"), 0);
        const cJSON *places[] = { j, cJSON_GetObjectItemCaseSensitive(j, "config"), dev_info };
        for (size_t k = 0; keys[k] && val < 0; k++)
            for (size_t p = 0; p < 3 && val < 0; p++)
                if (places[p])
                    val = json_nonneg(cJSON_GetObjectItemCaseSensitive(places[p], keys[k]));
        cJSON_Delete(j);
    }
    free(buf);
    return val;
}

/* rank_id from a profiler_info*.json (int or string; -1 means unset) → rank, else -1. */
static int rank_from_info(struct ctx *x, const char *path)
{
    static const char *const keys[] = { "rank_id", "rankId", NULL };
    return int_from_info(x, path, keys, true);
}

/* The device a rank ran on, from profiler_info (or info.json.N) when it says. */
static int device_from_info(struct ctx *x, const char *path)
{
    static const char *const keys[] = { "device_id", "Device_id", "deviceId", "device", "id", NULL };
    return int_from_info(x, path, keys, false);
}

/* rank<N> / rank_<N> in a directory name (last one wins), else -1. */
static int rank_from_name(const char *name)
{
    int found = -1;
    for (const char *p = name; (p = strcasestr(p, "rank")); p += 4) {
        if (p != name && isalnum((unsigned char)p[-1]))
            continue;
        const char *q = p + 4;
        if (*q == '_' || *q == '-')
            q++;
        if (!isdigit((unsigned char)*q))
            continue;
        long v = 0;
        while (isdigit((unsigned char)*q) && v < 1000000)
            v = v * 10 + (*q++ - '0');
        if (isalpha((unsigned char)*q))
            continue;
        found = (int)v;
    }
    return found;
}

/* Rank from the profiler_info*.json files of the rank's files, else from the names. */
static void set_rank(struct ctx *x, struct capture_rank *r, const char *name1, const char *name2)
{
    for (size_t i = 0; i < r->nfiles && r->rank < 0; i++)
        if (r->files[i].kind == FK_PROFILER_INFO && !r->files[i].problem) {
            r->rank = rank_from_info(x, r->files[i].path);
            if (r->device < 0)
                r->device = device_from_info(x, r->files[i].path);
        }
    if (r->rank < 0 && name1)
        r->rank = rank_from_name(name1);
    if (r->rank < 0 && name2)
        r->rank = rank_from_name(name2);
}

/* The one device_<id> directory in dir, or -1 when none or several. */
static int single_device(const struct listing *l)
{
    int dev = -1, n = 0;
    for (size_t i = 0; i < l->n; i++) {
        int id = l->e[i].is_dir ? device_dir_id(l->e[i].name) : -1;
        if (id >= 0) {
            dev = id;
            n++;
        }
    }
    return n == 1 ? dev : -1;
}

/* A Python string literal for dir, quoted for a POSIX shell's single quotes. */
static void analyse_hint(char *out, size_t size, const char *dir)
{
    char abs[PATH_MAX], q[PATH_MAX * 2 + 8];
    const char *d = realpath(dir, abs) ? abs : dir;
    size_t k = 0;
    for (const char *p = d; *p && k + 8 < sizeof q; p++) {
        if (*p == '\\' || *p == '"')
            q[k++] = '\\';
        if (*p == '\'') {
            memcpy(q + k, "'\\''", 4);
            k += 4;
            continue;
        }
        q[k++] = *p;
    }
    q[k] = 0;
    char line[sizeof q + 100];
    snprintf(line, sizeof line, ANALYSE_LINE, q);
    snprintf(out, size, "not analysed yet; run: python3 -c '%s'", line);
}

/* Class B files of one PROF_* (or a folder holding mindstudio_profiler_output): exported
 * text, the root DB, analyze/. Returns how many files were added. */
static size_t add_prof_files(struct ctx *x, struct capture_rank *r, const char *prof, const struct listing *l)
{
    size_t before = r->nfiles;
    add_files_of(x, r, prof, l);
    const char *subs[] = { "mindstudio_profiler_output", "analyze" };
    for (size_t i = 0; i < 2; i++)
        if (find_entry(l, subs[i], true)) {
            char *p = join(prof, subs[i]);
            add_files_of(x, r, p, NULL);
            free(p);
        }
    return r->nfiles - before;
}

/* Legacy layout: JSON in device_<id>/timeline/, CSV in device_<id>/summary/, the device's
 * clock files beside them. */
static size_t add_legacy_device(struct ctx *x, struct capture_rank *r, const char *devdir)
{
    size_t before = r->nfiles;
    walked(x, devdir);
    const char *subs[] = { "timeline", "summary" };
    for (size_t i = 0; i < 2; i++) {
        char *p = join(devdir, subs[i]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            add_files_of(x, r, p, NULL);
        free(p);
    }
    add_clock_files(x, r, devdir);
    return r->nfiles - before;
}

/* rank_id of a device's info.json[.N] (msprof writes -1 or nothing when unknown), else -1. */
static int rank_from_clock_files(struct ctx *x, const struct capture_rank *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct capture_file *f = &r->files[i];
        if (f->kind == FK_CLOCK && !f->problem && starts_with(base_name(f->path), "info.json")) {
            int rank = rank_from_info(x, f->path);
            if (rank >= 0)
                return rank;
        }
    }
    return -1;
}

static void set_group(struct capture_rank *r, const char *dir)
{
    free(r->group);
    r->group = dir_name(dir);
}

static bool has_legacy_device(const char *dir, const struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_dir || device_dir_id(l->e[i].name) < 0)
            continue;
        char *dd = join(dir, l->e[i].name);
        bool yes = false;
        const char *subs[] = { "timeline", "summary" };
        for (size_t k = 0; k < 2 && !yes; k++) {
            char *p = join(dd, subs[k]);
            struct stat st;
            yes = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
            free(p);
        }
        free(dd);
        if (yes)
            return true;
    }
    return false;
}

/* A PROF_* tree (or a folder that looks like one): one rank, or one per device in the legacy
 * per-device layout. */
static void add_class_b(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    clean_base(dir, label, sizeof label);
    bool exported = find_entry(l, "mindstudio_profiler_output", true) != NULL;
    struct capture_rank *r = NULL;
    walked(x, dir);
    if (exported || !has_legacy_device(dir, l)) {
        r = new_rank(x, dir, label, CLASS_B);
        if (!r)
            return;
        set_group(r, dir);
        add_prof_files(x, r, dir, l);
        r->device = single_device(l);
        set_rank(x, r, label, NULL);
        /* the older per-device text of the same data, when both were exported */
        for (size_t i = 0; exported && i < l->n; i++) {
            if (!l->e[i].is_dir || device_dir_id(l->e[i].name) < 0)
                continue;
            char *dd = join(dir, l->e[i].name);
            struct listing dl;
            list_dir(dd, &dl);
            if (find_entry(&dl, "timeline", true) || find_entry(&dl, "summary", true))
                skip_add(x, dd, "older per-device layout of the same data; mindstudio_profiler_output/ is read");
            listing_free(&dl);
            free(dd);
        }
        if (!count_loadable(r) && (has_dir_prefix(l, "device_") || find_entry(l, "host", true))) {
            char buf[PATH_MAX + 128];
            snprintf(buf, sizeof buf, "raw msprof data, not exported; run: msprof --export=on --output=%s", dir);
            r->problem = xstrdup(buf);
            diag_add(x->d, DIAG_WARN, dir, "%s", buf);
        }
        return;
    }
    bool first = true;
    for (size_t i = 0; i < l->n; i++) {
        int id = l->e[i].is_dir ? device_dir_id(l->e[i].name) : -1;
        if (id < 0)
            continue;
        char *dd = join(dir, l->e[i].name);
        char lab[512];
        snprintf(lab, sizeof lab, "%s/%s", label, l->e[i].name);
        r = new_rank(x, dd, lab, CLASS_B);
        if (r) {
            set_group(r, dir);  /* the devices of one PROF_* and its sibling PROF_* are one capture */
            if (first)      /* a root msprof_*.db covers every device: list it once */
                add_files_of(x, r, dir, l);
            first = false;
            add_legacy_device(x, r, dd);
            r->device = id;
            r->rank = rank_from_clock_files(x, r);
        }
        free(dd);
    }
}

/* A *_ascend_pt / *_ascend_ms directory (or one holding ASCEND_PROFILER_OUTPUT/profiler_info). */
static void add_class_a(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    clean_base(dir, label, sizeof label);
    struct capture_rank *r = new_rank(x, dir, label, CLASS_A);
    if (!r)
        return;
    walked(x, dir);
    set_group(r, dir);
    for (size_t i = 0; i < l->n; i++) {
        const char *n = l->e[i].name;
        if (l->e[i].is_reg && ends_with_ci(n, ".json")
            && (starts_with(n, "profiler_info") || !strcmp(n, "profiler_metadata.json"))) {
            char *p = join(dir, n);
            add_file(x, r, p);
            free(p);
        }
    }
    bool has_apo = find_entry(l, "ASCEND_PROFILER_OUTPUT", true) != NULL;
    bool has_fw = find_entry(l, "FRAMEWORK", true) != NULL;
    bool has_prof = has_dir_prefix(l, "PROF_");
    bool done = false;
    if (has_apo) {
        char *apo = join(dir, "ASCEND_PROFILER_OUTPUT");
        struct listing al;
        list_dir(apo, &al);
        add_files_of(x, r, apo, &al);
        done = find_entry(&al, "analyse.done", false) != NULL;
        listing_free(&al);
        free(apo);
    }
    set_rank(x, r, label, NULL);
    /* Device and, when the analysis is missing, the exported CANN data of the nested PROF_*. */
    size_t loadable = count_loadable(r);
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_dir || !starts_with(l->e[i].name, "PROF_"))
            continue;
        char *prof = join(dir, l->e[i].name);
        struct listing pl;
        list_dir(prof, &pl);
        if (r->device < 0)
            r->device = single_device(&pl);
        if (!loadable)
            add_prof_files(x, r, prof, &pl);
        listing_free(&pl);
        free(prof);
    }
    bool raw = has_fw || has_prof;
    char hint[PATH_MAX * 3];
    if (!loadable && raw) {
        analyse_hint(hint, sizeof hint, dir);
        r->problem = xstrdup(hint);
        diag_add(x->d, DIAG_WARN, dir, "%s%s", has_apo ? "analysis incomplete (ASCEND_PROFILER_OUTPUT has no data); " : "", hint);
    } else if (loadable && raw && !done) {
        diag_add(x->d, DIAG_INFO, dir, "no ASCEND_PROFILER_OUTPUT/analyse.done: the analysis may not have finished");
    } else if (!has_apo && !raw) {
        r->problem = xstrdup("no ASCEND_PROFILER_OUTPUT/ and no raw data (FRAMEWORK/, PROF_*)");
        diag_add(x->d, DIAG_WARN, dir, "%s", r->problem);
    }
}

static bool rank_worthy(const struct capture_file *f)
{
    return f->kind != FK_UNKNOWN && f->kind != FK_OTHER_CSV && f->kind != FK_OTHER_JSON
        && f->kind != FK_PROFILER_INFO && f->kind != FK_PROFILER_METADATA;
}

static void rank_free(struct capture_rank *r);

/* A folder holding output files directly. Returns false (and adds nothing) when none is data. */
/* The rank a trace names in its head (Kineto distributedInfo), or -1. */
static int trace_rank(const char *path)
{
    char *head = malloc(HEAD_BYTES), err[160];
    if (!head)
        abort();
    long k = read_head(path, head, 2);
    if (k == 2 && gz_magic(head, 2))
        k = gz_read_range(path, 0, head, HEAD_BYTES, err, sizeof err);
    else
        k = read_head(path, head, HEAD_BYTES);
    int rank = k > 0 ? kineto_rank_from_head(head, (size_t)k) : -1;
    free(head);
    return rank;
}

/* A trace file of one rank among others: *.pt.trace.json[.gz] (PyTorch profiler), or a
 * trace name carrying a rank ("rank-3.", "_rank_3."). */
static bool per_rank_trace_name(const char *name)
{
    return ends_with_ci(name, ".pt.trace.json") || ends_with_ci(name, ".pt.trace.json.gz")
        || ((ends_with_ci(name, ".json") || ends_with_ci(name, ".json.gz")) && rank_from_name(name) >= 0);
}

/* A folder of per-rank trace files (one PyTorch profiler trace per rank, as distributed
 * jobs and vLLM write them) is one multi-rank capture: each file is a rank, numbered by the
 * distributedInfo it carries, else by the rank in its name. Needs two or more such traces
 * and nothing of a torch_npu or msprof layout; returns whether ranks were added. */
static bool add_trace_ranks(struct ctx *x, const char *dir, const struct listing *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->e[i].is_reg && per_rank_trace_name(l->e[i].name);
    if (n < 2)
        return false;
    size_t added = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_reg || !per_rank_trace_name(l->e[i].name))
            continue;
        char *p = join(dir, l->e[i].name);
        char label[256];
        clean_base(p, label, sizeof label);
        struct capture_rank *r = new_rank(x, dir, label, CLASS_A);
        if (!r) {
            free(p);
            break;
        }
        r->group = xstrdup(dir);   /* the folder's traces are one capture */
        struct capture_file *f = add_file(x, r, p);
        if (f && f->problem)
            diag_add(x->d, DIAG_WARN, f->path, "%s", f->problem);
        if (f && f->kind == FK_TRACE_JSON && !f->problem)
            r->rank = trace_rank(p);
        if (r->rank < 0)
            r->rank = rank_from_name(l->e[i].name);
        added++;
        free(p);
    }
    return added > 0;
}

static bool add_plain(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    clean_base(dir, label, sizeof label);
    struct capture_rank *r = new_rank(x, dir, label, CLASS_A);
    if (!r)
        return false;
    /* Classify quietly first: a folder of unrelated JSON is not a rank. */
    struct diag *saved = x->d;
    x->d = NULL;
    size_t dropped = add_files_of(x, r, dir, l);
    x->d = saved;
    bool worthy = false, class_b = false;
    for (size_t i = 0; i < r->nfiles; i++) {
        struct capture_file *f = &r->files[i];
        worthy |= rank_worthy(f);
        class_b |= f->kind == FK_OP_SUMMARY || f->kind == FK_DB_MSPROF || starts_with(base_name(f->path), "msprof_");
    }
    if (!worthy) {
        rank_free(r);
        x->c->nranks--;
        return false;
    }
    for (size_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].problem)
            diag_add(x->d, DIAG_WARN, r->files[i].path, "%s", r->files[i].problem);
        if (r->files[i].skipped)
            diag_add(x->d, DIAG_INFO, r->files[i].path, "skipped: %s", r->files[i].skipped);
    }
    say_dropped(x, dir, dropped);
    r->cls = class_b ? CLASS_B : CLASS_A;
    char *parent = dir_name(dir);
    char pb[256];
    set_rank(x, r, label, clean_base(parent, pb, sizeof pb));
    free(parent);
    /* a folder named like a rank (rank0/, test_rank_1/) is a rank of the capture holding it;
     * any other folder of loose files is a capture of its own */
    if (rank_from_name(label) >= 0)
        set_group(r, dir);
    else
        r->group = xstrdup(dir);
    return true;
}

static bool is_rank_dir_name(const char *name)
{
    return ends_with_ci(name, "_ascend_pt") || ends_with_ci(name, "_ascend_ms");
}

static void scan(struct ctx *x, const char *dir, int depth)
{
    if (!visit(x, dir))
        return;
    strlist_add(&x->taken, dir);
    struct listing l;
    list_dir(dir, &l);
    if (l.err) {
        diag_add(x->d, depth ? DIAG_WARN : DIAG_ERROR, dir, "cannot open directory: %s", strerror(l.err));
        return;
    }
    if (l.truncated)
        diag_add(x->d, DIAG_WARN, dir, "more than %d entries; only the first are looked at", MAX_ENTRIES);
    char base[256];
    clean_base(dir, base, sizeof base);
    bool has_info = false;
    for (size_t i = 0; i < l.n; i++)
        has_info |= l.e[i].is_reg && starts_with(l.e[i].name, "profiler_info") && ends_with_ci(l.e[i].name, ".json");

    if (!strcmp(base, "ASCEND_PROFILER_OUTPUT") && depth == 0) {
        /* The rank is the parent: its profiler_info gives the rank id. */
        char *parent = dir_name(dir);
        struct listing pl;
        list_dir(parent, &pl);
        if (!pl.err)
            add_class_a(x, parent, &pl);
        listing_free(&pl);
        free(parent);
    } else if (is_rank_dir_name(base) || find_entry(&l, "ASCEND_PROFILER_OUTPUT", true) || has_info) {
        add_class_a(x, dir, &l);
    } else if (starts_with(base, "PROF_") || !strcmp(base, "mindstudio_profiler_output")
               || find_entry(&l, "mindstudio_profiler_output", true) || has_legacy_device(dir, &l)) {
        if (!strcmp(base, "mindstudio_profiler_output")) {
            struct capture_rank *r = new_rank(x, dir, base, CLASS_B);
            if (r) {
                char *prof = dir_name(dir);
                set_group(r, prof);
                free(prof);
                add_files_of(x, r, dir, &l);
                char *parent = dir_name(dir);
                char pb[256];
                set_rank(x, r, clean_base(parent, pb, sizeof pb), NULL);
                free(parent);
            }
        } else {
            add_class_b(x, dir, &l);
        }
    } else {
        /* Loose output files make a rank; the folders beside them are still searched (PROF_*
         * next to loose files, other captures). PROF_* beside *_ascend_pt dirs, or beside
         * loose torch_npu output, is raw data those already hold. */
        size_t before = x->c->nranks;
        bool plain = add_trace_ranks(x, dir, &l) || add_plain(x, dir, &l);
        bool loose_torch = plain && x->c->nranks > before && x->c->ranks[x->c->nranks - 1].cls == CLASS_A;
        walked(x, dir);
        bool has_rank_dirs = false;
        for (size_t i = 0; i < l.n; i++)
            has_rank_dirs |= l.e[i].is_dir && is_rank_dir_name(l.e[i].name);
        for (size_t i = 0; i < l.n; i++) {
            if (!l.e[i].is_dir || l.e[i].name[0] == '.')
                continue;
            char *p = join(dir, l.e[i].name);
            if ((has_rank_dirs || loose_torch) && starts_with(l.e[i].name, "PROF_")) {
                const char *why = has_rank_dirs ? "raw CANN data beside the rank directories"
                                                : "raw CANN data beside the loose torch_npu output it was analysed into";
                diag_add(x->d, DIAG_INFO, p, "skipped: %s", why);
                skip_add(x, p, "%s", why);
            } else if (depth >= MAX_DEPTH) {
                skip_add(x, p, "not searched: more than %d folder levels below %s", MAX_DEPTH, x->c->root);
            } else {
                scan(x, p, depth + 1);
            }
            free(p);
        }
    }
    listing_free(&l);
}

/* A single file: one rank in the file's directory. */
static void add_single_file(struct ctx *x, const char *path)
{
    char *dir = dir_name(path);
    char db[256], label[256];
    clean_base(dir, db, sizeof db);
    clean_base(path, label, sizeof label);
    struct capture_rank *r = new_rank(x, dir, label, CLASS_A);
    if (!r) {
        free(dir);
        return;
    }
    r->group = xstrdup(dir);
    struct capture_file *f = add_file(x, r, path);
    if (f && (f->kind == FK_OP_SUMMARY || f->kind == FK_DB_MSPROF || starts_with(label, "msprof_")))
        r->cls = CLASS_B;
    /* A file inside ASCEND_PROFILER_OUTPUT: the rank directory above names the rank. */
    char *parent = dir_name(dir);
    char pb[256];
    clean_base(parent, pb, sizeof pb);
    if (!strcmp(db, "ASCEND_PROFILER_OUTPUT")) {
        struct listing pl;
        list_dir(parent, &pl);
        for (size_t i = 0; i < pl.n && r->rank < 0; i++)
            if (pl.e[i].is_reg && starts_with(pl.e[i].name, "profiler_info") && ends_with_ci(pl.e[i].name, ".json")) {
                char *ip = join(parent, pl.e[i].name);
                r->rank = rank_from_info(x, ip);
                free(ip);
            }
        listing_free(&pl);
    }
    if (r->rank < 0 && f && f->kind == FK_TRACE_JSON && !f->problem)
        r->rank = trace_rank(path);
    if (r->rank < 0)
        r->rank = rank_from_name(db);
    if (r->rank < 0 && !strcmp(db, "ASCEND_PROFILER_OUTPUT"))
        r->rank = rank_from_name(pb);
    free(parent);
    free(dir);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const struct capture_file *)a)->path, ((const struct capture_file *)b)->path);
}

/* Order of discovery breaks ties so that sorting is stable. */
struct rank_slot { struct capture_rank r; size_t order; };

static int cmp_slot(const void *a, const void *b)
{
    const struct rank_slot *x = a, *y = b;
    if (x->r.rank != y->r.rank)
        return x->r.rank < y->r.rank ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Why discovery did not read an entry it saw in a folder it walked. */
static const char *skip_reason(const char *name, bool is_dir)
{
    if (name[0] == '.')
        return is_dir ? "hidden folder" : "hidden file";
    if (is_dir) {
        if (!strcmp(name, "FRAMEWORK"))
            return "raw framework data (the analysed output beside it is read)";
        if (starts_with(name, "PROF_"))
            return "raw CANN data of this rank (ASCEND_PROFILER_OUTPUT holds its analysis)";
        if (!strcmp(name, "data") || !strcmp(name, "sqlite") || !strcmp(name, "host") || starts_with(name, "device_")
            || !strcmp(name, "mindstudio_profiler_log") || !strcmp(name, "log") || !strcmp(name, "logs"))
            return "raw or intermediate profiler data, not read (its exported text or DB is)";
        return "holds nothing aptop reads at this place";
    }
    if (is_clock_name(name) || starts_with(name, "sample.json") || strstr(name, "start.log"))
        return "clock or collection information (read only beside a device's timeline)";
    if (!strcmp(name, "analyse.done"))
        return "marker: the analysis finished";
    if (!strcmp(name, "communication_group.json"))
        return "the cluster's parallel groups: read for the Ranks view and the ranks section (groups)";
    if (ends_with_ci(name, ".txt") || ends_with_ci(name, ".log") || ends_with_ci(name, ".md"))
        return "text, not profiling data";
    if (ends_with_ci(name, ".json") || ends_with_ci(name, ".csv"))
        return "not a timeline, table or database aptop reads (by name and content)";
    return "not a timeline, table or database aptop reads";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of a walked folder is a file of some rank, a folder walked or scanned, or an
 * artifact said skipped (with why): --list then names all it did not read. */
static void account_skipped(struct ctx *x)
{
    struct capture *c = x->c;
    for (int g = 0; g < 2; g++) {
        struct capture_rank *rs = g ? c->other : c->ranks;
        size_t n = g ? c->nother : c->nranks;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < rs[i].nfiles; k++)
                strlist_add(&x->taken, rs[i].files[k].path);
    }
    if (x->taken.n > 1)
        qsort(x->taken.v, x->taken.n, sizeof *x->taken.v, cmp_str);
    if (x->walked.n > 1)
        qsort(x->walked.v, x->walked.n, sizeof *x->walked.v, cmp_str);
    for (size_t w = 0; w < x->walked.n; w++) {
        if (w && !strcmp(x->walked.v[w], x->walked.v[w - 1]))
            continue;
        struct listing l;
        list_dir(x->walked.v[w], &l);
        for (size_t i = 0; i < l.n; i++) {
            char *p = join(x->walked.v[w], l.e[i].name);
            if (!bsearch(&p, x->taken.v, x->taken.n, sizeof *x->taken.v, cmp_str)) {
                struct capture_skip *ns = realloc(c->skipped, (c->nskipped + 1) * sizeof *ns);
                if (!ns)
                    abort();
                c->skipped = ns;
                c->skipped[c->nskipped++] = (struct capture_skip){ p, xstrdup(skip_reason(l.e[i].name, l.e[i].is_dir)) };
                p = NULL;
            }
            free(p);
        }
        listing_free(&l);
    }
}

static void rank_free(struct capture_rank *r)
{
    for (size_t k = 0; k < r->nfiles; k++) {
        free(r->files[k].path);
        free(r->files[k].problem);
        free(r->files[k].skipped);
        free(r->files[k].merge);
    }
    free(r->files);
    free(r->dir);
    free(r->label);
    free(r->problem);
    free(r->group);
}

/* Ranks of unrelated captures (different groups) are never ranks of one: the capture with
 * the most loadable ranks (then the most ranks, then the first found) is kept, the others
 * are moved to c->other, listed and said. */
static void group_captures(struct ctx *x)
{
    struct capture *c = x->c;
    size_t n = c->nranks, best = SIZE_MAX, best_n = 0, groups = 0;
    if (!n)
        return;
    /* every rank has its group before any is compared (a reader may leave it unset) */
    for (size_t i = 0; i < n; i++)
        if (!c->ranks[i].group)
            c->ranks[i].group = xstrdup(c->ranks[i].dir);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(c->ranks[k].group, c->ranks[i].group);
        if (seen)
            continue;
        groups++;
        size_t cnt = 0;
        for (size_t k = i; k < n; k++)
            if (!strcmp(c->ranks[k].group, c->ranks[i].group))
                cnt += 1 + (count_loadable(&c->ranks[k]) ? MAX_RANKS : 0);
        if (cnt > best_n) {
            best_n = cnt;
            best = i;
        }
    }
    c->ngroups = groups;
    if (groups < 2)
        return;
    const char *keep = c->ranks[best].group;
    struct capture_rank *kept = malloc(n * sizeof *kept), *other = malloc(n * sizeof *other);
    if (!kept || !other)
        abort();
    size_t nk = 0, no = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(c->ranks[i].group, keep))
            kept[nk++] = c->ranks[i];
        else
            other[no++] = c->ranks[i];
    }
    diag_add(x->d, DIAG_WARN, c->root, "%zu unrelated captures here (ranks grouped by the folder holding them); "
             "showing %s (%zu rank%s); %zu other%s listed by `aptop --list`, never as its ranks: open one on its own "
             "(several: aptop A B)",
             groups, kept[0].group, nk, nk == 1 ? "" : "s", groups - 1, groups == 2 ? "" : "s");
    for (size_t i = 0; i < no; i++) {
        bool first = true;
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(other[k].group, other[i].group) != 0;
        if (first)
            diag_add(x->d, DIAG_INFO, other[i].group, "another capture, not loaded with the one shown");
    }
    /* the other captures' ranks together, each capture in discovery order */
    struct capture_rank *sorted = malloc(no * sizeof *sorted + 1);
    bool *done = calloc(no + 1, 1);
    if (!sorted || !done)
        abort();
    size_t ns = 0;
    for (size_t i = 0; i < no; i++) {
        if (done[i])
            continue;   /* placed with an earlier rank of its capture */
        for (size_t k = i; k < no; k++)
            if (!done[k] && !strcmp(other[k].group, other[i].group)) {
                sorted[ns++] = other[k];
                done[k] = true;
            }
    }
    free(done);
    free(other);
    free(c->ranks);
    c->ranks = kept;
    c->nranks = nk;
    c->other = sorted;
    c->nother = no;
}

/* Unknown ranks take, in discovery order, the lowest numbers no known rank uses. */
static void finish_ranks(struct ctx *x)
{
    struct capture *c = x->c;
    size_t n = c->nranks;
    if (!n)
        return;
    for (size_t i = 0; i < n; i++)
        if (c->ranks[i].nfiles > 1)
            qsort(c->ranks[i].files, c->ranks[i].nfiles, sizeof *c->ranks[i].files, cmp_file);
    int next = 0;
    for (size_t i = 0; i < n; i++) {
        if (c->ranks[i].rank >= 0)
            continue;
        for (bool used = true; used; ) {
            used = false;
            for (size_t k = 0; k < n && !used; k++)
                used = c->ranks[k].rank == next;
            next += used;
        }
        c->ranks[i].rank = next++;
    }
    struct rank_slot *s = malloc(n * sizeof *s);
    if (!s)
        abort();
    for (size_t i = 0; i < n; i++)
        s[i] = (struct rank_slot){ c->ranks[i], i };
    qsort(s, n, sizeof *s, cmp_slot);
    for (size_t i = 0; i < n; i++)
        c->ranks[i] = s[i].r;
    free(s);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && c->ranks[j].rank == c->ranks[i].rank; j++)
            ;
        if (j - i > 1)
            diag_add(x->d, DIAG_WARN, c->ranks[i].dir, "rank %d is claimed by %zu directories (this one and %s%s); all are kept",
                     c->ranks[i].rank, j - i, c->ranks[i + 1].dir, j - i > 2 ? ", ..." : "");
    }
}

int capture_discover(const char *path, struct capture *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    out->root = xstrdup(path);
    struct ctx x = { .c = out, .d = d };
    struct stat st;
    if (!path || !path[0] || stat(path, &st) != 0) {
        diag_add(d, DIAG_ERROR, path ? path : "", "cannot open: %s", strerror(path && path[0] ? errno : ENOENT));
        return 1;
    }
    size_t errors_before = d ? diag_count_level(d, DIAG_ERROR) : 0;
    int summaries = S_ISDIR(st.st_mode) ? summary_discover(path, out, d) : -1;
    if (summaries >= 0)
        return summaries;   /* a folder of summary files (io/summary_json.h) */
    if (S_ISDIR(st.st_mode))
        scan(&x, path, 0);
    else if (S_ISREG(st.st_mode))
        add_single_file(&x, path);
    else {
        diag_add(d, DIAG_ERROR, path, "not a regular file or directory");
        return 1;
    }
    free(x.visited);
    group_captures(&x);
    finish_ranks(&x);
    account_skipped(&x);
    strlist_free(&x.walked);
    strlist_free(&x.taken);
    size_t files = 0, loadable = 0;
    for (size_t i = 0; i < out->nranks; i++) {
        files += out->ranks[i].nfiles;
        loadable += count_loadable(&out->ranks[i]);
    }
    if (loadable)
        return 0;
    if (d && diag_count_level(d, DIAG_ERROR) > errors_before)
        return 1;   /* already said why (e.g. the directory cannot be opened) */
    if (!files && S_ISDIR(st.st_mode)) {
        struct listing l;
        list_dir(path, &l);
        bool empty = !l.err && l.n == 0;
        listing_free(&l);
        diag_add(d, DIAG_ERROR, path, empty ? "empty directory: no profiling data"
                 : "no profiling data found (looked for *_ascend_pt, ASCEND_PROFILER_OUTPUT, PROF_*, "
                   "trace_view.json, kernel_details.csv, op_summary_*.csv, msprof_*.json, *.db up to %d levels down)",
                 MAX_DEPTH);
    } else if (!S_ISDIR(st.st_mode) && !(files && out->ranks[0].files[0].problem)) {
        diag_add(d, DIAG_ERROR, path, "not a profiling file (expected a trace .json, a kernel .csv, or a .db/.dat)");
    } else {
        diag_add(d, DIAG_ERROR, path, "nothing loadable: %zu file%s found, none usable (see the problems listed)",
                 files, files == 1 ? "" : "s");
    }
    return 1;
}

void capture_free(struct capture *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nranks; i++)
        rank_free(&c->ranks[i]);
    for (size_t i = 0; i < c->nother; i++)
        rank_free(&c->other[i]);
    for (size_t i = 0; i < c->nskipped; i++) {
        free(c->skipped[i].path);
        free(c->skipped[i].why);
    }
    free(c->skipped);
    free(c->other);
    free(c->ranks);
    free(c->root);
    memset(c, 0, sizeof *c);
}

/* ---- printing ------------------------------------------------------------------------ */


/* Writes untrusted text (paths, names from files) with anything unsafe for a terminal
 * escaped (model/escape.h). */
static void put_escaped(FILE *fp, const char *str)
{
    size_t len = strlen(str);
    size_t size = len * 6 + 1;   /* \uNNNN is the longest expansion of one byte */
    char stackbuf[1024];
    char *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    if (!buf)
        return;
    text_escape(str, len, buf, size);
    fputs(buf, fp);
    if (buf != stackbuf)
        free(buf);
}

static void human_size(uint64_t b, char *buf, size_t size)
{
    if (b < 1024)
        snprintf(buf, size, "%llu B", (unsigned long long)b);
    else if (b < 1024ULL * 1024)
        snprintf(buf, size, "%.1f KiB", b / 1024.0);
    else if (b < 1024ULL * 1024 * 1024)
        snprintf(buf, size, "%.1f MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, size, "%.1f GiB", b / (1024.0 * 1024 * 1024));
}

/* Why a listed file without a problem is not read, or NULL when it is read. */
static const char *not_read_reason(const struct capture_file *f)
{
    if (f->skipped)
        return f->skipped;
    switch (f->kind) {
    case FK_UNKNOWN: return "not a timeline, table or database aptop reads";
    case FK_OTHER_CSV: return "a table aptop lists but does not interpret";
    case FK_OTHER_JSON: return "a JSON file aptop does not interpret";
    case FK_PROFILER_METADATA: return "environment and parallel settings, not figures";
    case FK_DB_OTHER: return "an SQLite file without profiler tables (TASK, StepTraceTime, CommAnalyzer*)";
    default: return NULL;
    }
}

/* One rank: its files with sizes, problems and why any is not read. Counts into the totals. */
static void print_rank(const struct capture_rank *r, FILE *fp, size_t *files, size_t *bad, size_t *loadable,
                       size_t *unread, uint64_t *bytes)
{
    char sz[32];
    if (r->rank >= 0)
        fprintf(fp, "rank %d  device ", r->rank);
    else
        fputs("rank ?  device ", fp);
    if (r->device >= 0)
        fprintf(fp, "%d", r->device);
    else
        fputs("-", fp);
    fprintf(fp, "  class %s  ", capture_class_name(r->cls));
    put_escaped(fp, r->label);
    fputs("\n  dir ", fp);
    put_escaped(fp, r->dir);
    fputc('\n', fp);
    size_t dl = strlen(r->dir);
    for (size_t k = 0; k < r->nfiles; k++) {
        const struct capture_file *f = &r->files[k];
        const char *shown = f->path;
        if (!strncmp(shown, r->dir, dl) && shown[dl] == '/')
            shown += dl + 1;
        human_size(f->size, sz, sizeof sz);
        fprintf(fp, "    %-17s %10s  ", file_kind_name(f->kind), sz);
        put_escaped(fp, shown);
        const char *nr = f->problem ? NULL : not_read_reason(f);
        if (f->problem) {
            fputs("  [", fp);
            put_escaped(fp, f->problem);
            fputc(']', fp);
            (*bad)++;
        } else if (nr) {
            fputs(f->skipped ? "  [skipped: " : "  [not read: ", fp);
            put_escaped(fp, nr);
            fputc(']', fp);
            (*unread)++;
        }
        fputc('\n', fp);
        (*files)++;
        *bytes += f->size;
        *loadable += capture_file_loadable(f);
    }
}

void capture_print(const struct capture *c, FILE *fp)
{
    size_t files = 0, bad = 0, loadable = 0, nprob = 0, unread = 0;
    uint64_t bytes = 0;
    char sz[32];
    if (c->ngroups > 1 && c->nranks) {
        fputs("capture ", fp);
        put_escaped(fp, c->ranks[0].group ? c->ranks[0].group : c->root);
        fprintf(fp, "  (shown; %zu other capture%s below, not loaded)\n", c->ngroups - 1, c->ngroups == 2 ? "" : "s");
    }
    for (size_t i = 0; i < c->nranks; i++) {
        const struct capture_rank *r = &c->ranks[i];
        print_rank(r, fp, &files, &bad, &loadable, &unread, &bytes);
        if (r->problem) {
            fputs("  problem: ", fp);
            put_escaped(fp, r->problem);
            fputc('\n', fp);
            nprob++;
        }
    }
    if (c->nskipped) {
        fprintf(fp, "skipped (%zu):\n", c->nskipped);
        for (size_t i = 0; i < c->nskipped; i++) {
            fputs("    ", fp);
            put_escaped(fp, c->skipped[i].path);
            fputs("  [", fp);
            put_escaped(fp, c->skipped[i].why);
            fputs("]\n", fp);
        }
    }
    size_t ofiles = 0, obad = 0, oload = 0, ounread = 0;
    uint64_t obytes = 0;
    for (size_t i = 0; i < c->nother; i++) {
        const struct capture_rank *r = &c->other[i];
        if (!i || strcmp(r->group, c->other[i - 1].group)) {
            fputs("other capture (not loaded; open it on its own): ", fp);
            put_escaped(fp, r->group);
            fputc('\n', fp);
        }
        fputs("  ", fp);
        print_rank(r, fp, &ofiles, &obad, &oload, &ounread, &obytes);
    }
    human_size(bytes, sz, sizeof sz);
    fprintf(fp, "%zu rank%s, %zu file%s (%s), %zu loadable, %zu with problems",
            c->nranks, c->nranks == 1 ? "" : "s", files, files == 1 ? "" : "s", sz, loadable, bad);
    if (nprob)
        fprintf(fp, ", %zu rank%s not ready", nprob, nprob == 1 ? "" : "s");
    if (unread || c->nskipped)
        fprintf(fp, ", %zu listed file%s not read, %zu other artifact%s skipped", unread, unread == 1 ? "" : "s",
                c->nskipped, c->nskipped == 1 ? "" : "s");
    if (c->nother)
        fprintf(fp, "; %zu other capture%s (%zu rank%s) not loaded", c->ngroups - 1, c->ngroups == 2 ? "" : "s",
                c->nother, c->nother == 1 ? "" : "s");
    fputc('\n', fp);
}
