/* Parts of one large trace read at once by two threads. The trace is cut at a guessed event
 * boundary near the middle: the caller's thread reads the first part, a second thread the
 * rest, each into a model of its own. A reader done first takes over the second half of what
 * the other still has to read (a new part, cut at another guessed boundary), so that both
 * cores stay busy to the end even when one of them runs slower. The parts are then merged in
 * file order, each only once the part before it ended exactly where it begins. */
#include "io/trace/trace_json.h"
#include "io/trace/trace_json_internal.h"
#include "util/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a reader done first takes over half of another part's rest when at least this much is left
 * (a smaller rest ends sooner than a new part pays off) */
uint64_t tj_share_min = 8u << 20;
_Thread_local int tj_last_parts;

/* The bytes [at, at + n) of the input into buf (or a pointer into memory); how many there are. */
static size_t peek(struct rd *r, uint64_t at, size_t n, char *buf, const char **out)
{
    if (at >= r->size)
        return 0;
    if (n > r->size - at)
        n = (size_t)(r->size - at);
    if (r->view) {
        *out = r->view + at;
        return n;
    }
    ssize_t k;
    do
        k = pread(r->fd, buf, n, (off_t)at);
    while (k < 0 && errno == EINTR);
    *out = buf;
    return k > 0 ? (size_t)k : 0;
}

/* A guess at an event boundary at or after from: "}" "," "{" (blanks between) where the "{"
 * starts an object with a "ph" key followed by ',' or ']'. The guess may still be wrong (a
 * string or args holding the same text): the first part checks it. */
static bool find_boundary(struct rd *r, uint64_t from, char *buf, uint64_t *end, uint64_t *start)
{
    struct ev ev = { 0 };
    size_t win = SPLIT_WINDOW / 16;
    for (uint64_t w = from; w < r->size && w - from < SPLIT_SEARCH; w += win, win = SPLIT_WINDOW) {
        const char *p;
        /* windows overlap by 64 KiB so that a short event across their edge is still seen */
        size_t n = peek(r, w, win + (64u << 10), buf, &p);
        for (size_t i = 0; i < n && i < win; i++) {
            const char *q = memchr(p + i, '}', (n < win ? n : win) - i);
            if (!q)
                break;
            i = (size_t)(q - p);
            size_t j = skip_ws(p, i + 1, n);
            if (j >= n || p[j] != ',')
                continue;
            j = skip_ws(p, j + 1, n);
            if (j >= n || p[j] != '{')
                continue;
            long k = tj_scan_event(p + j, n - j, &ev);
            if (k <= 0 || ev.f[F_PH].type != 's')
                continue;
            size_t e = skip_ws(p, j + (size_t)k, n);
            if (e >= n || (p[e] != ',' && p[e] != ']'))
                continue;
            *end = w + i + 1;
            *start = w + j;
            return true;
        }
    }
    return false;
}

