/* Two parts of one large trace read at once: a guessed event boundary near the middle, the
 * second part read on a thread into a model of its own, then merged into the first. */
#include "io/trace_json.h"
#include "io/trace_json_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- two parts ----------------------------------------------------------------------------- */

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

/* The second part is done and the first still reads: the rows the merge will copy into are
 * made resident meanwhile, on this otherwise idle core. Where the first part's rows will end
 * is estimated from its share of the bytes; populating does not write, so it cannot disturb
 * the rows the first part is filling. */
static void prepare_first_room(struct rd *r2)
{
    struct split *sp = r2->sp;
    uint64_t bytes2 = r2->size - sp->start;
    size_t n2 = r2->m->nslices, p2 = model_build_points(r2->m);
    if (!bytes2 || n2 + p2 < (1u << 16))
        return;   /* small: the merge is quick anyway */
    size_t n1 = (size_t)((double)n2 * (double)sp->end / (double)bytes2);
    size_t q1 = (size_t)((double)p2 * (double)sp->end / (double)bytes2);
    populate_until(&sp->room1, n1 - n1 / 16, n1 + n2 + n2 / 16, q1 - q1 / 16, q1 + p2 + p2 / 16, &sp->first_done);
}

static void *part_main(void *arg)
{
    struct rd *r = arg;
    tj_run(r);
    tj_drop_buffer(r);   /* before the merge: less memory at its peak */
    atomic_store(&r->sp->finished, true);
    if (!r->cancelled && !atomic_load(&r->sp->abort))
        prepare_first_room(r);
    return NULL;
}

/* The first part is done and the second still reads: the rows the merge will copy the
 * second part into are made resident meanwhile, about as many as the first part has. */
void tj_split_wait(struct split *sp, struct model *m)
{
    struct model_room room;
    model_room_note(m, &room);
    size_t n = m->nslices, p = model_build_points(m);
    populate_until(&room, n, 2 * n, p, 2 * p, &sp->finished);
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

/* Starts the second part when the input is large enough and a boundary is found. */
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
    struct rd *r2 = calloc(1, sizeof *r2);
    struct model *m2 = model_new(r->m->time_base);
    if (!sp || !r2 || !m2) {
        free(sp);
        free(r2);
        model_free(m2);
        return NULL;
    }
    tj_reserve_for(m2, r->size - start);
    *r2 = (struct rd){ .m = m2, .d = r->d, .path = r->path, .file = r->file, .p = r->p, .fd = r->fd,
                       .view = r->view, .map = r->map, .view_released = start, .size = r->size, .base = start,
                       .last_ts = INT64_MIN, .st = S_ITEM, .saw_events = object, .start_off = start,
                       .stop_at = NO_SPLIT, .read_end = UINT64_MAX, .second = true, .part = 1, .sp = sp };
    sp->r2 = r2;
    sp->m2 = m2;
    model_room_note(r->m, &sp->room1);
    sp->end = end;
    sp->start = start;
    atomic_store(&sp->live, true);
    r->stop_at = r->read_end = end;
    r->sp = sp;
    r->part = 0;
    if (r->p)
        atomic_store_explicit(&r->p->bytes_done, 0, memory_order_relaxed);
    if (pthread_create(&sp->thread, NULL, part_main, r2) != 0) {
        r->stop_at = NO_SPLIT;
        r->read_end = UINT64_MAX;
        r->sp = NULL;
        free(r2);
        model_free(m2);
        free(sp);
        return NULL;
    }
    sp->running = true;
    return sp;
}

/* Waits for the second part (stopping it first when abort) and frees it unless keep. */
void tj_split_join(struct split *sp, bool abort, bool keep)
{
    if (abort)
        atomic_store(&sp->abort, true);
    if (sp->running)
        pthread_join(sp->thread, NULL);
    sp->running = false;
    atomic_store(&sp->live, false);
    if (!keep && sp->r2) {
        tj_free_rd(sp->r2);
        free(sp->r2);
        sp->r2 = NULL;
        model_free(sp->m2);
        sp->m2 = NULL;
    }
}

void tj_split_abandon(struct split *sp)
{
    tj_split_join(sp, true, false);
    tj_last_split = 2;
}

/* Whether the second part read exactly what reading on from the boundary would have. Only B
 * stacks can differ: deeper than MAX_BE_DEPTH across the boundary they are cut elsewhere. */
bool tj_merge_exact(const struct rd *r1, const struct rd *r2)
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

/* Appends the second part to the first part's model and replays its messages in file order:
 * E events without a B in the second part close the first part's open B events. */
void tj_merge_parts(struct rd *r1, struct rd *r2)
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
            uint32_t *nd = realloc(dead, (ndead + 1) * sizeof *nd);
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
    /* B events still open in the second part go on top of the first part's */
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

/* How the compressed input ended, when not cleanly: what was read is kept, and the message
 * says where the data stopped in both the compressed file and the decompressed trace. */
