/* Capture layouts: rank and device ids from profiler_info*.json and folder names, the
 * Class A (ASCEND_PROFILER_OUTPUT) and Class B (PROF_*) rank folders, per-rank traces and
 * plain folders of output files. */
#include "io/discovery/capture.h"
#include "io/discovery/capture_internal.h"

#include "io/db/db_util.h"
#include "util/oom.h"
#include "io/files/gz_stream.h"
#include "io/trace/kineto.h"
#include "util/read_full.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char ANALYSE_LINE[] = "from torch_npu.profiler.profiler import analyse; analyse(\"%s\")";

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
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf)
        oom_exit("a profiler info file", n + 1);
    size_t got = read_full(fd, buf, n);
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
int cap_rank_from_info(struct ctx *x, const char *path)
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
int cap_rank_from_name(const char *name)
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
void cap_set_rank(struct ctx *x, struct capture_rank *r, const char *name1, const char *name2)
{
    for (size_t i = 0; i < r->nfiles && r->rank < 0; i++)
        if (r->files[i].kind == FK_PROFILER_INFO && !r->files[i].problem) {
            r->rank = cap_rank_from_info(x, r->files[i].path);
            if (r->device < 0)
                r->device = device_from_info(x, r->files[i].path);
        }
    if (r->rank < 0 && name1)
        r->rank = cap_rank_from_name(name1);
    if (r->rank < 0 && name2)
        r->rank = cap_rank_from_name(name2);
}

