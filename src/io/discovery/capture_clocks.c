/* Loose timelines on different clocks. A folder of loose output files is one rank, its
 * timelines merged into one; but files written on different clocks are no timeline together
 * (MindSpore leaves ascend_timeline_display_N.json counted from 0 beside
 * gpu_timeline_display_N.json in Unix µs: merged, they span fifty years). Each trace's
 * clock is read from the first timestamp in its head; the traces of each clock but the
 * first become a capture of their own. */
#include "io/discovery/capture.h"
#include "io/discovery/capture_internal.h"
#include "io/files/gz_stream.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Where a trace's times are counted from: the Unix epoch (µs of 16 digits and more: after
 * 2001), or something else (the start of the capture, the host's boot). */
enum trace_clock { CLOCK_UNKNOWN, CLOCK_EPOCH, CLOCK_OTHER };

/* The clock of the first "ts" value (number or decimal text) in buf[0..n). */
static enum trace_clock clock_of_head(const char *buf, size_t n)
{
    const char *end = buf + n;
    for (const char *p = buf; (p = memmem(p, (size_t)(end - p), "\"ts\"", 4)) != NULL; p += 4) {
        const char *q = p + 4;
        while (q < end && (isspace((unsigned char)*q) || *q == ':' || *q == '"'))
            q++;
        size_t digits = 0;
        while (q + digits < end && isdigit((unsigned char)q[digits]))
            digits++;
        if (digits && q + digits < end)
            return digits >= 16 ? CLOCK_EPOCH : CLOCK_OTHER;
    }
    return CLOCK_UNKNOWN;
}

static enum trace_clock trace_clock(const char *path)
{
    char *head = malloc(HEAD_BYTES), err[160];
    if (!head)
        abort();
    long k = cap_read_head(path, head, 2);
    if (k == 2 && gz_magic(head, 2))
        k = gz_read_range(path, 0, head, HEAD_BYTES, err, sizeof err);
    else
        k = cap_read_head(path, head, HEAD_BYTES);
    enum trace_clock c = k > 0 ? clock_of_head(head, (size_t)k) : CLOCK_UNKNOWN;
    free(head);
    return c;
}

/* The clock of each trace file of r (CLOCK_UNKNOWN for other files), into clocks[]; the
 * number of different known clocks. */
static int trace_clocks(const struct capture_rank *r, enum trace_clock *clocks)
{
    bool seen[3] = { false };
    int n = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct capture_file *f = &r->files[i];
        clocks[i] = f->kind == FK_TRACE_JSON && !f->problem && !f->skipped ? trace_clock(f->path) : CLOCK_UNKNOWN;
        if (clocks[i] != CLOCK_UNKNOWN && !seen[clocks[i]]) {
            seen[clocks[i]] = true;
            n++;
        }
    }
    return n;
}

/* Moves file i of the rank at index ri to a new rank of its own capture (named by the file). */
static void move_to_own_capture(struct ctx *x, size_t ri, size_t i)
{
    char label[256];
    cap_clean_base(x->c->ranks[ri].files[i].path, label, sizeof label);
    struct capture_rank *nr = cap_new_rank(x, x->c->ranks[ri].dir, label, x->c->ranks[ri].cls);
    if (!nr)
        return;
    struct capture_rank *r = &x->c->ranks[ri];   /* cap_new_rank may have moved the ranks */
    nr->group = cap_xstrdup(r->files[i].path);
    nr->files = cap_grow_one(NULL, 0, sizeof *nr->files);
    nr->files[0] = r->files[i];
    nr->nfiles = 1;
    memmove(&r->files[i], &r->files[i + 1], (r->nfiles - i - 1) * sizeof *r->files);
    r->nfiles--;
}

/* The first file of r that a reader loads, else its first file. */
static const char *first_loadable(const struct capture_rank *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (capture_file_loadable(&r->files[i]))
            return r->files[i].path;
    return r->nfiles ? r->files[0].path : r->dir;
}

void cap_split_by_clock(struct ctx *x, size_t ri, bool own_capture)
{
    struct capture_rank *r = &x->c->ranks[ri];
    enum trace_clock *clocks = malloc((r->nfiles + 1) * sizeof *clocks);
    if (!clocks)
        abort();
    bool split = trace_clocks(r, clocks) > 1;
    enum trace_clock keep = CLOCK_UNKNOWN;
    for (size_t i = 0; split && i < r->nfiles && keep == CLOCK_UNKNOWN; i++)
        keep = clocks[i];
    /* backwards, so that the indices of the files still to look at stay put */
    for (size_t i = r->nfiles; split && i-- > 0; )
        if (clocks[i] != CLOCK_UNKNOWN && clocks[i] != keep) {
            diag_add(x->d, DIAG_WARN, x->c->ranks[ri].files[i].path,
                     "its times are on another clock than the timelines beside it (%s): a capture of its own, "
                     "never merged with them", keep == CLOCK_EPOCH ? "those count from the Unix epoch"
                                                                 : "those do not count from the Unix epoch");
            move_to_own_capture(x, ri, i);
        }
    free(clocks);
    r = &x->c->ranks[ri];
    if (split || own_capture) {
        free(r->group);
        r->group = cap_xstrdup(first_loadable(r));
    }
}
