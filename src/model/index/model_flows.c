/* Flow binding at finalize: raw flow points grouped by key, bound to the slice that
 * encloses them, and the flows indexed by source and destination slice. */
#include "model/index/model.h"
#include "model/index/model_internal.h"
#include "util/grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int ph_rank(uint8_t ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; }

/* a and b point into one array of points (their order there is the file's, the last
 * tie-break) */
static int cmp_point(const void *x, const void *y)
{
    const struct raw_point *a = x, *b = y;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    if (a->id_is_str != b->id_is_str) return a->id_is_str < b->id_is_str ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (ph_rank(a->ph) != ph_rank(b->ph)) return ph_rank(a->ph) - ph_rank(b->ph);
    return (a > b) - (a < b);
}

/* First i in [a, b) with start[i] > t, searched outward from a hint (the previous answer in
 * this row): flow points come in nearly increasing time, so this touches few cache lines
 * where a plain binary search over a million-slice row would miss on every step. */
static uint32_t gallop_after(const struct model *m, uint32_t a, uint32_t b, ns_t t, uint32_t h)
{
    uint32_t lo = a, hi = b, step = 1;   /* the answer is in [lo, hi] */
    if (h < a || h > b)
        h = a;
    if (h < b && m->start[h] <= t) {
        lo = h + 1;   /* forward: everything before lo is <= t */
        for (;;) {
            uint32_t p = b - lo >= step ? lo + step - 1 : b;
            if (p >= b) {
                hi = b;
                break;
            }
            if (m->start[p] > t) {
                hi = p;
                break;
            }
            lo = p + 1;
            step *= 2;
        }
    } else {
        hi = h;       /* backward: start[hi] > t or hi == b */
        lo = a;
        while (hi > a) {
            uint32_t p = hi - a > step ? hi - step : a;
            if (m->start[p] > t) {
                hi = p;
                step *= 2;
            } else {
                lo = p + 1;
                break;
            }
        }
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

struct binder { uint32_t *row_base, *hint; };

static uint32_t slice_enclosing_hint(const struct model *m, uint32_t lane, ns_t t, const struct binder *bd)
{
    const struct lane *l = &m->lanes[lane];
    uint32_t *hint = bd->hint + bd->row_base[lane];
    for (uint32_t d = l->ndepth; d-- > 0;) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = gallop_after(m, a, b, t, hint[d]);
        hint[d] = i;
        if (i > a && model_slice_contains(m, i - 1, t))
            return i - 1;
    }
    return SLICE_NONE;
}

static uint32_t bind_point(const struct model *m, const struct raw_point *p, const struct binder *bd)
{
    if (p->lane >= m->nlanes || !m->lanes[p->lane].row_first)
        return SLICE_NONE;
    if (p->ph == 'f' && !p->bp_e)
        return model_slice_next_at(m, p->lane, p->ts);
    if (bd)
        return slice_enclosing_hint(m, p->lane, p->ts, bd);
    return model_slice_enclosing(m, p->lane, p->ts);
}

static struct flow make_flow(const struct model *m, const struct raw_point *s, const struct raw_point *f,
                             const struct binder *bd)
{
    const struct raw_point *any = s ? s : f;
    struct flow fl = { .cat = any->cat, .name = any->name, .id = any->id, .id_is_str = any->id_is_str,
                       .src = SLICE_NONE, .dst = SLICE_NONE, .src_lane = LANE_NONE, .dst_lane = LANE_NONE,
                       .src_ts = NS_NONE, .dst_ts = NS_NONE };
    if (s) {
        fl.src = bind_point(m, s, bd);
        fl.src_lane = s->lane;
        fl.src_ts = s->ts;
    }
    if (f) {
        fl.dst = bind_point(m, f, bd);
        fl.dst_lane = f->lane;
        fl.dst_ts = f->ts;
    }
    return fl;
}

static uint64_t point_hash(const struct raw_point *p)
{
    return hash_mix64(p->id ^ ((uint64_t)p->cat << 32) ^ ((uint64_t)p->id_is_str << 31));
}

static bool same_key(const struct raw_point *a, const struct raw_point *b)
{
    return a->cat == b->cat && a->id == b->id && a->id_is_str == b->id_is_str;
}

static int cmp_point_at(const void *x, const void *y, void *ctx)
{
    const struct raw_point *pts = ctx;
    return cmp_point(&pts[*(const uint32_t *)x], &pts[*(const uint32_t *)y]);
}

/* Orders the flow points (b->ord, an index into b->pts) so that each (cat, id) key's points
 * are contiguous (keys in order of first appearance) and, within a key, in (ts, s/t/f, file)
 * order. A hash grouping and a counting sort: linear, where sorting all points by key was the
 * slowest part of finalize; indices rather than moved points keep the memory touched small. */
int model_group_points(struct build *b)
{
    /* at most two thirds full even when every point has a key of its own (points come in
     * pairs, so a third is usual): a smaller table misses the caches less */
    size_t np = b->npts, nslots = 64;
    while (nslots < np + np / 2)
        nslots *= 2;
    /* scratch from resident memory where a merged-away part left some */
    uint32_t *slot = model_scratch(b, nslots * sizeof *slot);      /* first point of a key + 1 */
    uint32_t *grp = model_scratch(b, np * sizeof *grp);
    uint32_t *gfirst = model_scratch(b, (np + 1) * sizeof *gfirst);  /* per group: count, then offset */
    uint32_t *ord = model_scratch(b, np * sizeof *ord);
    if (slot)
        memset(slot, 0, nslots * sizeof *slot);
    if (!slot || !grp || !gfirst || !ord) {
        free(slot); free(grp); free(gfirst); free(ord);
        return -1;
    }
    uint32_t ng = 0;
    /* hashes first, so the probe loop can prefetch slots a few points ahead (the table is
     * far larger than the caches on big captures) */
    ns_t lo = NS_NONE, hi = NS_NONE;   /* the points' time span, for the model's */
    for (size_t i = 0; i < np; i++) {
        grp[i] = (uint32_t)point_hash(&b->pts[i]);
        ns_range_widen(&lo, &hi, b->pts[i].ts, b->pts[i].ts);
    }
    b->pts_lo = lo;
    b->pts_hi = hi;
    b->pts_spanned = true;
    for (size_t i = 0; i < np; i++) {
#if defined(__GNUC__)
        if (i + 16 < np)
            __builtin_prefetch(&slot[grp[i + 16] & (nslots - 1)]);
#endif
        size_t h = grp[i] & (nslots - 1);
        while (slot[h] && !same_key(&b->pts[slot[h] - 1], &b->pts[i]))
            h = (h + 1) & (nslots - 1);
        if (!slot[h]) {
            slot[h] = (uint32_t)i + 1;
            grp[i] = ng;
            gfirst[ng++] = 0;
        } else {
            grp[i] = grp[slot[h] - 1];
        }
        gfirst[grp[i]]++;
    }
    free(slot);
    uint32_t off = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t c = gfirst[g];
        gfirst[g] = off;
        off += c;
    }
    gfirst[ng] = off;
    for (size_t i = 0; i < np; i++)
        ord[gfirst[grp[i]]++] = (uint32_t)i;
    free(grp);
    /* gfirst[g] is now the end of group g; sort each small group in place */
    uint32_t start = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t end = gfirst[g];
        if (end - start > 16) {
            qsort_r(ord + start, end - start, sizeof *ord, cmp_point_at, b->pts);
        } else {
            for (uint32_t i = start + 1; i < end; i++) {
                uint32_t k = ord[i], j = i;
                while (j > start && cmp_point(&b->pts[k], &b->pts[ord[j - 1]]) < 0) {
                    ord[j] = ord[j - 1];
                    j--;
                }
                ord[j] = k;
            }
        }
        start = end;
    }
    free(gfirst);
    free(b->ord);
    b->ord = ord;
    return 0;
}