/* The one device_<id> directory in dir, or -1 when none or several. */
static int single_device(const struct listing *l)
{
    int dev = -1, n = 0;
    for (size_t i = 0; i < l->n; i++) {
        int id = l->e[i].is_dir ? cap_device_dir_id(l->e[i].name) : -1;
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
    cap_add_files_of(x, r, prof, l);
    const char *subs[] = { "mindstudio_profiler_output", "analyze" };
    for (size_t i = 0; i < 2; i++)
        if (cap_find_entry(l, subs[i], true)) {
            char *p = cap_join(prof, subs[i]);
            cap_add_files_of(x, r, p, NULL);
            free(p);
        }
    return r->nfiles - before;
}

/* Legacy layout: JSON in device_<id>/timeline/, CSV in device_<id>/summary/, the device's
 * clock files beside them. */
static size_t add_legacy_device(struct ctx *x, struct capture_rank *r, const char *devdir)
{
    size_t before = r->nfiles;
    cap_walked(x, devdir);
    const char *subs[] = { "timeline", "summary" };
    for (size_t i = 0; i < 2; i++) {
        char *p = cap_join(devdir, subs[i]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            cap_add_files_of(x, r, p, NULL);
        free(p);
    }
    cap_add_clock_files(x, r, devdir);
    return r->nfiles - before;
}

/* rank_id of a device's info.json[.N] (msprof writes -1 or nothing when unknown), else -1. */
static int rank_from_clock_files(struct ctx *x, const struct capture_rank *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct capture_file *f = &r->files[i];
        if (f->kind == FK_CLOCK && !f->problem && cap_starts_with(cap_base_name(f->path), "info.json")) {
            int rank = cap_rank_from_info(x, f->path);
            if (rank >= 0)
                return rank;
        }
    }
    return -1;
}

void cap_set_group(struct capture_rank *r, const char *dir)
{
    free(r->group);
    r->group = cap_dir_name(dir);
}

bool cap_has_legacy_device(const char *dir, const struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_dir || cap_device_dir_id(l->e[i].name) < 0)
            continue;
        char *dd = cap_join(dir, l->e[i].name);
        bool yes = false;
        const char *subs[] = { "timeline", "summary" };
        for (size_t k = 0; k < 2 && !yes; k++) {
            char *p = cap_join(dd, subs[k]);
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
void cap_add_class_b(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    cap_clean_base(dir, label, sizeof label);
    bool exported = cap_find_entry(l, "mindstudio_profiler_output", true) != NULL;
    struct capture_rank *r = NULL;
    cap_walked(x, dir);
    if (exported || !cap_has_legacy_device(dir, l)) {
        r = cap_new_rank(x, dir, label, CLASS_B);
        if (!r)
            return;
        cap_set_group(r, dir);
        add_prof_files(x, r, dir, l);
        r->device = single_device(l);
        cap_set_rank(x, r, label, NULL);
        /* the older per-device text of the same data, when both were exported */
        for (size_t i = 0; exported && i < l->n; i++) {
            if (!l->e[i].is_dir || cap_device_dir_id(l->e[i].name) < 0)
                continue;
            char *dd = cap_join(dir, l->e[i].name);
            struct listing dl;
            cap_list_dir(dd, &dl);
            if (cap_find_entry(&dl, "timeline", true) || cap_find_entry(&dl, "summary", true))
                cap_skip_add(x, dd, "older per-device layout of the same data; mindstudio_profiler_output/ is read");
            cap_listing_free(&dl);
            free(dd);
        }
        if (!cap_count_loadable(r) && (cap_has_dir_prefix(l, "device_") || cap_find_entry(l, "host", true))) {
            char buf[PATH_MAX + 128];
            snprintf(buf, sizeof buf, "raw msprof data, not exported; run: msprof --export=on --output=%s", dir);
            r->problem = cap_xstrdup(buf);
            diag_add(x->d, DIAG_WARN, dir, "%s", buf);
        }
        return;
    }
    bool first = true;
    for (size_t i = 0; i < l->n; i++) {
        int id = l->e[i].is_dir ? cap_device_dir_id(l->e[i].name) : -1;
        if (id < 0)
            continue;
        char *dd = cap_join(dir, l->e[i].name);
        char lab[512];
        snprintf(lab, sizeof lab, "%s/%s", label, l->e[i].name);
        r = cap_new_rank(x, dd, lab, CLASS_B);
        if (r) {
            cap_set_group(r, dir);  /* the devices of one PROF_* and its sibling PROF_* are one capture */
            if (first)      /* a root msprof_*.db covers every device: list it once */
                cap_add_files_of(x, r, dir, l);
            first = false;
            add_legacy_device(x, r, dd);
            r->device = id;
            r->rank = rank_from_clock_files(x, r);
        }
        free(dd);
    }
}

/* A *_ascend_pt / *_ascend_ms directory (or one holding ASCEND_PROFILER_OUTPUT/profiler_info). */
void cap_add_class_a(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    cap_clean_base(dir, label, sizeof label);
    struct capture_rank *r = cap_new_rank(x, dir, label, CLASS_A);
    if (!r)
        return;
    cap_walked(x, dir);
    cap_set_group(r, dir);
    for (size_t i = 0; i < l->n; i++) {
        const char *n = l->e[i].name;
        if (l->e[i].is_reg && cap_ends_with_ci(n, ".json")
            && (cap_starts_with(n, "profiler_info") || !strcmp(n, "profiler_metadata.json"))) {
            char *p = cap_join(dir, n);
            cap_add_file(x, r, p);
            free(p);
        }
    }
    bool has_apo = cap_find_entry(l, "ASCEND_PROFILER_OUTPUT", true) != NULL;
    bool has_fw = cap_find_entry(l, "FRAMEWORK", true) != NULL;
    bool has_prof = cap_has_dir_prefix(l, "PROF_");
    bool done = false;
    if (has_apo) {
        char *apo = cap_join(dir, "ASCEND_PROFILER_OUTPUT");
        struct listing al;
        cap_list_dir(apo, &al);
        cap_add_files_of(x, r, apo, &al);
        done = cap_find_entry(&al, "analyse.done", false) != NULL;
        cap_listing_free(&al);
        free(apo);
    }
    cap_set_rank(x, r, label, NULL);
    /* Device and, when the analysis is missing, the exported CANN data of the nested PROF_*. */
    size_t loadable = cap_count_loadable(r);
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_dir || !cap_starts_with(l->e[i].name, "PROF_"))
            continue;
        char *prof = cap_join(dir, l->e[i].name);
        struct listing pl;
        cap_list_dir(prof, &pl);
        if (r->device < 0)
            r->device = single_device(&pl);
        if (!loadable)
            add_prof_files(x, r, prof, &pl);
        cap_listing_free(&pl);
        free(prof);
    }
    bool raw = has_fw || has_prof;
    char hint[PATH_MAX * 3];
    if (!loadable && raw) {
        analyse_hint(hint, sizeof hint, dir);
        r->problem = cap_xstrdup(hint);
        diag_add(x->d, DIAG_WARN, dir, "%s%s", has_apo ? "analysis incomplete (ASCEND_PROFILER_OUTPUT has no data); " : "", hint);
    } else if (loadable && raw && !done) {
        diag_add(x->d, DIAG_INFO, dir, "no ASCEND_PROFILER_OUTPUT/analyse.done: the analysis may not have finished");
    } else if (!has_apo && !raw) {
        r->problem = cap_xstrdup("no ASCEND_PROFILER_OUTPUT/ and no raw data (FRAMEWORK/, PROF_*)");
        diag_add(x->d, DIAG_WARN, dir, "%s", r->problem);
    }
}

