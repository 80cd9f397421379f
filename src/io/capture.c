/* Capture discovery. Walks what the user typed (bounded depth, bounded entries, each
 * directory once), decides what each directory is (a Class A rank dir, its
 * ASCEND_PROFILER_OUTPUT, a PROF_* tree, a folder holding output files, or a folder of
 * such folders), classifies files from their name and first bytes, and reads nothing else
 * but profiler_info*.json. Everything is opened O_RDONLY; nothing is ever written.
 * This file holds the file kinds, the classification and the walk; path helpers and listings
 * are in capture_fs.c, ranks and their files in capture_ranks.c, the rank layouts in
 * capture_layout.c, --list in capture_print.c. */
#include "io/capture.h"
#include "io/capture_internal.h"
#include "io/fd_read.h"
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

const char *file_kind_name(enum file_kind k)
{
#define FK_NAME(id, name, table, read, reader, peak, loadable, unread) [id] = name,
    static const char *const names[FK_COUNT] = { FILE_KINDS(FK_NAME) };
#undef FK_NAME
    return (unsigned)k < FK_COUNT ? names[k] : "unknown";
}

const char *capture_class_name(enum capture_class c)
{
    return c == CLASS_A ? "A" : c == CLASS_B ? "B" : "?";
}

bool capture_file_loadable(const struct capture_file *f)
{
#define FK_LOADABLE(id, name, table, read, reader, peak, loadable, unread) [id] = loadable,
    static const bool loadable_kind[FK_COUNT] = { FILE_KINDS(FK_LOADABLE) };
#undef FK_LOADABLE
    return !f->problem && !f->skipped && (unsigned)f->kind < FK_COUNT && loadable_kind[f->kind];
}

/* ---- file classification ------------------------------------------------------------- */

bool cap_listable_name(const char *name)
{
    if (name[0] == '.')
        return false;
    return cap_ends_with_ci(name, ".json") || cap_ends_with_ci(name, ".json.gz") || cap_ends_with_ci(name, ".csv") || cap_ends_with_ci(name, ".db")
        || cap_ends_with_ci(name, ".dat");
}

/* msprof_<digits>..., op_summary_<digits>...: Class B file names carry a number after the stem. */
bool cap_stem_digits(const char *name, const char *stem)
{
    return cap_starts_with(name, stem) && isdigit((unsigned char)name[strlen(stem)]);
}

/* How a file name is matched: from its start, whole, by its end, or as a Class B stem
 * followed by a digit (cap_stem_digits). */
enum name_match { NAME_PREFIX, NAME_WHOLE, NAME_SUFFIX, NAME_STEM_DIGITS };

struct name_rule {
    enum name_match match;
    const char *text;
    enum file_kind kind;
};

/* The first rule that matches names the kind; the order matters only where one name could
 * match two rules (profiler_info before the trace stems). */
static const struct name_rule json_names[] = {
    { NAME_PREFIX, "profiler_info", FK_PROFILER_INFO },
    { NAME_WHOLE, "profiler_metadata.json", FK_PROFILER_METADATA },
    { NAME_WHOLE, "communication.json", FK_COMMUNICATION },
    { NAME_WHOLE, "communication_matrix.json", FK_COMM_MATRIX },
    { NAME_PREFIX, "trace_view", FK_TRACE_JSON },
    { NAME_PREFIX, "msprof_", FK_TRACE_JSON },
    { NAME_SUFFIX, ".pt.trace.json", FK_TRACE_JSON },
};

static const struct name_rule csv_names[] = {
    { NAME_PREFIX, "kernel_details", FK_KERNEL_DETAILS },
    { NAME_PREFIX, "op_summary", FK_OP_SUMMARY },
    { NAME_PREFIX, "op_statistic", FK_OP_STATISTIC },
    { NAME_PREFIX, "operator_details", FK_OPERATOR_DETAILS },
    { NAME_PREFIX, "api_statistic", FK_API_STATISTIC },
    { NAME_PREFIX, "step_trace_time", FK_STEP_TRACE_TIME },
    { NAME_STEM_DIGITS, "step_trace_", FK_STEP_TRACE_TIME },
    { NAME_PREFIX, "task_time", FK_TASK_TIME },
    { NAME_PREFIX, "communication_statistic", FK_COMM_STATISTIC },
    { NAME_PREFIX, "memory_record", FK_MEMORY_CSV },
    { NAME_PREFIX, "ge_memory_record", FK_MEMORY_CSV },
    { NAME_PREFIX, "operator_memory", FK_MEMORY_CSV },
    { NAME_PREFIX, "ge_operator_memory", FK_MEMORY_CSV },
    { NAME_PREFIX, "npu_module_mem", FK_MEMORY_CSV },
    { NAME_PREFIX, "npu_mem", FK_MEMORY_CSV },
    { NAME_PREFIX, "static_op_mem", FK_MEMORY_CSV },
};

