/* Capture discovery's context: folders visited once, skipped ones said, ranks created and
 * files added to them (trace roles deduplicated, clock files attached). */
#include "io/discovery/capture.h"
#include "util/grow.h"
#include "io/discovery/capture_internal.h"

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

/* ---- discovery context --------------------------------------------------------------- */

void cap_strlist_add(struct strlist *l, const char *s)
{
    l->v = grow_array_or_exit(l->v, &l->cap, l->n + 1, sizeof *l->v, "capture discovery folders");
    l->v[l->n++] = cap_xstrdup(s);
}

void cap_strlist_free(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* dir's entries are accounted for at the end (see account_skipped). */
void cap_walked(struct ctx *x, const char *dir)
{
    cap_strlist_add(&x->walked, dir);
    cap_strlist_add(&x->taken, dir);
}

/* Records something seen and not read. */
void cap_skip_add(struct ctx *x, const char *path, const char *fmt, ...)
{
    struct capture *c = x->c;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    cap_skip_take(c, cap_xstrdup(path), cap_xstrdup(why));
    cap_strlist_add(&x->taken, path);
}

void cap_skip_take(struct capture *c, char *path, char *why)
{
    c->skipped = cap_grow_one(c->skipped, c->nskipped, sizeof *c->skipped);
    c->skipped[c->nskipped++] = (struct capture_skip){ path, why };
}

/* True the first time a directory is seen: symlink loops and aliases are walked once. */
bool cap_visit(struct ctx *x, const char *path)
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
        struct dev_ino *nv = grow_exact_or_exit(x->visited, x->capvisited, sizeof *nv, "the folders visited");
        x->visited = nv;
    }
    x->visited[x->nvisited++] = (struct dev_ino){ st.st_dev, st.st_ino };
    return true;
}

struct capture_rank *cap_new_rank(struct ctx *x, const char *dir, const char *label, enum capture_class cls)
{
    struct capture *c = x->c;
    if (c->nranks >= MAX_RANKS) {
        if (!x->too_many_ranks)
            diag_add(x->d, DIAG_WARN, c->root, "more than %d ranks found; the rest are ignored", MAX_RANKS);
        x->too_many_ranks = true;
        return NULL;
    }
    c->ranks = cap_grow_one(c->ranks, c->nranks, sizeof *c->ranks);
    struct capture_rank *r = &c->ranks[c->nranks++];
    r->rank = -1;
    r->device = -1;
    r->dir = cap_xstrdup(dir);
    r->label = cap_xstrdup(label);
    r->cls = cls;
    return r;
}

/* The file, or NULL when the rank already has MAX_FILES (the caller counts those). */
struct capture_file *cap_add_file(struct ctx *x, struct capture_rank *r, const char *path)
{
    if (r->nfiles >= MAX_FILES)
        return NULL;
    r->files = cap_grow_one(r->files, r->nfiles, sizeof *r->files);
    struct capture_file *f = &r->files[r->nfiles++];
    f->path = cap_xstrdup(path);
    cap_classify_file(f);
    if (f->problem)
        diag_add(x->d, DIAG_WARN, f->path, "%s", f->problem);
    return f;
}

void cap_say_dropped(struct ctx *x, const char *dir, size_t dropped)
{
    if (dropped)
        diag_add(x->d, DIAG_WARN, dir, "more than %d files in this rank; %zu not listed", MAX_FILES, dropped);
}

/* msprof's timeline of one device: msprof_<digits>... (per iteration in the older layout:
 * msprof_<device>_<model>_<iteration>.json) or msprof_slice_<N>_... parts. */
static bool is_merged_timeline(const char *name)
{
    return !strcmp(name, "msprof.json")
        || (cap_ends_with_ci(name, ".json") && (cap_stem_digits(name, "msprof_") || cap_starts_with(name, "msprof_slice_")));
}

/* A component timeline msprof merges: <stem>_<digits>....json (task_time_0_1_1.json,
 * hccl_0_1_1.json, step_trace_0_1.json, msprof_tx_..., acl_..., ge_...). */
