/* A rank's files in two halves: see rank_split.h. */
#include "io/load/rank_split.h"

#include <stdlib.h>
#include <string.h>

#include "io/load/memcheck.h"
#include "io/load/readers.h"
#include "util/free_all.h"

/* Which half a file of kind k belongs to: the half column of FILE_KINDS (io/discovery/file_kinds.h). */
FK_COLUMN_LOOKUP(half_of, enum file_half, half, FH_SMALL)

/* Files of the timeline half: the timeline itself, and what is as large or joined to it. */
static bool timeline_kind(enum file_kind k)
{
    return half_of(k) == FH_TIMELINE;
}

/* What a load of the whole rank reads beside its DB export, when it reads one: the CSV
 * tables are left for the DB's own, so the small half leaves them too. */
static bool small_kind_with_db(enum file_kind k)
{
    return half_of(k) == FH_SMALL_WITH_DB;
}

int rank_split_make(const struct capture_rank *cr, bool prefer_db, struct rank_split *out)
{
    memset(out, 0, sizeof *out);
    out->small = *cr;
    out->timeline = *cr;
    out->small.nfiles = out->timeline.nfiles = 0;
    out->small.files = calloc(cr->nfiles + 1, sizeof *cr->files);
    out->timeline.files = calloc(cr->nfiles + 1, sizeof *cr->files);
    if (!out->small.files || !out->timeline.files) {
        rank_split_free(out);
        return -1;
    }
    /* a rank read from a summary is all small: it has no trace */
    bool summary = cr->nfiles && cr->files[0].kind == FK_SUMMARY_JSON;
    bool db = !summary && readers_use_db(cr, prefer_db);
    for (size_t i = 0; i < cr->nfiles; i++) {
        const struct capture_file *f = &cr->files[i];
        bool clock = half_of(f->kind) == FH_BOTH;
        bool big = !summary && timeline_kind(f->kind);
        if (summary || clock || (!big && (!db || small_kind_with_db(f->kind))))
            out->small.files[out->small.nfiles++] = *f;
        if (!summary && (clock || big))
            out->timeline.files[out->timeline.nfiles++] = *f;
    }
    return 0;
}

void rank_split_free(struct rank_split *s)
{
    free(s->small.files);
    free(s->timeline.files);
    memset(s, 0, sizeof *s);
}

bool rank_split_has_timeline(const struct rank_split *s, bool prefer_db)
{
    for (size_t i = 0; i < s->timeline.nfiles; i++)
        if (s->timeline.files[i].kind != FK_CLOCK)
            return readers_count_files(&s->timeline, prefer_db) > 0;
    return false;
}

uint64_t rank_split_timeline_bytes(const struct rank_split *s)
{
    uint64_t b = 0;
    for (size_t i = 0; i < s->timeline.nfiles; i++)
        if (capture_file_loadable(&s->timeline.files[i]))
            b += s->timeline.files[i].size;
    return b;
}

int rank_split_memcheck(const struct capture *c, bool prefer_db, unsigned keep, struct diag *d)
{
    size_t n = c->nranks;
    struct rank_split *sp = calloc(n ? n : 1, sizeof *sp);
    struct capture_rank *parts = calloc(2 * n + 1, sizeof *parts);
    bool *taken = calloc(n ? n : 1, sizeof *taken);
    size_t np = 0;
    int rc = 0;
    if (!sp || !parts || !taken)
        goto out;   /* the estimate is a courtesy: without memory for it, the load tells */
    for (size_t i = 0; i < n; i++) {
        if (rank_split_make(&c->ranks[i], prefer_db, &sp[i]) < 0)
            goto out;
        parts[np++] = sp[i].small;
    }
    for (unsigned k = 0; k < keep && k < n; k++) {   /* the largest timelines still free */
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (!taken[i] && (best == SIZE_MAX || rank_split_timeline_bytes(&sp[i]) > rank_split_timeline_bytes(&sp[best])))
                best = i;
        taken[best] = true;
        parts[np++] = sp[best].timeline;
    }
    struct capture view = *c;
    view.ranks = parts;
    view.nranks = np;
    rc = memcheck_capture_env(&view, -1, NULL, d);
out:
    for (size_t i = 0; sp && i < n; i++)
        rank_split_free(&sp[i]);
    FREE_ALL(sp, parts, taken);
    return rc;
}