static const struct name_rule db_names[] = {
    { NAME_PREFIX, "ascend_pytorch_profiler", FK_DB_TORCH },
    { NAME_PREFIX, "msprof_", FK_DB_MSPROF },
    { NAME_PREFIX, "analysis.", FK_DB_ANALYSIS },
};

static bool name_matches(const char *name, const struct name_rule *r)
{
    switch (r->match) {
    case NAME_PREFIX: return cap_starts_with(name, r->text);
    case NAME_WHOLE: return !strcmp(name, r->text);
    case NAME_SUFFIX: return cap_ends_with_ci(name, r->text);
    case NAME_STEM_DIGITS: return cap_stem_digits(name, r->text);
    }
    return false;
}

/* The kind of the first of rules[0..n) that name matches, else otherwise. */
static enum file_kind kind_by_rules(const char *name, const struct name_rule *rules, size_t n,
                                    enum file_kind otherwise)
{
    for (size_t i = 0; i < n; i++)
        if (name_matches(name, &rules[i]))
            return rules[i].kind;
    return otherwise;
}

#define KIND_BY_RULES(name, rules, otherwise) kind_by_rules(name, rules, sizeof rules / sizeof *rules, otherwise)

static enum file_kind kind_from_name(const char *name)
{
    if (cap_ends_with_ci(name, ".json"))
        return KIND_BY_RULES(name, json_names, FK_OTHER_JSON);
    if (cap_ends_with_ci(name, ".csv"))
        return KIND_BY_RULES(name, csv_names, FK_OTHER_CSV);
    return FK_UNKNOWN;
}