/* idx = indices of flows with a bound end, ordered by that end's slice (counting sort);
 * end_of[i] is flow i's end (a slice, or SLICE_NONE). cnt: room for nslices + 1 counts, or
 * NULL to allocate them. */
static int index_flows(struct model *m, const uint32_t *end_of, uint32_t *cnt, uint32_t **idx, size_t *n)
{
    uint32_t *own = NULL;
    if (cnt)
        memset(cnt, 0, ((size_t)m->nslices + 1) * sizeof *cnt);
    else
        cnt = own = model_zeroed(((size_t)m->nslices + 1) * sizeof *cnt);
    size_t total = 0;
    if (!cnt)
        return -1;
    for (size_t i = 0; i < m->nflows; i++) {
        uint32_t s = end_of[i];
        if (s < m->nslices) {
            cnt[s + 1]++;
            total++;
        }
    }
    uint32_t *out = model_realloc_big(NULL, total * sizeof *out + 4);
    if (!out) {
        free(own);
        return -1;
    }
    for (uint32_t s = 0; s < m->nslices; s++)
        cnt[s + 1] += cnt[s];
    for (size_t i = 0; i < m->nflows; i++) {
        uint32_t s = end_of[i];
        if (s < m->nslices)
            out[cnt[s]++] = (uint32_t)i;
    }
    free(own);
    *idx = out;
    *n = total;
    return 0;
}

