/* model_append: one model's slices, lanes, counters and flow points appended to another's
 * (a capture's parts read on two threads are joined this way). */
#include "model/index/model.h"
#include "model/index/model_internal.h"
#include "util/free_all.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Grows one slice column of dst to cap and appends src's column (through map for ids), then
 * hands src's on to dst's finalize as scratch (model_recycle; small ones are freed): one
 * column at a time keeps the peak near the sum of both models. */
#define GROW_COL(col) do { void *np_ = model_realloc_big(dst->col, (size_t)cap * sizeof *dst->col); \
        if (!np_) \
            goto oom; \
        dst->col = np_; \
    } while (0)
/* src's column, once copied, is kept resident for dst's finalize (model_recycle) */
#define HAND_ON(col) do { model_recycle(b, src->col, (size_t)n2 * sizeof *src->col, \
                                        (size_t)src->slices_cap * sizeof *src->col); \
        src->col = NULL; \
    } while (0)
#define APPEND_COL(col) do { GROW_COL(col); \
        memcpy(dst->col + first, src->col, (size_t)n2 * sizeof *dst->col); \
        HAND_ON(col); \
    } while (0)
#define APPEND_MAP(col, map) do { GROW_COL(col); \
        for (uint32_t i_ = 0; i_ < n2; i_++) \
            dst->col[first + i_] = (map)[src->col[i_]]; \
        HAND_ON(col); \
    } while (0)

/* flow points (and flows): fewer are grouped, bound, indexed or appended in a few ms on one
 * thread */
size_t model_thread_min = 100000;

void model_set_thread_min(size_t n)
{
    model_thread_min = n;
}

struct pts_job {
    struct build *b, *sb;
    const uint32_t *smap, *lmap;
    uint32_t nstr, nlanes;
    int rc;
};

/* Appends src's flow points (pj->sb) after dst's with ids remapped (their place keeps the
 * file's order), and frees src's. */
static void append_points(struct pts_job *pj)
{
    struct build *b = pj->b, *sb = pj->sb;
    if (!sb->npts)
        return;
    struct raw_point *np = model_grow(b->pts, &b->pts_cap, b->npts + sb->npts, sizeof *np);
    if (!np || b->npts + sb->npts >= UINT32_MAX - 1) {
        pj->rc = -1;
        return;
    }
    b->pts = np;
    for (size_t i = 0; i < sb->npts; i++) {
        struct raw_point q = sb->pts[i];
        q.lane = q.lane < pj->nlanes ? pj->lmap[q.lane] : LANE_NONE;
        q.cat = pj->smap[q.cat];
        q.name = pj->smap[q.name];
        if (q.id_is_str && q.id < pj->nstr)
            q.id = pj->smap[q.id];
        np[b->npts++] = q;
    }
    model_recycle(b, sb->pts, sb->npts * sizeof *sb->pts, sb->pts_cap * sizeof *sb->pts);
    sb->pts = NULL;
    sb->npts = sb->pts_cap = 0;
}

static void *append_points_main(void *arg)
{
    append_points(arg);
    return NULL;
}

/* src's processes and lanes found or made in dst (ids through smap), with the metadata src
 * set replayed; pmap and lmap get src's ids to dst's. false when memory ran out. */
static bool merge_procs_lanes(struct model *dst, const struct model *src, const uint32_t *smap,
                              uint32_t *pmap, uint32_t *lmap)
{
    struct build *b = B(dst), *sb = B(src);
    for (uint32_t p2 = 0; p2 < src->nprocs; p2++) {
        const struct proc *sp = &src->procs[p2];
        uint32_t p = model_proc_for_key(dst, smap[sp->key]);
        if (dst->oom || p >= dst->nprocs)
            return false;
        pmap[p2] = p;
        uint8_t f = sb->proc_named[p2], *df = &b->proc_named[p];
        /* the last process_name wins; a weak name only counts while none was given */
        if ((f & P_STRONG) || ((f & P_WEAK) && !(*df & P_STRONG)))
            dst->procs[p].name = smap[sp->name];
        if (f & P_LABELS)
            dst->procs[p].labels = smap[sp->labels];
        if (f & P_SORT)
            dst->procs[p].sort_index = sp->sort_index;
        *df |= f;
    }
    for (uint32_t l2 = 0; l2 < src->nlanes; l2++) {
        const struct lane *sl = &src->lanes[l2];
        uint32_t l = model_lane_for_key(dst, pmap[sl->proc], smap[sl->key]);
        if (dst->oom || l >= dst->nlanes)
            return false;
        lmap[l2] = l;
        uint8_t f = sb->lane_set[l2];
        if (f & L_NAME)
            dst->lanes[l].name = smap[sl->name];
        if (f & L_SORT)
            dst->lanes[l].sort_index = sl->sort_index;
        b->lane_set[l] |= f;
    }
    return true;
}

/* src's counter samples appended to dst's tracks of the same process and series. */
static bool append_counters(struct model *dst, const struct model *src, const uint32_t *smap,
                            const uint32_t *pmap)
{
    for (uint32_t t2 = 0; t2 < src->ncounters; t2++) {
        const struct counter_track *sc = &src->counters[t2];
        uint32_t t = model_counter_for(dst, pmap[sc->proc], smap[sc->name]);
        if (t == UINT32_MAX)
            return false;
        struct counter_track *c = &dst->counters[t];
        if (!c->unit && sc->unit)
            c->unit = smap[sc->unit];
        if (model_counter_reserve(c, c->n + sc->n) < 0)
            return false;
        memcpy(c->ts + c->n, sc->ts, sc->n * sizeof *c->ts);
        memcpy(c->value + c->n, sc->value, sc->n * sizeof *c->value);
        c->n += sc->n;
    }
    return true;
}