static enum file_kind db_kind_from_name(const char *name)
{
    return KIND_BY_RULES(name, db_names, FK_DB_OTHER);
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
    if (cap_starts_with(key, "step")) {
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
    return cap_xstrdup(buf);
}

/* The first n bytes of a plain file; the count, or -1. */
long cap_read_head(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = fd_read_head(fd, buf, n, NULL);
    close(fd);
    return (long)got;
}

/* Fills kind, size and problem of f (path set) from its name and first bytes. */
void cap_classify_file(struct capture_file *f)
{
    const char *name = cap_base_name(f->path);
    struct stat st;
    /* x.json.gz is classified as x.json (by its decompressed head below) */
    char plain[256];
    if (cap_ends_with_ci(name, ".gz") && strlen(name) - 3 < sizeof plain) {
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
        f->problem = cap_xstrdup("not a regular file");
        return;
    }
    int fd = open(f->path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        f->problem = fmt_problem("not readable: %s", strerror(errno));
        return;
    }
    char buf[SNIFF_BYTES];
    int read_err;
    size_t got = fd_read_head(fd, buf, sizeof buf, &read_err);
    close(fd);
    if (read_err) {
        f->problem = fmt_problem("not readable: %s", strerror(read_err));
        return;
    }
    if (f->size == 0 || got == 0) {
        f->problem = cap_xstrdup("0-byte file (empty)");
        if (cap_ends_with_ci(name, ".db") || cap_ends_with_ci(name, ".dat"))
            f->kind = db_kind_from_name(name);
        return;
    }
    size_t n = got;
    if (gz_magic(buf, n) || (cap_ends_with_ci(name, ".json") && n == sizeof buf)) {
        /* gzip under any name (what matters is what it holds), or a long JSON head: a
         * Kineto trace may write kilobytes of metadata before "traceEvents" */
        char err[160], *head = malloc(HEAD_BYTES);
        if (!head)
            abort();
        long k = gz_magic(buf, n) ? gz_read_range(f->path, 0, head, HEAD_BYTES, err, sizeof err)
                                  : cap_read_head(f->path, head, HEAD_BYTES);
        if (k <= 0 && gz_magic(buf, n)) {
            f->problem = k < 0 ? fmt_problem("gzip: %s", err) : cap_xstrdup("gzip file with no data (truncated?)");
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
    if (cap_ends_with_ci(name, ".db")) {
        f->kind = db_kind_from_name(name);
        f->problem = cap_xstrdup("not an SQLite database (no SQLite header)");
        return;
    }
    if (cap_ends_with_ci(name, ".dat")) {
        f->kind = FK_UNKNOWN;
        return;
    }
    /* a collective's summary (hccl_*.csv) lists ops with durations too: never a kernel table */
    if (cap_ends_with_ci(name, ".csv") && !cap_starts_with(name, "hccl_"))
        f->kind = kind_from_csv_header(buf, n, f->kind);
    else if (cap_ends_with_ci(name, ".json"))
        f->kind = kind_from_json_head(buf, n, f->kind);
}

static void scan(struct ctx *x, const char *dir, int depth)
{
    if (!cap_visit(x, dir))
        return;
    cap_strlist_add(&x->taken, dir);
    struct listing l;
    cap_list_dir(dir, &l);
    if (l.err) {
        diag_add(x->d, depth ? DIAG_WARN : DIAG_ERROR, dir, "cannot open directory: %s", strerror(l.err));
        return;
    }
    if (l.truncated)
        diag_add(x->d, DIAG_WARN, dir, "more than %d entries; only the first are looked at", MAX_ENTRIES);
    char base[256];
    cap_clean_base(dir, base, sizeof base);
    bool has_info = false;
    for (size_t i = 0; i < l.n; i++)
        has_info |= l.e[i].is_reg && cap_starts_with(l.e[i].name, "profiler_info") && cap_ends_with_ci(l.e[i].name, ".json");

    if (!strcmp(base, "ASCEND_PROFILER_OUTPUT") && depth == 0) {
        /* The rank is the parent: its profiler_info gives the rank id. */
        char *parent = cap_dir_name(dir);
        struct listing pl;
        cap_list_dir(parent, &pl);
        if (!pl.err)
            cap_add_class_a(x, parent, &pl);
        cap_listing_free(&pl);
        free(parent);
    } else if (cap_is_rank_dir_name(base) || cap_find_entry(&l, "ASCEND_PROFILER_OUTPUT", true) || has_info) {
        cap_add_class_a(x, dir, &l);
    } else if (cap_starts_with(base, "PROF_") || !strcmp(base, "mindstudio_profiler_output")
               || cap_find_entry(&l, "mindstudio_profiler_output", true) || cap_has_legacy_device(dir, &l)) {
        if (!strcmp(base, "mindstudio_profiler_output")) {
            struct capture_rank *r = cap_new_rank(x, dir, base, CLASS_B);
            if (r) {
                char *prof = cap_dir_name(dir);
                cap_set_group(r, prof);
                free(prof);
                cap_add_files_of(x, r, dir, &l);
                char *parent = cap_dir_name(dir);
                char pb[256];
                cap_set_rank(x, r, cap_clean_base(parent, pb, sizeof pb), NULL);
                free(parent);
            }
        } else {
            cap_add_class_b(x, dir, &l);
        }
    } else {
        /* Loose output files make a rank; the folders beside them are still searched (PROF_*
         * next to loose files, other captures). PROF_* beside *_ascend_pt dirs, or beside
         * loose torch_npu output, is raw data those already hold. */
        size_t before = x->c->nranks;
        bool plain = cap_add_trace_ranks(x, dir, &l) || cap_add_plain(x, dir, &l);
        bool loose_torch = plain && x->c->nranks > before && x->c->ranks[x->c->nranks - 1].cls == CLASS_A;
        cap_walked(x, dir);
        bool has_rank_dirs = false;
        for (size_t i = 0; i < l.n; i++)
            has_rank_dirs |= l.e[i].is_dir && cap_is_rank_dir_name(l.e[i].name);
        for (size_t i = 0; i < l.n; i++) {
            if (!l.e[i].is_dir || l.e[i].name[0] == '.')
                continue;
            char *p = cap_join(dir, l.e[i].name);
            if ((has_rank_dirs || loose_torch) && cap_starts_with(l.e[i].name, "PROF_")) {
                const char *why = has_rank_dirs ? "raw CANN data beside the rank directories"
                                                : "raw CANN data beside the loose torch_npu output it was analysed into";
                diag_add(x->d, DIAG_INFO, p, "skipped: %s", why);
                cap_skip_add(x, p, "%s", why);
            } else if (depth >= MAX_DEPTH) {
                cap_skip_add(x, p, "not searched: more than %d folder levels below %s", MAX_DEPTH, x->c->root);
            } else {
                scan(x, p, depth + 1);
            }
            free(p);
        }
    }
    cap_listing_free(&l);
}

/* A single file: one rank in the file's directory. */
static void add_single_file(struct ctx *x, const char *path)
{
    char *dir = cap_dir_name(path);
    char db[256], label[256];
    cap_clean_base(dir, db, sizeof db);
    cap_clean_base(path, label, sizeof label);
    struct capture_rank *r = cap_new_rank(x, dir, label, CLASS_A);
    if (!r) {
        free(dir);
        return;
    }
    r->group = cap_xstrdup(dir);
    struct capture_file *f = cap_add_file(x, r, path);
    if (f && (f->kind == FK_OP_SUMMARY || f->kind == FK_DB_MSPROF || cap_starts_with(label, "msprof_")))
        r->cls = CLASS_B;
    /* A file inside ASCEND_PROFILER_OUTPUT: the rank directory above names the rank. */
    char *parent = cap_dir_name(dir);
    char pb[256];
    cap_clean_base(parent, pb, sizeof pb);
    if (!strcmp(db, "ASCEND_PROFILER_OUTPUT")) {
        struct listing pl;
        cap_list_dir(parent, &pl);
        for (size_t i = 0; i < pl.n && r->rank < 0; i++)
            if (pl.e[i].is_reg && cap_starts_with(pl.e[i].name, "profiler_info") && cap_ends_with_ci(pl.e[i].name, ".json")) {
                char *ip = cap_join(parent, pl.e[i].name);
                r->rank = cap_rank_from_info(x, ip);
                free(ip);
            }
        cap_listing_free(&pl);
    }
    if (r->rank < 0 && f && f->kind == FK_TRACE_JSON && !f->problem)
        r->rank = cap_trace_rank(path);
    if (r->rank < 0)
        r->rank = cap_rank_from_name(db);
    if (r->rank < 0 && !strcmp(db, "ASCEND_PROFILER_OUTPUT"))
        r->rank = cap_rank_from_name(pb);
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
        if (cap_starts_with(name, "PROF_"))
            return "raw CANN data of this rank (ASCEND_PROFILER_OUTPUT holds its analysis)";
        if (!strcmp(name, "data") || !strcmp(name, "sqlite") || !strcmp(name, "host") || cap_starts_with(name, "device_")
            || !strcmp(name, "mindstudio_profiler_log") || !strcmp(name, "log") || !strcmp(name, "logs"))
            return "raw or intermediate profiler data, not read (its exported text or DB is)";
        return "holds nothing aptop reads at this place";
    }
    if (cap_is_clock_name(name) || cap_starts_with(name, "sample.json") || strstr(name, "start.log"))
        return "clock or collection information (read only beside a device's timeline)";
    if (!strcmp(name, "analyse.done"))
        return "marker: the analysis finished";
    if (!strcmp(name, "communication_group.json"))
        return "the cluster's parallel groups: read for the Ranks view and the ranks section (groups)";
    if (cap_ends_with_ci(name, ".txt") || cap_ends_with_ci(name, ".log") || cap_ends_with_ci(name, ".md"))
        return "text, not profiling data";
    if (cap_ends_with_ci(name, ".json") || cap_ends_with_ci(name, ".csv"))
        return "not a timeline, table or database aptop reads (by name and content)";
    return "not a timeline, table or database aptop reads";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of a walked folder is a file of some rank, a folder walked or scanned, or an
 * artifact said skipped (with why): --list then names all it did not read. */
void cap_account_skipped(struct ctx *x)
{
    struct capture *c = x->c;
    for (int g = 0; g < 2; g++) {
        struct capture_rank *rs = g ? c->other : c->ranks;
        size_t n = g ? c->nother : c->nranks;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < rs[i].nfiles; k++)
                cap_strlist_add(&x->taken, rs[i].files[k].path);
    }
    if (x->taken.n > 1)
        qsort(x->taken.v, x->taken.n, sizeof *x->taken.v, cmp_str);
    if (x->walked.n > 1)
        qsort(x->walked.v, x->walked.n, sizeof *x->walked.v, cmp_str);
    for (size_t w = 0; w < x->walked.n; w++) {
        if (w && !strcmp(x->walked.v[w], x->walked.v[w - 1]))
            continue;
        struct listing l;
        cap_list_dir(x->walked.v[w], &l);
        for (size_t i = 0; i < l.n; i++) {
            char *p = cap_join(x->walked.v[w], l.e[i].name);
            if (!bsearch(&p, x->taken.v, x->taken.n, sizeof *x->taken.v, cmp_str)) {
                cap_skip_take(c, p, cap_xstrdup(skip_reason(l.e[i].name, l.e[i].is_dir)));
                p = NULL;
            }
            free(p);
        }
        cap_listing_free(&l);
    }
}

void cap_rank_free(struct capture_rank *r)
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
            c->ranks[i].group = cap_xstrdup(c->ranks[i].dir);
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
                cnt += 1 + (cap_count_loadable(&c->ranks[k]) ? MAX_RANKS : 0);
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
    out->root = cap_xstrdup(path);
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
    cap_account_skipped(&x);
    cap_strlist_free(&x.walked);
    cap_strlist_free(&x.taken);
    size_t files = 0, loadable = 0;
    for (size_t i = 0; i < out->nranks; i++) {
        files += out->ranks[i].nfiles;
        loadable += cap_count_loadable(&out->ranks[i]);
    }
    if (loadable)
        return 0;
    if (d && diag_count_level(d, DIAG_ERROR) > errors_before)
        return 1;   /* already said why (e.g. the directory cannot be opened) */
    if (!files && S_ISDIR(st.st_mode)) {
        struct listing l;
        cap_list_dir(path, &l);
        bool empty = !l.err && l.n == 0;
        cap_listing_free(&l);
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
        cap_rank_free(&c->ranks[i]);
    for (size_t i = 0; i < c->nother; i++)
        cap_rank_free(&c->other[i]);
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