/* Pairs and binds the flows of the key groups starting in points [g0, g1) (of b->ord order),
 * writing them from out on: one per f point (with its key's s) and one per s no f took. */
struct bind_job {
    const struct model *m;
    struct build *b;
    size_t g0, g1;
    struct flow *out;
    size_t nout, matched;
    int rc;
};

static void bind_groups(struct bind_job *j)
{
    const struct model *m = j->m;
    struct build *b = j->b;
    const uint32_t *ord = b->ord;
    /* per-row hints: each job its own (flow points come in nearly increasing time) */
    struct binder binder = { calloc((size_t)m->nlanes + 1, sizeof(uint32_t)), NULL };
    const struct binder *bd = NULL;
    if (binder.row_base) {
        uint32_t rows = 0;
        for (uint32_t l = 0; l < m->nlanes; l++) {
            binder.row_base[l] = rows;
            rows += m->lanes[l].ndepth;
        }
        binder.hint = calloc((size_t)rows + 1, sizeof(uint32_t));
        for (uint32_t l = 0; binder.hint && l < m->nlanes; l++)
            for (uint32_t d = 0; d < m->lanes[l].ndepth; d++)
                binder.hint[binder.row_base[l] + d] = m->lanes[l].row_first[d];
        if (binder.hint)
            bd = &binder;
    }
#define PT(k) (&b->pts[ord ? ord[k] : (k)])
    for (size_t g = j->g0; g < j->g1;) {
        size_t e = g + 1;
        while (e < j->g1 && same_key(PT(e), PT(g)))
            e++;
        for (size_t i = g; i < e; i++)   /* lanes as finalized (here: on this job's thread) */
            PT(i)->lane = PT(i)->lane < m->nlanes ? m->lane_build_to_final[PT(i)->lane] : LANE_NONE;
        /* within the key: time order, s before t before f at equal times */
        /* a step point (ph "t") binds like an end (the slice enclosing it) and starts the
         * chain's next segment: s -> t -> ... -> f is one flow per segment */
        size_t first_s = SIZE_MAX;
        for (size_t i = g; i < e && first_s == SIZE_MAX; i++)
            if (PT(i)->ph == 's')
                first_s = i;
        /* matched: some record of the key joins two points (s or t to t or f), the one
         * definition every count uses (model_flows_matched_cat) */
        bool joined = false;
        size_t last_s = SIZE_MAX;
        for (size_t i = g; i < e; i++) {
            const struct raw_point *p = PT(i);
            if (p->ph == 's') {
                last_s = i;
            } else if (p->ph == 'f' || p->ph == 't') {
                size_t si = last_s != SIZE_MAX ? last_s : first_s;
                j->out[j->nout++] = make_flow(m, si != SIZE_MAX ? PT(si) : NULL, p, bd);
                joined |= si != SIZE_MAX;
                if (si != SIZE_MAX)
                    PT(si)->bp_e |= 2;   /* mark the s as used */
                if (p->ph == 't') {
                    PT(i)->bp_e |= 2;    /* a step is never an unpaired start */
                    last_s = i;
                }
            }
        }
        for (size_t i = g; i < e; i++)
            if (PT(i)->ph == 's' && !(PT(i)->bp_e & 2))
                j->out[j->nout++] = make_flow(m, PT(i), NULL, bd);
        j->matched += joined;
        g = e;
    }
#undef PT
    free(binder.row_base);
    free(binder.hint);
}