static bool is_component_timeline(const char *name)
{
    if (is_merged_timeline(name) || cap_starts_with(name, "trace_view") || cap_ends_with_ci(name, ".pt.trace.json"))
        return false;
    for (const char *p = strchr(name, '_'); p; p = strchr(p + 1, '_'))
        if (isdigit((unsigned char)p[1]) || cap_starts_with(p + 1, "slice_"))
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
        const char *b = cap_base_name(f->path);
        if (f->kind != FK_TRACE_JSON || f->problem)
            continue;
        if (cap_starts_with(b, "trace_view") && !torch)
            torch = b;
        else if (is_merged_timeline(b) && !merged)
            merged = b;
    }
    for (size_t i = from; i < r->nfiles; i++) {
        struct capture_file *f = &r->files[i];
        const char *b = cap_base_name(f->path);
        if (f->kind != FK_TRACE_JSON || f->skipped)
            continue;
        char why[600];
        if (torch && !cap_starts_with(b, "trace_view") && (is_merged_timeline(b) || is_component_timeline(b))) {
            snprintf(why, sizeof why, "its events are also in %s (the merged timeline beside it); read from there", torch);
        } else if (!torch && merged && is_component_timeline(b)) {
            /* the merge of the same iteration: the same <device>_<model>_<iteration> suffix */
            const struct capture_file *same = NULL, *broken = NULL;
            const char *sfx = strchr(b, '_');
            while (sfx && !isdigit((unsigned char)sfx[1]))
                sfx = strchr(sfx + 1, '_');
            for (size_t k = from; k < r->nfiles; k++) {
                const char *m = cap_base_name(r->files[k].path);
                if (!is_merged_timeline(m))
                    continue;
                if (sfx && strlen(m) > 6 && !strcmp(m + 6, sfx) && !same)
                    same = &r->files[k];
                if (r->files[k].problem && !broken)
                    broken = &r->files[k];
            }
            if (same && same->problem) {
                /* its merge is unusable: this part is read in its place, and said */
                diag_add(x->d, DIAG_WARN, f->path, "read in place of its merge %s (%s)", cap_base_name(same->path),
                         same->problem);
                continue;
            }
            if (same) {
                snprintf(why, sizeof why, "merged into %s (msprof's timeline of this iteration); read from there",
                         cap_base_name(same->path));
                f->merge = cap_xstrdup(same->path);
            }
            else if (broken)
                snprintf(why, sizeof why, "merged into the msprof_*.json beside it (%s, ...); read from there; "
                         "the part of %s, which is unusable, is lost", merged, cap_base_name(broken->path));
            else
                snprintf(why, sizeof why, "merged into the msprof_*.json beside it (%s, ...); read from there", merged);
        } else {
            continue;
        }
        f->skipped = cap_xstrdup(why);
        diag_add(x->d, DIAG_INFO, f->path, "skipped: %s", why);
    }
}

/* Adds the listable regular files of dir (not recursive); returns how many did not fit
 * (already said when x->d is set). */
size_t cap_add_files_of(struct ctx *x, struct capture_rank *r, const char *dir, const struct listing *l)
{
    struct listing own;
    size_t dropped = 0, from = r->nfiles;
    if (!l) {
        cap_list_dir(dir, &own);
        l = &own;
    }
    cap_walked(x, dir);
    for (size_t i = 0; i < l->n; i++) {
        if (!l->e[i].is_reg || !cap_listable_name(l->e[i].name))
            continue;
        char *p = cap_join(dir, l->e[i].name);
        dropped += !cap_add_file(x, r, p);
        free(p);
    }
    if (l == &own)
        cap_listing_free(&own);
    dedupe_trace_roles(x, r, from);
    cap_say_dropped(x, dir, dropped);
    return dropped;
}

/* Clock files of a device or host folder (info.json[.N], start_info[.N], end_info[.N]). */
bool cap_is_clock_name(const char *name)
{
    return cap_starts_with(name, "info.json") || cap_starts_with(name, "start_info") || cap_starts_with(name, "end_info");
}

void cap_add_clock_files(struct ctx *x, struct capture_rank *r, const char *dir)
{
    struct listing l;
    cap_list_dir(dir, &l);
    for (size_t i = 0; i < l.n; i++) {
        if (!l.e[i].is_reg || !cap_is_clock_name(l.e[i].name))
            continue;
        char *p = cap_join(dir, l.e[i].name);
        struct capture_file *f = cap_add_file(x, r, p);
        if (f && !f->problem)
            f->kind = FK_CLOCK;
        free(p);
    }
    cap_listing_free(&l);
}

size_t cap_count_loadable(const struct capture_rank *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        n += capture_file_loadable(&r->files[i]);
    return n;
}