size_t model_build_points(const struct model *m)
{
    const struct build *b = B(m);
    return b ? b->npts : 0;
}

void model_room_note(const struct model *m, struct model_room *room)
{
    const struct build *b = B(m);
    int k = 0;
#define NOTE(col) (room->at[k] = (char *)m->col, room->elem[k] = sizeof *m->col, room->cap[k++] = m->slices_cap)
    NOTE(start); NOTE(dur); NOTE(name); NOTE(cat); NOTE(lane); NOTE(file); NOTE(off); NOTE(len);
#undef NOTE
    room->at[k] = b ? (char *)b->pts : NULL;
    room->elem[k] = sizeof *b->pts;
    room->cap[k] = b ? b->pts_cap : 0;
}

bool model_room_populate(const struct model_room *room, size_t a, size_t e, size_t pa, size_t pe)
{
#ifdef MADV_POPULATE_WRITE
    for (int k = 0; k < 9; k++) {
        size_t from = k < 8 ? a : pa, to = k < 8 ? e : pe;
        if (to > room->cap[k])
            to = room->cap[k];
        if (!room->at[k] || from >= to)
            continue;
        uintptr_t s = ((uintptr_t)room->at[k] + from * room->elem[k]) & ~(uintptr_t)4095;
        uintptr_t x = (uintptr_t)room->at[k] + to * room->elem[k];
        /* EINVAL: a kernel before 5.14; other errors: the room moved away meanwhile */
        if (x > s && madvise((void *)s, x - s, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
            return false;
    }
    return true;
#else
    (void)room;
    (void)a;
    (void)e;
    (void)pa;
    (void)pe;
    return false;
#endif
}

uint32_t model_append(struct model *dst, struct model *src, uint32_t **str_map, uint32_t **lane_map)
{
    struct build *b = B(dst), *sb = B(src);
    uint32_t *smap = NULL, *pmap = NULL, *lmap = NULL;
    pthread_t th;
    bool threaded = false;
    if (str_map)
        *str_map = NULL;
    if (lane_map)
        *lane_map = NULL;
    if (!b || !sb) {
        dst->oom = true;
        return SLICE_NONE;
    }
    if (src->oom)
        dst->oom = true;
    uint32_t nstr = strtab_count(src->str);
    smap = malloc(((size_t)nstr + 1) * sizeof *smap);
    pmap = malloc(((size_t)src->nprocs + 1) * sizeof *pmap);
    lmap = malloc(((size_t)src->nlanes + 1) * sizeof *lmap);
    if (!smap || !pmap || !lmap)
        goto oom;
    /* strings in src's order: new ones get the ids they would have had */
    for (uint32_t id = 0; id < nstr; id++)
        smap[id] = model_intern(dst, strtab_get(src->str, id), strtab_len(src->str, id));
    if (!merge_procs_lanes(dst, src, smap, pmap, lmap))
        goto oom;
    /* flow points on a second thread while the slice columns are copied */
    struct pts_job pj = { b, sb, smap, lmap, nstr, src->nlanes, 0 };
    threaded = sb->npts >= model_thread_min && pthread_create(&th, NULL, append_points_main, &pj) == 0;
    if (!threaded)
        append_points(&pj);
    uint32_t first = dst->nslices, n2 = src->nslices;
    if ((uint64_t)first + n2 > UINT32_MAX - 1)
        goto oom;
    if (n2) {
        uint32_t cap = first + n2 > dst->slices_cap ? first + n2 : dst->slices_cap;
        APPEND_COL(start);
        APPEND_COL(dur);
        APPEND_MAP(name, smap);
        APPEND_MAP(cat, smap);
        APPEND_MAP(lane, lmap);
        APPEND_COL(file);
        APPEND_COL(off);
        APPEND_COL(len);
        dst->slices_cap = cap;
        dst->nslices = first + n2;
        src->nslices = src->slices_cap = 0;
    }
    if (threaded) {
        pthread_join(th, NULL);
        threaded = false;
    }
    if (pj.rc < 0)
        goto oom;
    for (size_t i = 0; i < sb->ndirect; i++) {
        struct direct_flow d = sb->direct[i];
        struct direct_flow *nd = model_grow(b->direct, &b->direct_cap, b->ndirect + 1, sizeof *nd);
        if (!nd)
            goto oom;
        b->direct = nd;
        nd[b->ndirect++] = (struct direct_flow){ smap[d.cat], d.src < n2 ? first + d.src : SLICE_NONE,
                                                 d.dst < n2 ? first + d.dst : SLICE_NONE };
    }
    if (model_append_correlations(b, sb, first, n2) < 0)
        goto oom;
    if (!append_counters(dst, src, smap, pmap))
        goto oom;
    dst->events += src->events;
    for (int k = 0; k < 128; k++)
        dst->events_by_ph[k] += src->events_by_ph[k];
    dst->unknown_ph += src->unknown_ph;
    free(pmap);
    if (str_map)
        *str_map = smap;
    else
        free(smap);
    if (lane_map)
        *lane_map = lmap;
    else
        free(lmap);
    return first;
oom:
    if (threaded)
        pthread_join(th, NULL);
    dst->oom = true;
    FREE_ALL(smap, pmap, lmap);
    return SLICE_NONE;
}
#undef APPEND_COL
#undef APPEND_MAP
#undef HAND_ON
#undef GROW_COL
