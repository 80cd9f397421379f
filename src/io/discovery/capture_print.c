/* `aptop --list`: every rank of a capture, its files, their kinds and why any is not read. */
#include "io/discovery/capture.h"
#include "io/discovery/capture_internal.h"

#include "model/rowsets/escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ------------------------------------------------------------------------ */

/* Writes untrusted text (paths, names from files) with anything unsafe for a terminal
 * escaped (model/rowsets/escape.h). */
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

FK_COLUMN_LOOKUP(kind_unread, const char *, unread, NULL)

/* Why a listed file without a problem is not read, or NULL when it is read. */
static const char *not_read_reason(const struct capture_file *f)
{
    if (f->skipped)
        return f->skipped;
    return kind_unread(f->kind);
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
