/* What kind of file a capture file is (enum file_kind, io/discovery/file_kinds.h): from its name by the
 * rule tables below, then from its first bytes where names may lie (the CSV header, the JSON
 * head, gzip, the SQLite header and tables). Reads at most a head of each file; its size and
 * what is wrong with it are found on the way. */
#include "io/discovery/capture.h"
#include "io/discovery/capture_internal.h"
#include "io/db/db_util.h"
#include "io/files/gz_stream.h"
#include "io/tables/memory_read.h"
#include "util/oom.h"
#include "util/read_full.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A rule by how it matches: PREFIX("op_summary", FK_OP_SUMMARY). */
#define PREFIX(text, kind) { NAME_PREFIX, text, kind }
#define WHOLE(text, kind) { NAME_WHOLE, text, kind }
#define SUFFIX(text, kind) { NAME_SUFFIX, text, kind }
#define STEM_DIGITS(text, kind) { NAME_STEM_DIGITS, text, kind }

/* The first rule that matches names the kind; the order matters only where one name could
 * match two rules (profiler_info before the trace stems). */
static const struct name_rule json_names[] = {
    PREFIX("profiler_info", FK_PROFILER_INFO),
    WHOLE("profiler_metadata.json", FK_PROFILER_METADATA),
    WHOLE("communication.json", FK_COMMUNICATION),
    WHOLE("communication_matrix.json", FK_COMM_MATRIX),
    PREFIX("trace_view", FK_TRACE_JSON),
    PREFIX("msprof_", FK_TRACE_JSON),
    SUFFIX(".pt.trace.json", FK_TRACE_JSON),
};

static const struct name_rule csv_names[] = {
    PREFIX("kernel_details", FK_KERNEL_DETAILS),
    PREFIX("op_summary", FK_OP_SUMMARY),
    PREFIX("op_statistic", FK_OP_STATISTIC),
    PREFIX("operator_details", FK_OPERATOR_DETAILS),
    PREFIX("api_statistic", FK_API_STATISTIC),
    PREFIX("step_trace_time", FK_STEP_TRACE_TIME),
    STEM_DIGITS("step_trace_", FK_STEP_TRACE_TIME),
    PREFIX("task_time", FK_TASK_TIME),
    PREFIX("communication_statistic", FK_COMM_STATISTIC),
};

static const struct name_rule db_names[] = {
    PREFIX("ascend_pytorch_profiler", FK_DB_TORCH),
    PREFIX("msprof_", FK_DB_MSPROF),
    PREFIX("analysis.", FK_DB_ANALYSIS),
};

#undef PREFIX
#undef WHOLE
#undef SUFFIX
#undef STEM_DIGITS

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
    if (cap_ends_with_ci(name, ".csv")) {
        /* the memory CSVs: the names the memory reader knows */
        enum file_kind k = KIND_BY_RULES(name, csv_names, FK_OTHER_CSV);
        return k == FK_OTHER_CSV && memory_file_kind(name) != MEMF_UNKNOWN ? FK_MEMORY_CSV : k;
    }
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
    /* a step table names its step; MindSpore's step_trace_raw_N_detail_time.csv and the
     * like (step_num, fp_point, ...) are other tables, whatever they are called */
    if (by_name == FK_STEP_TRACE_TIME && !has_col(buf, hl, "Step") && !has_col(buf, hl, "Iteration ID")
        && !has_col(buf, hl, "Step ID"))
        return FK_OTHER_CSV;
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
    /* An array is a trace when its events say so ("ph"), or when it holds no object yet (a
     * trace cut short); communication_matrix.json is an array too (of {"op_name",
     * "link_info"}), and so are other tools' notes beside the traces (a list of plain objects
     * such as execution_details.json): those are not traces, whatever their size. */
    if (*p == '[') {
        if (mem_has(p, (size_t)(end - p), "\"ph\"") || !memchr(p, '{', (size_t)(end - p)) || by_name == FK_TRACE_JSON)
            return FK_TRACE_JSON;
        return by_name == FK_COMM_MATRIX ? FK_COMM_MATRIX : FK_OTHER_JSON;
    }
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
    size_t got = read_full(fd, buf, n);
    close(fd);
    return (long)got;
}