/* Does f make the folder holding it a rank: the makes_rank column of FILE_KINDS. */
FK_COLUMN_LOOKUP(kind_makes_rank, bool, makes_rank, false)

static bool rank_worthy(const struct capture_file *f)
{
    return kind_makes_rank(f->kind);
}


/* What a trace's head says of it: whether it is a PyTorch profiler (Kineto) trace in the
 * object form, and the rank its distributedInfo names (-1: none). */
static bool trace_head(const char *path, int *rank)
{
    char *head = malloc(HEAD_BYTES), err[160];
    if (!head)
        oom_exit("a trace's head", HEAD_BYTES);
    long k = cap_read_head(path, head, 2);
    if (k == 2 && gz_magic(head, 2))
        k = gz_read_range(path, 0, head, HEAD_BYTES, err, sizeof err);
    else
        k = cap_read_head(path, head, HEAD_BYTES);
    *rank = k > 0 ? kineto_rank_from_head(head, (size_t)k) : -1;
    size_t n = k > 0 ? (size_t)k : 0;
    bool kineto = n && memmem(head, n, "\"traceEvents\"", 13)
                  && (memmem(head, n, "\"schemaVersion\"", 15) || memmem(head, n, "\"deviceProperties\"", 18)
                      || memmem(head, n, "\"distributedInfo\"", 17));
    free(head);
    return kineto;
}

/* The rank a trace names in its head (Kineto distributedInfo), or -1. */
int cap_trace_rank(const char *path)
{
    int rank;
    trace_head(path, &rank);
    return rank;
}

/* A trace file of one rank among others: *.pt.trace.json[.gz] (PyTorch profiler), or a
 * trace name carrying a rank ("rank-3.", "_rank_3."). */
static bool per_rank_trace_name(const char *name)
{
    return cap_ends_with_ci(name, ".pt.trace.json") || cap_ends_with_ci(name, ".pt.trace.json.gz")
        || ((cap_ends_with_ci(name, ".json") || cap_ends_with_ci(name, ".json.gz")) && cap_rank_from_name(name) >= 0);
}

/* A PyTorch profiler trace of the folder: by its name, or, under any JSON name, by its head. */
static bool loose_trace(const char *dir, const struct entry *e)
{
    if (!e->is_reg)
        return false;
    if (per_rank_trace_name(e->name))
        return true;
    if (!cap_ends_with_ci(e->name, ".json") && !cap_ends_with_ci(e->name, ".json.gz"))
        return false;
    char *p = cap_join(dir, e->name);
    int rank;
    bool k = trace_head(p, &rank);
    free(p);
    return k;
}

