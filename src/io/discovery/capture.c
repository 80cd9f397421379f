/* Capture discovery. Walks what the user typed (bounded depth, bounded entries, each
 * directory once), decides what each directory is (a Class A rank dir, its
 * ASCEND_PROFILER_OUTPUT, a PROF_* tree, a folder holding output files, or a folder of
 * such folders), classifies files from their name and first bytes, and reads nothing else
 * but profiler_info*.json. Everything is opened O_RDONLY; nothing is ever written.
 * This file holds the file kinds' names and the walk; what kind a file is, is decided in
 * capture_classify.c, path helpers and listings are in capture_fs.c, ranks and their files in
 * capture_ranks.c, the rank layouts in capture_layout.c, --list in capture_print.c. */
#include "io/discovery/capture.h"
#include "io/discovery/capture_internal.h"
#include "io/tables/summary_json.h"
#include "util/oom.h"
#include "util/free_all.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

FK_COLUMN_LOOKUP(kind_name, const char *, name, "unknown")
FK_COLUMN_LOOKUP(kind_loadable, bool, loadable, false)
FK_COLUMN_LOOKUP(kind_table, int, table, -1)

const char *file_kind_name(enum file_kind k)
{
    return kind_name(k);
}

int file_kind_table(enum file_kind k)
{
    return kind_table(k);
}

const char *capture_class_name(enum capture_class c)
{
    return c == CLASS_A ? "A" : c == CLASS_B ? "B" : "?";
}

bool capture_file_loadable(const struct capture_file *f)
{
    return !f->problem && !f->skipped && kind_loadable(f->kind);
}

static void scan(struct ctx *x, const char *dir, int depth);

/* A Class B mindstudio_profiler_output folder on its own: one rank, of the PROF_* above it. */
static void add_mindstudio_output(struct ctx *x, const char *dir, const char *base, const struct listing *l)
{
    struct capture_rank *r = cap_new_rank(x, dir, base, CLASS_B);
    if (!r)
        return;
    char *prof = cap_dir_name(dir);
    cap_set_group(r, prof);
    cap_add_files_of(x, r, dir, l);
    char pb[256];
    cap_set_rank(x, r, cap_clean_base(prof, pb, sizeof pb), NULL);
    free(prof);
}

/* Files only torch_npu's analysis writes (its ASCEND_PROFILER_OUTPUT, copied loose): a PROF_*
 * beside them is the raw data they were analysed from. Loose timelines alone (MindSpore's
 * display files, a copied msprof_*.json) are no such output. */
static bool holds_torch_npu_output(const struct capture_rank *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct capture_file *f = &r->files[i];
        switch (f->kind) {
        case FK_KERNEL_DETAILS: case FK_OPERATOR_DETAILS: case FK_API_STATISTIC: case FK_OP_STATISTIC:
        case FK_COMMUNICATION: case FK_COMM_MATRIX: case FK_PROFILER_INFO: case FK_PROFILER_METADATA:
        case FK_DB_TORCH:
            return true;
        case FK_TRACE_JSON:
            if (cap_starts_with(cap_base_name(f->path), "trace_view"))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

/* A folder of no known layout. Loose output files make a rank; the folders beside them are
 * still searched (PROF_* next to loose files, other captures). PROF_* beside *_ascend_pt dirs,
 * or beside loose torch_npu output, is raw data those already hold; beside other loose files
 * it is a capture of its own, and so are the loose files (io/discovery/capture_clocks.c). */
static void scan_plain_folder(struct ctx *x, const struct listing *l, const char *dir, int depth)
{
    size_t before = x->c->nranks;
    bool per_rank = cap_add_trace_ranks(x, dir, l);
    bool loose = !per_rank && cap_add_plain(x, dir, l) && x->c->nranks > before;
    bool loose_torch = loose && holds_torch_npu_output(&x->c->ranks[before]);
    cap_walked(x, dir);
    bool has_rank_dirs = false, has_prof = false;
    for (size_t i = 0; i < l->n; i++) {
        has_rank_dirs |= l->e[i].is_dir && cap_is_rank_dir_name(l->e[i].name);
        has_prof |= l->e[i].is_dir && cap_starts_with(l->e[i].name, "PROF_");
    }
    if (loose)
        cap_split_by_clock(x, before, has_prof && !has_rank_dirs && !loose_torch);
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_dir || l->e[i].name[0] == '.')
            continue;
        char *p = cap_join(dir, l->e[i].name);
        if ((has_rank_dirs || loose_torch) && cap_starts_with(l->e[i].name, "PROF_")) {
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
        if (!strcmp(base, "mindstudio_profiler_output"))
            add_mindstudio_output(x, dir, base, &l);
        else
            cap_add_class_b(x, dir, &l);
    } else {
        scan_plain_folder(x, &l, dir, depth);
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
    for (size_t k = 0; k < r->nfiles; k++)
        FREE_ALL(r->files[k].path, r->files[k].problem, r->files[k].skipped, r->files[k].merge);
    FREE_ALL(r->files, r->dir, r->label, r->problem, r->group);
}

/* How many captures (groups) the ranks come from; *best: the first rank of the capture with
 * the most loadable ranks (then the most ranks, then the first found). */
static size_t count_groups(const struct capture *c, size_t *best)
{
    size_t n = c->nranks, best_n = 0, groups = 0;
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
            *best = i;
        }
    }
    return groups;
}