/* f's size and its first SNIFF_BYTES into buf (*got of them); false, with f->problem said,
 * when it cannot be read. */
static bool read_sniff(struct capture_file *f, char *buf, size_t *got)
{
    struct stat st;
    if (stat(f->path, &st) != 0) {
        f->problem = fmt_problem("cannot stat: %s", strerror(errno));
        return false;
    }
    f->size = (uint64_t)st.st_size;
    if (!S_ISREG(st.st_mode)) {
        f->problem = cap_xstrdup("not a regular file");
        return false;
    }
    int fd = open(f->path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        f->problem = fmt_problem("not readable: %s", strerror(errno));
        return false;
    }
    /* read_full stops early at the end of the file or on an error: errno tells them apart
     * (EINTR only from a read it resumed) */
    errno = 0;
    *got = read_full(fd, buf, SNIFF_BYTES);
    int read_err = *got < SNIFF_BYTES && errno != EINTR ? errno : 0;
    close(fd);
    if (read_err) {
        f->problem = fmt_problem("not readable: %s", strerror(read_err));
        return false;
    }
    return true;
}

/* gzip under any name (what matters is what it holds), or a long JSON head: a Kineto trace
 * may write kilobytes of metadata before "traceEvents". Reads up to HEAD_BYTES (decompressed)
 * and decides f's kind from them; false when the sniffed bytes buf[0..n) are neither, or a
 * long JSON head could not be read again. */
static bool classify_long_head(struct capture_file *f, const char *name, const char *buf, size_t n)
{
    bool gz = gz_magic(buf, n);
    if (!gz && !(cap_ends_with_ci(name, ".json") && n == SNIFF_BYTES))
        return false;
    char err[160], *head = malloc(HEAD_BYTES);
    if (!head)
        oom_exit("a trace's head", HEAD_BYTES);
    long k = gz ? gz_read_range(f->path, 0, head, HEAD_BYTES, err, sizeof err) : cap_read_head(f->path, head, HEAD_BYTES);
    if (k <= 0 && gz) {
        f->problem = k < 0 ? fmt_problem("gzip: %s", err) : cap_xstrdup("gzip file with no data (truncated?)");
        f->kind = FK_TRACE_JSON;
    } else if (k > 0) {
        f->kind = kind_from_json_head(head, (size_t)k, f->kind == FK_UNKNOWN ? FK_OTHER_JSON : f->kind);
    }
    free(head);
    return k > 0 || gz;
}

/* f's kind from its first bytes buf[0..n): SQLite by its header, CSV by its header line,
 * JSON by its head; .db and .dat names that are not SQLite said so. */
static void classify_by_head(struct capture_file *f, const char *name, const char *buf, size_t n)
{
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

/* Fills kind, size and problem of f (path set) from its name and first bytes. */
void cap_classify_file(struct capture_file *f)
{
    const char *name = cap_base_name(f->path);
    /* x.json.gz is classified as x.json (by its decompressed head) */
    char plain[256];
    if (cap_ends_with_ci(name, ".gz") && strlen(name) - 3 < sizeof plain) {
        snprintf(plain, sizeof plain, "%.*s", (int)(strlen(name) - 3), name);
        name = plain;
    }
    f->kind = kind_from_name(name);
    char buf[SNIFF_BYTES];
    size_t n;
    if (!read_sniff(f, buf, &n))
        return;
    if (f->size == 0 || n == 0) {
        f->problem = cap_xstrdup("0-byte file (empty)");
        if (cap_ends_with_ci(name, ".db") || cap_ends_with_ci(name, ".dat"))
            f->kind = db_kind_from_name(name);
        return;
    }
    if (!classify_long_head(f, name, buf, n))
        classify_by_head(f, name, buf, n);
}