/* A folder of two or more PyTorch profiler traces and nothing of a torch_npu or msprof
 * layout: each trace is a rank. Traces that say which rank they are (distributedInfo, else a
 * rank in the name as torch writes it: "rank-3.", "_rank_3.") are ranks of one capture, the
 * folder; a trace that says nothing is a capture of its own (unrelated traces put side by
 * side are never ranks of one job, whatever their names). Returns whether ranks were added. */
bool cap_add_trace_ranks(struct ctx *x, const char *dir, const struct listing *l)
{
    size_t n = 0;
    bool *is_trace = calloc(l->n + 1, sizeof *is_trace);
    if (!is_trace)
        abort();
    for (size_t i = 0; i < l->n; i++)
        n += is_trace[i] = loose_trace(dir, &l->e[i]);
    if (n < 2) {
        free(is_trace);
        return false;
    }
    size_t added = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!is_trace[i])
            continue;
        char *p = cap_join(dir, l->e[i].name);
        char label[256];
        cap_clean_base(p, label, sizeof label);
        struct capture_rank *r = cap_new_rank(x, dir, label, CLASS_A);
        if (!r) {
            free(p);
            break;
        }
        struct capture_file *f = cap_add_file(x, r, p);
        if (f && f->problem)
            diag_add(x->d, DIAG_WARN, f->path, "%s", f->problem);
        if (f && f->kind == FK_TRACE_JSON && !f->problem)
            r->rank = cap_trace_rank(p);
        if (r->rank < 0)
            r->rank = cap_rank_from_name(l->e[i].name);
        r->group = cap_xstrdup(r->rank >= 0 ? dir : p);
        added++;
        free(p);
    }
    free(is_trace);
    return added > 0;
}

bool cap_add_plain(struct ctx *x, const char *dir, const struct listing *l)
{
    char label[256];
    cap_clean_base(dir, label, sizeof label);
    struct capture_rank *r = cap_new_rank(x, dir, label, CLASS_A);
    if (!r)
        return false;
    /* Classify quietly first: a folder of unrelated JSON is not a rank. */
    struct diag *saved = x->d;
    x->d = NULL;
    size_t dropped = cap_add_files_of(x, r, dir, l);
    x->d = saved;
    bool worthy = false, class_b = false;
    for (size_t i = 0; i < r->nfiles; i++) {
        struct capture_file *f = &r->files[i];
        worthy |= rank_worthy(f);
        class_b |= f->kind == FK_OP_SUMMARY || f->kind == FK_DB_MSPROF || cap_starts_with(cap_base_name(f->path), "msprof_");
    }
    if (!worthy) {
        cap_rank_free(r);
        x->c->nranks--;
        return false;
    }
    for (size_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].problem)
            diag_add(x->d, DIAG_WARN, r->files[i].path, "%s", r->files[i].problem);
        if (r->files[i].skipped)
            diag_add(x->d, DIAG_INFO, r->files[i].path, "skipped: %s", r->files[i].skipped);
    }
    cap_say_dropped(x, dir, dropped);
    r->cls = class_b ? CLASS_B : CLASS_A;
    char *parent = cap_dir_name(dir);
    char pb[256];
    cap_set_rank(x, r, label, cap_clean_base(parent, pb, sizeof pb));
    free(parent);
    /* a folder named like a rank (rank0/, test_rank_1/) is a rank of the capture holding it;
     * any other folder of loose files is a capture of its own */
    if (cap_rank_from_name(label) >= 0)
        cap_set_group(r, dir);
    else
        r->group = cap_xstrdup(dir);
    return true;
}

bool cap_is_rank_dir_name(const char *name)
{
    return cap_ends_with_ci(name, "_ascend_pt") || cap_ends_with_ci(name, "_ascend_ms");
}