/* How many flows bind_groups writes for the key groups in points [g0, g1): one per f or t
 * point and one per s that none of them takes (an f or t takes the last s or t before it, else
 * its key's first s). Cheap: nothing is bound. */
static size_t count_flows(const struct build *b, size_t g0, size_t g1)
{
    const uint32_t *ord = b->ord;
    size_t n = 0;
#define PT(k) (&b->pts[ord ? ord[k] : (k)])
    for (size_t g = g0; g < g1;) {
        size_t e = g + 1, first_s = SIZE_MAX;
        while (e < g1 && same_key(PT(e), PT(g)))
            e++;
        for (size_t i = g; i < e && first_s == SIZE_MAX; i++)
            if (PT(i)->ph == 's')
                first_s = i;
        /* the s points taken come in order (the first s may be taken before it comes): one
         * remembered is enough to count each once */
        size_t last_s = SIZE_MAX, taken = SIZE_MAX;
        for (size_t i = g; i < e; i++) {
            uint8_t ph = PT(i)->ph;
            if (ph == 's') {
                n++;
                last_s = i;
            } else if (ph == 'f' || ph == 't') {
                n++;
                size_t si = last_s != SIZE_MAX ? last_s : first_s;
                if (si != SIZE_MAX && PT(si)->ph == 's' && si != taken) {
                    n--;
                    taken = si;
                }
                if (ph == 't')
                    last_s = i;
            }
        }
        g = e;
    }
#undef PT
    return n;
}

/* The second half: where its flows go is known once the first half's are counted. */
static void *bind_main(void *arg)
{
    struct bind_job *j = arg;
    j->out += count_flows(j->b, 0, j->g0);
    bind_groups(j);
    return NULL;
}

struct index_job { struct model *m; const uint32_t *end_of; uint32_t *cnt; uint32_t **idx; size_t *n; int rc; };

static void *index_main(void *arg)
{
    struct index_job *j = arg;
    j->rc = index_flows(j->m, j->end_of, j->cnt, j->idx, j->n);
    return NULL;
}

int model_flows_room(struct model *m)
{
    const struct build *b = B(m);
    /* at most one flow per point, per direct flow and per correlation entry */
    size_t cap = b->npts + b->ndirect + b->ncorr + 1;
    if (m->flows && m->flows_cap >= cap)
        return 0;
    free(m->flows);
    m->flows = model_realloc_big(NULL, cap * sizeof *m->flows);
    m->flows_cap = m->flows ? cap : 0;
    return m->flows ? 0 : -1;
}