void tj_drop_buffer(struct rd *r)
{
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = 0;
    if (r->view) {
        r->buf = (char *)r->view + r->base;
        tj_release_read(r, 0);   /* before the merge: less memory at its peak */
        return;
    }
    if (r->len)
        return;   /* unread bytes: still needed */
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

/* Makes slice rows [a, e) and flow point rows [pa, pe) of room resident, a step at a time
 * (about 128 KiB of the widest column) until *until is set: the merge's copy into them was
 * mostly page faults. Populating writes no byte (model_room_populate). */
static void populate_until(const struct model_room *room, size_t a, size_t e, size_t pa, size_t pe,
                           _Atomic bool *until)
{
    size_t step = 16384, pstep = step * (pe - pa) / (e - a + 1) + 1;
    for (size_t k = 0; a + k * step < e && !atomic_load(until); k++)
        if (!model_room_populate(room, a + k * step, a + (k + 1) * step, pa + k * pstep, pa + (k + 1) * pstep))
            break;
}

static uint64_t part_end(const struct part *pt)
{
    return pt->stop == NO_SPLIT ? pt->r->size : pt->stop;
}

/* Rows of part 0's model that the merge will copy the other parts into: [a, e) slices and
 * [pa, pe) flow points, estimated (part 0's own rows from the others' rows per byte). */
struct merge_room { size_t a, e, pa, pe; };

/* Taken by the other reader once it is done, while it may still read the parts' models. */
static bool guess_merge_room(struct split *sp, struct merge_room *mr)
{
    size_t n = 0, q = 0;
    uint64_t bytes = 0, first;
    pthread_mutex_lock(&sp->lock);
    first = sp->part[0].stop;
    for (int k = sp->part[0].next; k >= 0; k = sp->part[k].next)
        if (sp->part[k].done) {
            n += sp->part[k].r->m->nslices;
            q += model_build_points(sp->part[k].r->m);
            bytes += part_end(&sp->part[k]) - sp->part[k].start;
        }
    pthread_mutex_unlock(&sp->lock);
    if (first == NO_SPLIT || !bytes || n + q < (1u << 16))
        return false;   /* nothing to merge, or small: the merge is quick anyway */
    size_t n1 = (size_t)((double)n * (double)first / (double)bytes);
    size_t q1 = (size_t)((double)q * (double)first / (double)bytes);
    *mr = (struct merge_room){ n1 - n1 / 16, n1 + n + n / 16, q1 - q1 / 16, q1 + q + q / 16 };
    return true;
}

/* The caller's thread is done reading and the other reader still reads: the rows the merge
 * copies the other parts into are made resident meanwhile, in proportion to their bytes. */
static void wait_other_reader(struct split *sp, struct model *m)
{
    struct model_room room;
    model_room_note(m, &room);
    size_t n = m->nslices, q = model_build_points(m);
    uint64_t first = sp->part[0].stop, size = sp->part[0].r->size;
    double rest = first && first < size ? (double)(size - first) / (double)first : 1.0;
    populate_until(&room, n, n + (size_t)((double)n * rest), q, q + (size_t)((double)q * rest), &sp->finished);
    while (!atomic_load(&sp->finished))   /* populating could not, or the guess was short */
        usleep(100);
}

/* Large files: room in the model for the events the bytes from..size likely hold (about one
 * slice per 200 bytes and one flow point per 400 in captures), so the columns are not grown
 * and copied step by step; capped, and untouched room costs address space only. */
void tj_reserve_for(struct model *m, uint64_t bytes)
{
    if (bytes < (8u << 20))
        return;
    uint64_t s = bytes / 200, f = bytes / 400;
    model_reserve(m, (size_t)(s < (16u << 20) ? s : (16u << 20)), (size_t)(f < (8u << 20) ? f : (8u << 20)));
}

/* A reader of the bytes [start, end) into a model of its own, for part k. */
static struct rd *part_reader(struct split *sp, int k, uint64_t start, uint64_t end)
{
    const struct rd *r = sp->part[0].r;
    struct rd *n = calloc(1, sizeof *n);
    struct model *m = model_new(sp->time_base);
    if (!n || !m) {
        free(n);
        model_free(m);
        return NULL;
    }
    tj_reserve_for(m, end - start);
    *n = (struct rd){ .m = m, .d = r->d, .path = r->path, .file = r->file, .p = r->p, .fd = r->fd,
                      .view = r->view, .map = r->map, .view_released = start, .size = r->size, .base = start,
                      .last_ts = INT64_MIN, .st = S_ITEM, .saw_events = sp->object, .start_off = start,
                      .stop_at = NO_SPLIT, .second = true, .part = k, .sp = sp };
    return n;
}

static void free_reader(struct rd *r)
{
    if (!r)
        return;
    model_free(r->m);
    tj_free_rd(r);
    free(r);
}

/* Under the lock: part k read past its stop. It reads on alone to the end; the parts after it
 * are void (their readers stop) and no part is taken over any more. */
static void fail_locked(struct split *sp, int k)
{
    struct part *pt = &sp->part[k];
    pt->stop = NO_SPLIT;
    sp->failed = true;
    for (int j = pt->next; j >= 0; j = sp->part[j].next)
        atomic_store(&sp->part[j].abort, true);
    pt->next = -1;
}

void tj_part_fail(struct rd *r)
{
    struct split *sp = r->sp;
    r->stop_at = NO_SPLIT;
    if (!sp)
        return;
    pthread_mutex_lock(&sp->lock);
    fail_locked(sp, r->part);
    pthread_mutex_unlock(&sp->lock);
}

/* The part's stop is read (taking over may have moved it closer), the bytes are cut at it,
 * and claimed: a later cut is only made past them. Needing bytes past the stop means the
 * boundary there was a wrong guess: the reader reads on alone. */
uint64_t tj_part_take(struct rd *r, uint64_t have, uint64_t want)
{
    struct split *sp = r->sp;
    struct part *pt = &sp->part[r->part];
    pthread_mutex_lock(&sp->lock);
    if (pt->stop != NO_SPLIT && have >= pt->stop)
        fail_locked(sp, r->part);
    if (pt->stop != NO_SPLIT && pt->stop - have < want)
        want = pt->stop - have;
    pt->claimed = have + want;
    r->stop_at = pt->stop;
    pthread_mutex_unlock(&sp->lock);
    return want;
}

/* Under the lock: the part still read with the most bytes past what its reader holds, or -1
 * when none has tj_share_min of them (or taking over is over). */
static int largest_rest(struct split *sp)
{
    int best = -1;
    uint64_t most = 0;
    if (sp->failed || atomic_load(&sp->abort) || sp->nparts >= MAX_PARTS)
        return -1;
    for (int k = 0; k < sp->nparts; k++) {
        struct part *pt = &sp->part[k];
        uint64_t end = part_end(pt);
        if (!pt->done && !atomic_load(&pt->abort) && end > pt->claimed && end - pt->claimed > most) {
            most = end - pt->claimed;
            best = k;
        }
    }
    return most >= tj_share_min && most >= 2 ? best : -1;
}

/* The reader of part k is done: it takes over the second half of the largest rest, cut at
 * a guessed boundary past what that part's reader holds. Returns the new part, or -1. */
static int next_part(struct split *sp, int k)
{
    const struct rd *r0 = sp->part[0].r;   /* its input's fields never change */
    pthread_mutex_lock(&sp->lock);
    sp->part[k].done = true;
    for (int tries = 0; tries < 4; tries++) {
        int v = largest_rest(sp);
        if (v < 0)
            break;
        uint64_t claimed = sp->part[v].claimed, stop = sp->part[v].stop, end = part_end(&sp->part[v]);
        pthread_mutex_unlock(&sp->lock);
        char *buf = r0->view ? NULL : malloc(SPLIT_WINDOW + (64u << 10));
        uint64_t e = 0, s = 0;
        bool found = (buf || r0->view) && find_boundary((struct rd *)r0, claimed + (end - claimed) / 2, buf, &e, &s) &&
                     s < end;
        free(buf);
        struct rd *nr = found ? part_reader(sp, -1, s, end) : NULL;
        pthread_mutex_lock(&sp->lock);
        struct part *pv = &sp->part[v];
        /* the part may have read on meanwhile: cut only past the bytes its reader holds */
        if (nr && largest_rest(sp) >= 0 && !pv->done && pv->stop == stop && pv->claimed < e) {
            int n = sp->nparts++;
            nr->part = n;
            sp->part[n] = (struct part){ .r = nr, .start = s, .stop = stop, .claimed = s, .next = pv->next };
            pv->next = n;
            pv->stop = e;
            pthread_mutex_unlock(&sp->lock);
            return n;
        }
        free_reader(nr);
        if (!found)
            break;
    }
    pthread_mutex_unlock(&sp->lock);
    return -1;
}

/* Reads part k, then every part it takes over. */
static void read_parts(struct split *sp, int k)
{
    while (k >= 0) {
        struct rd *r = sp->part[k].r;
        tj_run(r);
        tj_drop_buffer(r);   /* before the merge: less memory at its peak */
        k = next_part(sp, k);
    }
}

/* The other reader's thread: part 1 and what it takes over; then, on this otherwise idle
 * core, the room the merge copies into is made resident while the caller's thread still
 * reads or merges (populating does not write: it cannot disturb the rows being filled). */
static void *other_reader(void *arg)
{
    struct split *sp = arg;
    struct merge_room mr;
    read_parts(sp, 1);
    bool prepare = guess_merge_room(sp, &mr);
    atomic_store(&sp->finished, true);
    if (prepare && !atomic_load(&sp->abort))
        populate_until(&sp->room1, mr.a, mr.e, mr.pa, mr.pe, &sp->merged);
    return NULL;
}

/* Starts the second reader on part 1 when the input is large enough and a boundary is found. */
struct split *tj_split_begin(struct rd *r)
{
    if (r->gz || r->size < tj_split_threshold || r->size < 16)
        return NULL;
    char *buf = r->view ? NULL : malloc(SPLIT_WINDOW + (64u << 10));
    const char *p;
    if (!r->view && !buf)
        return NULL;
    /* the first byte: '[' a bare array, '{' the object form (its events array) */
    size_t n = peek(r, 0, 4096, buf, &p), i = 0;
    if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        i = 3;
    i = skip_ws(p, i, n);
    bool object = i < n && p[i] == '{';
    uint64_t end = 0, start = 0;
    uint64_t from = tj_split_from != NO_SPLIT ? tj_split_from : r->size / 2;
    bool found = i < n && (p[i] == '[' || p[i] == '{') && find_boundary(r, from, buf, &end, &start);
    free(buf);
    if (!found)
        return NULL;
    struct split *sp = calloc(1, sizeof *sp);
    if (!sp)
        return NULL;
    sp->object = object;
    sp->time_base = r->m->time_base;
    sp->part[0] = (struct part){ .r = r, .start = 0, .stop = end, .next = 1 };
    struct rd *r2 = part_reader(sp, 1, start, r->size);
    if (!r2 || pthread_mutex_init(&sp->lock, NULL) != 0) {
        free_reader(r2);
        free(sp);
        return NULL;
    }
    sp->part[1] = (struct part){ .r = r2, .start = start, .stop = NO_SPLIT, .claimed = start, .next = -1 };
    sp->nparts = 2;
    model_room_note(r->m, &sp->room1);
    sp->end = end;
    r->stop_at = end;
    r->sp = sp;
    r->part = 0;
    if (r->p)
        atomic_store_explicit(&r->p->bytes_done, 0, memory_order_relaxed);
    if (pthread_create(&sp->thread, NULL, other_reader, sp) != 0) {
        r->stop_at = NO_SPLIT;
        r->sp = NULL;
        free_reader(r2);
        pthread_mutex_destroy(&sp->lock);
        free(sp);
        return NULL;
    }
    return sp;
}

bool tj_split_end(struct split *sp)
{
    atomic_store(&sp->abort, true);
    atomic_store(&sp->merged, true);
    pthread_join(sp->thread, NULL);
    bool failed = sp->failed;
    for (int k = 1; k < sp->nparts; k++)
        free_reader(sp->part[k].r);
    pthread_mutex_destroy(&sp->lock);
    free(sp);
    return failed;
}

/* --- the merge ---------------------------------------------------------------------------- */

/* Whether a later part read exactly what reading on from its boundary would have. Only B
 * stacks can differ: deeper than MAX_BE_DEPTH across the boundary they are cut elsewhere. */
static bool merge_exact(const struct rd *r1, const struct rd *r2)
{
    uint32_t max1 = 0;
    for (uint32_t l = 0; l < r1->nbe; l++)
        if (r1->be[l].n > max1)
            max1 = r1->be[l].n;
    return !max1 || (uint64_t)max1 + r2->be_max < MAX_BE_DEPTH;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Appends a later part to the first part's model (which holds every part before it) and replays
 * its messages in file order: its E events without a B close the open B events before it. */
static void merge_parts(struct rd *r1, struct rd *r2)
{
    struct model *m = r1->m;
    uint32_t *smap = NULL, *lmap = NULL, *dead = NULL;
    size_t ndead = 0;
    uint32_t first = model_append(m, r2->m, &smap, &lmap);
    kineto_merge(&r1->kt, &r2->kt);
    for (size_t i = 0; i < r2->nnotes; i++) {
        const struct note *n = &r2->notes[i];
        switch (n->kind) {
        case N_MSG:
            diag_add(r1->d, (enum diag_level)n->level, r1->path, "%s", n->text ? n->text : "");
            break;
        case N_OOM:
            diag_out_of_memory(r1->d, r1->path, "%s", n->text ? n->text : "");
            break;
        case N_WARN:
            tj_warn_text(r1, n->text ? n->text : "");
            break;
        case N_UTF8:
            if (!r1->utf8_warned) {
                r1->utf8_warned = true;
                diag_add(r1->d, DIAG_WARN, r1->path, "%s", n->text ? n->text : "");
            }
            break;
        case N_COUNT:
            tj_emit_count(r1, (enum diag_level)n->level, n->at, n->text ? n->text : "", (enum cnt)n->cnt,
                       r1->nevents + n->count);
            break;
        case N_ORPHAN_E: {
            if (first == SLICE_NONE || n->slice == SLICE_NONE)
                break;
            uint32_t lane = lmap[n->lane], s = first + n->slice;
            struct be_stack *st = lane < r1->nbe ? &r1->be[lane] : NULL;
            if (st && st->n) {
                struct be_entry b = st->e[--st->n];
                model_set_slice_ids(m, s, b.ts, tj_span_ns(b.ts, n->ts), b.name, b.cat, r1->file, b.off, b.len);
                break;
            }
            tj_warn_event(r1, n->at, "E event without a matching B on its thread%s", "");
            uint32_t *nd = grow_exact(dead, (size_t)ndead + 1, sizeof *nd);
            if (!nd) {
                m->oom = true;
                break;
            }
            dead = nd;
            dead[ndead++] = s;
            break;
        }
        }
    }
    if (ndead) {
        qsort(dead, ndead, sizeof *dead, cmp_u32);
        model_remove_slices(m, dead, ndead);
    }
    free(dead);
    /* B events still open in the later part go on top of those before it */
    for (uint32_t l2 = 0; first != SLICE_NONE && l2 < r2->nbe; l2++) {
        struct be_stack *s2 = &r2->be[l2];
        for (uint32_t k = 0; k < s2->n; k++) {
            struct be_entry b = s2->e[k];
            b.name = smap[b.name];
            b.cat = smap[b.cat];
            if (!tj_be_push(tj_be_of(r1, lmap[l2]), b)) {
                m->oom = true;
                break;
            }
        }
    }
    free(smap);
    free(lmap);
    if (r2->last_ts > r1->last_ts)
        r1->last_ts = r2->last_ts;
    r1->warns_dropped += r2->warns_dropped;
    r1->nevents += r2->nevents;
    r1->st = r2->st;
    r1->broke = r2->broke;
    r1->closed = r1->closed || r2->closed;
}

/* r reads on alone from where part `from` ended (its state is r's after the merge). */
static void read_on_alone(struct rd *r, const struct rd *from)
{
    r->base = from->base + from->pos;
    r->pos = r->len = 0;
    r->eof = false;
    if (r->view)
        r->buf = (char *)r->view + r->base;
    r->stop_at = NO_SPLIT;
    r->reached = false;
    tj_last_split = 2;
    tj_run(r);
}

uint64_t tj_split_finish(struct rd *r, struct split *sp)
{
    tj_drop_buffer(r);
    read_parts(sp, next_part(sp, 0));
    wait_other_reader(sp, r->m);
    /* no reader is left: the parts are read without the lock from here on */
    r->sp = NULL;
    const struct rd *prev = r;
    uint64_t end = r->base + r->len;
    int merged = 1;
    tj_last_split = 1;
    tj_last_split_at = sp->end;
    for (int k = sp->part[0].next; k >= 0 && prev->reached; k = sp->part[k].next) {
        struct rd *rk = sp->part[k].r;
        if (!merge_exact(r, rk)) {
            read_on_alone(r, prev);
            end = r->base + r->len;
            break;
        }
        merge_parts(r, rk);
        end = rk->base + rk->len;
        prev = rk;
        merged++;
    }
    if (sp->failed)
        tj_last_split = 2;
    tj_last_parts = merged;
    return end;
}