/* other[0..n) reordered so that each capture's ranks stand together, the captures and their
 * ranks in discovery order. Frees other; returns the new array. */
static struct capture_rank *by_capture(struct capture_rank *other, size_t n)
{
    struct capture_rank *sorted = malloc(n * sizeof *sorted + 1);
    bool *done = calloc(n + 1, 1);
    if (!sorted || !done)
        oom_exit("the list of ranks", n * sizeof *sorted + n + 2);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;   /* placed with an earlier rank of its capture */
        for (size_t k = i; k < n; k++)
            if (!done[k] && !strcmp(other[k].group, other[i].group)) {
                sorted[ns++] = other[k];
                done[k] = true;
            }
    }
    FREE_ALL(done, other);
    return sorted;
}

/* Ranks of unrelated captures (different groups) are never ranks of one: the capture with
 * the most loadable ranks (then the most ranks, then the first found) is kept, the others
 * are moved to c->other, listed and said. */
static void group_captures(struct ctx *x)
{
    struct capture *c = x->c;
    size_t n = c->nranks, best = SIZE_MAX;
    if (!n)
        return;
    /* every rank has its group before any is compared (a reader may leave it unset) */
    for (size_t i = 0; i < n; i++)
        if (!c->ranks[i].group)
            c->ranks[i].group = cap_xstrdup(c->ranks[i].dir);
    size_t groups = count_groups(c, &best);
    c->ngroups = groups;
    if (groups < 2)
        return;
    const char *keep = c->ranks[best].group;
    struct capture_rank *kept = malloc(n * sizeof *kept), *other = malloc(n * sizeof *other);
    if (!kept || !other)
        oom_exit("the list of ranks", 2 * n * sizeof *kept);
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
    free(c->ranks);
    c->ranks = kept;
    c->nranks = nk;
    c->other = by_capture(other, no);
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
        oom_exit("the list of ranks", n * sizeof *s);
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
        return summaries;   /* a folder of summary files (io/tables/summary_json.h) */
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

static void free_ranks(struct capture_rank *ranks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cap_rank_free(&ranks[i]);
    free(ranks);
}

static void free_skips(struct capture_skip *skips, size_t n)
{
    for (size_t i = 0; i < n; i++)
        FREE_ALL(skips[i].path, skips[i].why);
    free(skips);
}

void capture_free(struct capture *c)
{
    if (!c)
        return;
    free_ranks(c->ranks, c->nranks);
    free_ranks(c->other, c->nother);
    free_skips(c->skipped, c->nskipped);
    free(c->root);
    memset(c, 0, sizeof *c);
}