/* grouped: group_points already ran (on another thread, while the slices were sorted) */
int model_finalize_flows(struct model *m, bool grouped)
{
    struct build *b = B(m);
    size_t np = b->npts;
    if (!grouped && np > 1 && model_group_points(b) < 0)
        return -1;
    if (model_flows_room(m) < 0)
        return -1;
    /* two halves at a key boundary; the second writes right after where the first half's
     * flows end (counted first, on its thread): no gap to fill and no copy */
    struct bind_job job[2] = { { m, b, 0, np, m->flows, 0, 0, 0 }, { m, b, np, np, NULL, 0, 0, 0 } };
    pthread_t th;
    bool threaded = false;
    if (np >= model_thread_min && np > 1 && b->ord) {
        size_t h = np / 2;
        while (h < np && same_key(&b->pts[b->ord[h]], &b->pts[b->ord[h - 1]]))
            h++;
        job[0].g1 = job[1].g0 = h;
        job[1].out = m->flows;
        threaded = pthread_create(&th, NULL, bind_main, &job[1]) == 0;
        if (!threaded)
            job[0].g1 = np;
    }
    bind_groups(&job[0]);
    if (threaded) {
        pthread_join(th, NULL);
        if (m->flows + job[0].nout != job[1].out)
            return -1;   /* the count disagrees with the binding: never, but not silently */
    }
    m->nflows = job[0].nout + job[1].nout;
    m->flows_matched = job[0].matched + job[1].matched;
    for (size_t j = 0; j < b->ndirect; j++) {
        struct direct_flow *d = &b->direct[j];
        uint32_t s = d->src < m->nslices ? m->build_to_final[d->src] : SLICE_NONE;
        uint32_t t = d->dst < m->nslices ? m->build_to_final[d->dst] : SLICE_NONE;
        m->flows[m->nflows++] = (struct flow){ .cat = d->cat, .id = j, .src = s, .dst = t,
            .src_lane = s != SLICE_NONE ? m->lane[s] : LANE_NONE, .dst_lane = t != SLICE_NONE ? m->lane[t] : LANE_NONE,
            .src_ts = s != SLICE_NONE ? m->start[s] : NS_NONE, .dst_ts = t != SLICE_NONE ? m->start[t] : NS_NONE };
        if (s != SLICE_NONE && t != SLICE_NONE)
            m->flows_matched++;
    }
    if (model_correlation_flows(m) < 0)
        return -1;
    struct flow *fit = grow_exact(m->flows, (size_t)m->nflows + 1, sizeof *m->flows);
    if (fit) {
        m->flows = fit;
        m->flows_cap = m->nflows;
    }
    /* the ends of every flow, gathered once: the two indexes then read 4 bytes a flow
     * instead of a whole flow each, twice. They and the indexes' counts go where the flow
     * points were (bound now, and resident) when those have room: the peak does not grow by
     * them, and no fresh page is faulted in and zeroed for them. */
    size_t need = (m->nflows + 1) * sizeof(uint32_t), counts = ((size_t)m->nslices + 1) * sizeof(uint32_t);
    uint32_t *src_of, *dst_of, *own = NULL, *src_cnt = NULL, *dst_cnt = NULL;
    if (b->pts && b->pts_cap * sizeof *b->pts >= 2 * need) {
        src_of = (uint32_t *)(void *)b->pts;
        b->npts = 0;   /* the points are gone from here on */
        if (b->pts_cap * sizeof *b->pts >= 2 * need + 2 * counts) {
            src_cnt = src_of + 2 * (m->nflows + 1);
            dst_cnt = src_cnt + m->nslices + 1;
        }
    } else {
        src_of = own = model_realloc_big(NULL, 2 * need);
        if (!own)
            return -1;
    }
    dst_of = src_of + m->nflows + 1;
    m->flows_unmatched = 0;
    for (size_t i = 0; i < m->nflows; i++) {
        src_of[i] = m->flows[i].src;
        dst_of[i] = m->flows[i].dst;
        m->flows_unmatched += src_of[i] == SLICE_NONE || dst_of[i] == SLICE_NONE;
    }
    /* the two indexes are independent: the second on a thread when large */
    struct index_job ij = { m, dst_of, dst_cnt, &m->flows_by_dst, &m->nflows_by_dst, 0 };
    threaded = m->nflows >= model_thread_min && pthread_create(&th, NULL, index_main, &ij) == 0;
    int rc = index_flows(m, src_of, src_cnt, &m->flows_by_src, &m->nflows_by_src);
    if (threaded)
        pthread_join(th, NULL);
    else
        ij.rc = index_flows(m, dst_of, dst_cnt, &m->flows_by_dst, &m->nflows_by_dst);
    free(own);
    return rc < 0 || ij.rc < 0 ? -1 : 0;
}
