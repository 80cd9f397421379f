/* Flow chains, launchers, launch latency, queue delay and host-bound idle (see flowstats.h). */
#include "model/analysis/flowstats.h"
#include "util/grow.h"

#include "util/free_all.h"
#include "model/index/named_slice.h"
#include "model/analysis/steps.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/search.h"

/* --- small helpers ---------------------------------------------------------------------- */

static bool host_kind(enum lane_kind k)
{
    return k == LANE_PYTHON || k == LANE_CANN || k == LANE_OTHER || k == LANE_MSTX;
}

/* GraphLaunch, ModelExecute, aclmdlExecute, aclmdlRIExecute in any case: one pass that
 * compares only where "execute" or "launch" could begin (names are many and long). */
static bool graph_launch_name(const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = (char)(*p | 0x20);
        size_t off = (size_t)(p - s);
        if (c == 'e' && off >= 5 && !strncasecmp(p, "execute", 7)) {
            if (!strncasecmp(p - 5, "model", 5) || (off >= 6 && !strncasecmp(p - 6, "aclmdl", 6)) ||
                (off >= 8 && !strncasecmp(p - 8, "aclmdlri", 8)))
                return true;
        } else if (c == 'l' && off >= 5 && !strncasecmp(p, "launch", 6) &&
                   !strncasecmp(p - 5, "graph", 5)) {
            return true;
        }
    }
    return false;
}

/* Host lanes of other processes with the same thread id text as lane l. */
static size_t same_thread_lanes(const struct model *m, uint32_t l, uint32_t *out, size_t cap)
{
    size_t n = 0;
    const struct lane *ln = &m->lanes[l];
    if (!host_kind(ln->kind))
        return 0;
    for (uint32_t i = 0; i < m->nlanes && n < cap; i++)
        if (i != l && m->lanes[i].key == ln->key && m->lanes[i].proc != ln->proc &&
            host_kind(m->lanes[i].kind))
            out[n++] = i;
    return n;
}

/* --- a set of slice indices (open addressing) ---------------------------------------------- */

struct sset { uint32_t *k; size_t cap, n; };

static int sset_add(struct sset *s, uint32_t v)   /* 1 added, 0 present, -1 out of memory */
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        uint32_t *nk = malloc(nc * sizeof *nk);
        if (!nk)
            return -1;
        memset(nk, 0xff, nc * sizeof *nk);
        for (size_t i = 0; i < s->cap; i++)
            if (s->k[i] != UINT32_MAX) {
                size_t h = (s->k[i] * 2654435761u) & (nc - 1);
                while (nk[h] != UINT32_MAX)
                    h = (h + 1) & (nc - 1);
                nk[h] = s->k[i];
            }
        free(s->k);
        s->k = nk;
        s->cap = nc;
    }
    size_t h = (v * 2654435761u) & (s->cap - 1);
    while (s->k[h] != UINT32_MAX) {
        if (s->k[h] == v)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->k[h] = v;
    s->n++;
    return 1;
}

/* --- chains ------------------------------------------------------------------------------ */

struct chain {
    const struct model *m;
    struct flow_hop *h;
    size_t n, cap;
    bool *stop;        /* per hop: shown but not followed (fwdbwd targets) */
    struct sset seen;
    bool oom;
    size_t max;        /* 0: no limit; else hops beyond it are dropped and `truncated` set */
    bool truncated;
};

static void chain_push(struct chain *c, uint32_t slice, enum flow_hop_kind kind, uint32_t cat,
                       uint32_t from, bool stop)
{
    if (c->oom || slice == SLICE_NONE || slice >= c->m->nslices)
        return;
    if (c->max && c->n >= c->max) {
        c->truncated = true;
        return;
    }
    int added = sset_add(&c->seen, slice);
    if (added <= 0) {
        c->oom = added < 0;
        return;
    }
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 32;
        struct flow_hop *nh = grow_exact(c->h, nc, sizeof *nh);
        bool *ns = nh ? grow_exact(c->stop, nc, sizeof *ns) : NULL;
        if (!nh || !ns) {
            if (nh)
                c->h = nh;
            c->oom = true;
            return;
        }
        c->h = nh;
        c->stop = ns;
        c->cap = nc;
    }
    c->h[c->n] = (struct flow_hop){
        .slice = slice, .lane = c->m->lane[slice], .ts = c->m->start[slice], .kind = kind,
        .cat = kind == HOP_FLOW ? cat : 0, .from = from,
        .level = from == UINT32_MAX ? 0 : c->h[from].level + 1,
    };
    c->stop[c->n] = stop;
    c->n++;
}

static uint32_t fwdbwd_cat(const struct model *m)
{
    return strtab_find(m->str, "fwdbwd", 6);
}

/* Slices with an outgoing flow inside [s0, s1] on lane l (any depth). */
static void push_enclosed(struct chain *c, uint32_t lane, uint32_t x, uint32_t from)
{
    const struct model *m = c->m;
    ns_t s0 = m->start[x], s1 = model_end(m, x);
    const struct lane *ln = &m->lanes[lane];
    for (uint32_t d = 0; d < ln->ndepth && !c->oom; d++) {
        uint32_t a, b;
        model_row_range(m, lane, d, s0, s1 + 1, &a, &b);
        for (uint32_t y = a; y < b; y++) {
            if (y == x || m->start[y] < s0 || model_end(m, y) > s1)
                continue;
            if (m->start[y] == s0 && model_end(m, y) == s1 && lane == m->lane[x] && m->depth[y] < m->depth[x])
                continue;   /* same range, above x: encloses x rather than the reverse */
            const uint32_t *f;
            if (model_flows_from(m, y, &f))
                chain_push(c, y, HOP_ENCLOSED, 0, from, false);
        }
    }
}

static void expand_forward(struct chain *c, size_t i, uint32_t fb)
{
    const struct model *m = c->m;
    uint32_t x = c->h[i].slice;
    const uint32_t *f;
    size_t nf = model_flows_from(m, x, &f);
    for (size_t k = 0; k < nf; k++) {
        const struct flow *fl = &m->flows[f[k]];
        if (fl->src == x && fl->dst != SLICE_NONE)
            chain_push(c, fl->dst, HOP_FLOW, fl->cat, (uint32_t)i, fl->cat == fb);
    }
    /* a slice reached as "enclosed" was found by a search that already covered its inside */
    if (c->h[i].kind == HOP_ENCLOSED || !host_kind(m->lanes[m->lane[x]].kind))
        return;
    uint32_t lanes[64];
    lanes[0] = m->lane[x];
    size_t nl = 1 + same_thread_lanes(m, m->lane[x], lanes + 1, 63);
    for (size_t k = 0; k < nl; k++)
        push_enclosed(c, lanes[k], x, (uint32_t)i);
}

/* The deepest slice on lane l enclosing [s0, s1], or SLICE_NONE. */
static uint32_t enclosing_on(const struct model *m, uint32_t l, ns_t s0, ns_t s1)
{
    uint32_t y = model_slice_at(m, l, s0);
    while (y != SLICE_NONE && (m->start[y] > s0 || model_end(m, y) < s1))
        y = model_parent(m, y);
    return y;
}

static void expand_backward(struct chain *c, size_t i, uint32_t fb)
{
    const struct model *m = c->m;
    uint32_t x = c->h[i].slice;
    const uint32_t *f;
    size_t nf = model_flows_to(m, x, &f);
    bool flow_in = false;
    for (size_t k = 0; k < nf; k++) {
        const struct flow *fl = &m->flows[f[k]];
        if (fl->dst != x)
            continue;
        flow_in = true;
        if (fl->src != SLICE_NONE)
            chain_push(c, fl->src, HOP_FLOW, fl->cat, (uint32_t)i, fl->cat == fb);
    }
    uint32_t lane = m->lane[x];
    enum lane_kind kind = m->lanes[lane].kind;
    if (host_kind(kind)) {
        /* device tasks that overlap do not launch one another: enclosing is a host notion */
        chain_push(c, model_parent(m, x), HOP_ENCLOSING, 0, (uint32_t)i, false);
        uint32_t lanes[64];
        size_t nl = same_thread_lanes(m, lane, lanes, 64);
        for (size_t k = 0; k < nl; k++)
            chain_push(c, enclosing_on(m, lanes[k], m->start[x], model_end(m, x)), HOP_THREAD, 0,
                       (uint32_t)i, false);
    } else if (kind == LANE_DEVICE && !flow_in) {
        enum flow_launch_how how;
        uint32_t g = flow_launcher(m, x, &how);
        if (how == LAUNCH_GRAPH)
            chain_push(c, g, HOP_GRAPH, 0, (uint32_t)i, false);
    }
}

static size_t chain_run(const struct model *m, uint32_t slice, struct flow_hop **out, bool fwd,
                        size_t max, bool *truncated)
{
    *out = NULL;
    if (truncated)
        *truncated = false;
    if (!m || !m->finalized || slice >= m->nslices)
        return 0;
    struct chain c = { .m = m, .max = max };
    uint32_t fb = fwdbwd_cat(m);
    chain_push(&c, slice, HOP_ORIGIN, 0, UINT32_MAX, false);
    for (size_t i = 0; i < c.n && !c.oom; i++) {
        if (c.stop[i])
            continue;
        if (fwd)
            expand_forward(&c, i, fb);
        else
            expand_backward(&c, i, fb);
    }
    free(c.stop);
    free(c.seen.k);
    if (truncated)
        *truncated = c.truncated;
    if (c.oom) {
        free(c.h);
        return 0;
    }
    *out = c.h;
    return c.n;
}

size_t flow_chain_forward(const struct model *m, uint32_t slice, struct flow_hop **out)
{
    return chain_run(m, slice, out, true, 0, NULL);
}

size_t flow_chain_forward_max(const struct model *m, uint32_t slice, size_t max_hops,
                              struct flow_hop **out, bool *truncated)
{
    return chain_run(m, slice, out, true, max_hops, truncated);
}

size_t flow_chain_backward(const struct model *m, uint32_t slice, struct flow_hop **out)
{
    return chain_run(m, slice, out, false, 0, NULL);
}

const char *flow_hop_category(const struct model *m, const struct flow_hop *h)
{
    switch (h->kind) {
    case HOP_ORIGIN:    return "origin";
    case HOP_FLOW:      return model_str(m, h->cat);
    case HOP_ENCLOSED:  return "enclosed";
    case HOP_ENCLOSING: return "enclosing";
    case HOP_THREAD:    return "thread";
    case HOP_GRAPH:     return "graph_launch";
    }
    return "?";
}

/* --- launchers --------------------------------------------------------------------------- */

/* The flow launcher of s: the bound source starting last. *in: whether any flow ends on s. */
static uint32_t flow_source(const struct model *m, uint32_t s, bool *in, bool *multi, bool *by_corr)
{
    const uint32_t *f;
    size_t nf = model_flows_to(m, s, &f);
    uint32_t best = SLICE_NONE;
    *in = false;
    if (by_corr)
        *by_corr = false;
    if (multi)
        *multi = false;
    for (size_t k = 0; k < nf; k++) {
        const struct flow *fl = &m->flows[f[k]];
        if (fl->dst != s)
            continue;
        *in = true;
        if (fl->src == SLICE_NONE || fl->src == s)
            continue;
        if (multi)
            for (size_t j = 0; j < k; j++) {
                const struct flow *o = &m->flows[f[j]];
                if (o->dst == s && o->cat == fl->cat && o->src != SLICE_NONE && o->src != fl->src)
                    *multi = true;
            }
        if (best == SLICE_NONE || m->start[fl->src] > m->start[best]) {
            best = fl->src;
            if (by_corr)
                *by_corr = fl->by_correlation;
        }
    }
    return best;
}

/* Latest graph launch on host lanes starting in [t - FLOW_GRAPH_WINDOW, t]. */
static uint32_t graph_walk(const struct model *m, ns_t t)
{
    uint32_t best = SLICE_NONE;
    uint32_t memo_id[1024];       /* direct-mapped: name id -> is a graph launch */
    bool memo_yes[1024];
    memset(memo_id, 0xff, sizeof memo_id);
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (!host_kind(ln->kind))
            continue;
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            uint32_t a, b;
            model_row_range(m, l, d, t - FLOW_GRAPH_WINDOW, t + 1, &a, &b);
            for (uint32_t y = b; y-- > a; ) {
                if (m->start[y] > t || m->start[y] < t - FLOW_GRAPH_WINDOW)
                    continue;
                if (best != SLICE_NONE && (m->start[y] < m->start[best] ||
                                           (m->start[y] == m->start[best] && y <= best)))
                    break;   /* ties go to the highest slice index, as graph_lookup does */
                uint32_t nm = m->name[y], h = (nm * 2654435761u) >> 22;
                if (memo_id[h] != nm) {
                    memo_id[h] = nm;
                    memo_yes[h] = graph_launch_name(model_str(m, nm));
                }
                if (memo_yes[h]) {
                    best = y;
                    break;
                }
            }
        }
    }
    return best;
}

uint32_t flow_launcher(const struct model *m, uint32_t kernel, enum flow_launch_how *how)
{
    enum flow_launch_how dummy;
    if (!how)
        how = &dummy;
    *how = LAUNCH_NONE;
    if (!m || kernel >= m->nslices)
        return SLICE_NONE;
    bool in;
    uint32_t s = flow_source(m, kernel, &in, NULL, NULL);
    if (s != SLICE_NONE) {
        *how = LAUNCH_FLOW;
        return s;
    }
    if (in || m->lanes[m->lane[kernel]].kind != LANE_DEVICE)
        return SLICE_NONE;
    s = graph_walk(m, m->start[kernel]);
    if (s != SLICE_NONE)
        *how = LAUNCH_GRAPH;
    return s;
}

/* --- figures ----------------------------------------------------------------------------- */

static int cmp_ns(const void *a, const void *b)
{
    ns_t x = *(const ns_t *)a, y = *(const ns_t *)b;
    return x < y ? -1 : x > y;
}

static ns_t rank_pct(const ns_t *v, size_t n, unsigned pct)
{
    size_t r = (n * pct + 99) / 100;
    return v[r ? r - 1 : 0];
}

/* Fills l from sorted values v[0..n). */
static void lat_fill(struct flow_lat *l, const ns_t *v, size_t n)
{
    memset(l, 0, sizeof *l);
    l->n = n;
    if (!n)
        return;
    l->p50 = rank_pct(v, n, 50);
    l->p90 = rank_pct(v, n, 90);
    l->p99 = rank_pct(v, n, 99);
    l->max = v[n - 1];
    for (size_t i = 0; i < n; i++)
        l->total += v[i];
}

static int cmp_kernel_p99(const void *a, const void *b)
{
    const struct flow_kernel_lat *x = a, *y = b;
    if (x->lat.p99 != y->lat.p99)
        return x->lat.p99 > y->lat.p99 ? -1 : 1;
    if (x->lat.n != y->lat.n)
        return x->lat.n > y->lat.n ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cat_stats(const struct model *m, struct flowstats *fs)
{
    size_t cap = 0;
    for (size_t i = 0; i < m->nflows; i++) {
        const struct flow *fl = &m->flows[i];
        if (fl->by_correlation)
            continue;   /* joined by aptop, not a record of the file */
        size_t c = 0;
        while (c < fs->ncats && fs->cats[c].cat != fl->cat)
            c++;
        if (c == fs->ncats) {
            struct flow_cat_stats *n = grow_array(fs->cats, &cap, fs->ncats + 1, sizeof *n);
            if (!n)
                return -1;
            fs->cats = n;
            memset(&n[c], 0, sizeof n[c]);
            n[c].cat = fl->cat;
            n[c].matched = model_flows_matched_cat(m, fl->cat);
            fs->ncats++;
        }
        struct flow_cat_stats *cs = &fs->cats[c];
        cs->flows++;
        /* each record in exactly one of: no partner (a point missing), unbound (both points,
         * one landed on no slice), bound */
        bool has_s = fl->src != SLICE_NONE || fl->src_ts != NS_NONE;
        bool has_f = fl->dst != SLICE_NONE || fl->dst_ts != NS_NONE;
        bool bound = fl->src != SLICE_NONE && fl->dst != SLICE_NONE;
        cs->missing_start += !has_s;
        cs->missing_end += !has_f;
        cs->unbound += has_s && has_f && !bound;
        cs->bound += bound;
    }
    /* qsort has no context argument: sort by name with a small insertion sort instead */
    for (size_t i = 1; i < fs->ncats; i++) {
        struct flow_cat_stats t = fs->cats[i];
        size_t j = i;
        while (j && strcmp(model_str(m, fs->cats[j - 1].cat), model_str(m, t.cat)) > 0) {
            fs->cats[j] = fs->cats[j - 1];
            j--;
        }
        fs->cats[j] = t;
    }
    return 0;
}

static int queue_stats(const struct model *m, struct flowstats *fs)
{
    uint32_t q = strtab_find(m->str, "async_task_queue", 16);
    size_t n = 0;
    ns_t *v = malloc((m->nflows + 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; q != UINT32_MAX && i < m->nflows; i++) {
        const struct flow *fl = &m->flows[i];
        if (fl->cat == q && fl->src != SLICE_NONE && fl->dst != SLICE_NONE)
            v[n++] = m->start[fl->dst] - m->start[fl->src];
    }
    qsort(v, n, sizeof *v, cmp_ns);
    lat_fill(&fs->queue, v, n);
    free(v);
    return 0;
}

/* Graph launches on host lanes, sorted by start; names are tested once per distinct name. */
static struct slice_start *graph_launches(const struct model *m, size_t *n)
{
    uint32_t nnames = strtab_count(m->str);
    uint8_t *memo = calloc((size_t)nnames + 1, 1);   /* 0 unknown, 1 yes, 2 no */
    struct slice_start *g = NULL;
    size_t cnt = 0, cap = 0;
    *n = 0;
    if (!memo)
        return NULL;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (!host_kind(ln->kind))
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            uint32_t nm = m->name[s];
            if (nm < nnames && !memo[nm])
                memo[nm] = graph_launch_name(model_str(m, nm)) ? 1 : 2;
            if (nm >= nnames || memo[nm] != 1)
                continue;
            if (cnt == cap) {
                struct slice_start *ng = grow_array(g, &cap, cnt + 1, sizeof *ng);
                if (!ng) {
                    FREE_ALL(g, memo);
                    return NULL;
                }
                g = ng;
            }
            g[cnt++] = (struct slice_start){ m->start[s], s };
        }
    }
    free(memo);
    if (cnt)
        qsort(g, cnt, sizeof *g, slice_start_cmp);
    *n = cnt;
    return g;
}

/* Latest graph launch starting in [t - window, t]; the same rule as graph_walk. When several
 * start at the same time, the one with the highest slice index wins (as the walk does per row). */
static uint32_t graph_lookup(const struct slice_start *g, size_t n, ns_t t)
{
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, n, k, g[k].start <= t);
    if (!lo || g[lo - 1].start < t - FLOW_GRAPH_WINDOW)
        return SLICE_NONE;
    return g[lo - 1].slice;
}

static int launch_stats(const struct model *m, struct flowstats *fs)
{
    size_t ndev = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE)
            ndev += m->lanes[l].count;
    size_t ng = 0;
    struct slice_start *g = graph_launches(m, &ng);
    fs->launches = malloc((ndev + 1) * sizeof *fs->launches);
    ns_t *lat = malloc((ndev + 1) * sizeof *lat);
    struct named_slice *kl = malloc((ndev + 1) * sizeof *kl);   /* t: the launch latency */
    if (!fs->launches || !lat || !kl || (ng && !g)) {
        FREE_ALL(g, lat, kl);
        return -1;
    }
    size_t nl = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        size_t lane_none = 0, lane_flow = 0;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            bool in, multi, by_corr;
            struct flow_launch *fl = &fs->launches[fs->nlaunches++];
            fl->kernel = s;
            fl->launcher = flow_source(m, s, &in, &multi, &by_corr);
            fl->how = fl->launcher != SLICE_NONE ? LAUNCH_FLOW : LAUNCH_NONE;
            fs->multi_launcher += multi;
            if (fl->how == LAUNCH_NONE && !in) {
                fl->launcher = graph_lookup(g, ng, m->start[s]);
                if (fl->launcher != SLICE_NONE)
                    fl->how = LAUNCH_GRAPH;
            }
            if (fl->how == LAUNCH_FLOW) {
                fs->with_launcher++;
                fs->by_correlation += by_corr;
                lat[nl] = m->start[s] - m->start[fl->launcher];
                kl[nl] = (struct named_slice){ m->name[s], s, lat[nl] };
                nl++;
            } else if (fl->how == LAUNCH_GRAPH) {
                fs->graph_launched++;
            } else {
                fs->no_launcher++;
                lane_none++;
            }
            lane_flow += in;
        }
        if (!lane_flow)
            fs->no_launcher_flowless += lane_none;
    }
    fs->device_slices = ndev;
    fs->host_bound_known = fs->with_launcher > 0;
    free(g);
    qsort(lat, nl, sizeof *lat, cmp_ns);
    lat_fill(&fs->launch, lat, nl);
    /* per kernel name */
    qsort(kl, nl, sizeof *kl, named_slice_cmp);
    size_t groups = 0;
    for (size_t i = 0; i < nl; i++)
        groups += !i || kl[i].name != kl[i - 1].name;
    fs->kernels = malloc((groups + 1) * sizeof *fs->kernels);
    if (!fs->kernels) {
        FREE_ALL(lat, kl);
        return -1;
    }
    for (size_t i = 0; i < nl; ) {
        size_t j = i;
        while (j < nl && kl[j].name == kl[i].name)
            j++;
        for (size_t k = i; k < j; k++)
            lat[k - i] = kl[k].t;
        struct flow_kernel_lat *kr = &fs->kernels[fs->nkernels++];
        kr->name = kl[i].name;
        lat_fill(&kr->lat, lat, j - i);
        kr->worst = kl[j - 1].slice;
        i = j;
    }
    qsort(fs->kernels, fs->nkernels, sizeof *fs->kernels, cmp_kernel_p99);
    FREE_ALL(lat, kl);
    return 0;
}

const struct flow_launch *flowstats_launch(const struct flowstats *fs, uint32_t kernel)
{
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, fs ? fs->nlaunches : 0, k, fs->launches[k].kernel < kernel);
    return fs && lo < fs->nlaunches && fs->launches[lo].kernel == kernel ? &fs->launches[lo] : NULL;
}

/* Adds the gap [g0, g1) to the steps it overlaps (steps sorted by t0). */
static void gap_to_steps(struct flowstats *fs, ns_t g0, ns_t g1, bool host)
{
    size_t lo;   /* windows are sorted and disjoint: first with t1 > g0 */
    LOWER_BOUND(lo, (size_t)0, fs->nsteps, k, fs->steps[k].t1 <= g0);
    for (size_t i = lo; i < fs->nsteps; i++) {
        struct flow_step_idle *st = &fs->steps[i];
        if (st->t0 >= g1)
            break;
        ns_t a = g0 > st->t0 ? g0 : st->t0, b = g1 < st->t1 ? g1 : st->t1;
        if (b <= a)
            continue;
        st->idle += b - a;
        if (host) {
            st->host_bound += b - a;
            if (a < st->start)
                a = st->start;
            if (b > a)
                st->host_bound_inside += b - a;
        }
    }
}

int flowstats_gaps(const struct model *m, const struct flowstats *fs, flow_gap_fn fn, void *ctx)
{
    for (uint32_t p = 0; p < m->nprocs; p++) {
        const struct proc *pr = &m->procs[p];
        if (pr->kind != LANE_DEVICE)
            continue;
        size_t n = 0;
        for (uint32_t l = pr->first_lane; l < pr->first_lane + pr->nlanes; l++)
            if (m->lanes[l].kind == LANE_DEVICE)    /* not its Step Trace thread */
                n += m->lanes[l].count;
        if (n < 2)
            continue;
        struct slice_start *d = malloc(n * sizeof *d);
        if (!d)
            return -1;
        n = 0;
        for (uint32_t l = pr->first_lane; l < pr->first_lane + pr->nlanes; l++)
            for (uint32_t s = m->lanes[l].first; m->lanes[l].kind == LANE_DEVICE && s < m->lanes[l].first + m->lanes[l].count; s++)
                d[n++] = (struct slice_start){ m->start[s], s };
        qsort(d, n, sizeof *d, slice_start_cmp);
        ns_t busy_end = model_end(m, d[0].slice);
        uint32_t last = d[0].slice;
        for (size_t i = 1; i < n; i++) {
            uint32_t s = d[i].slice;
            if (d[i].start > busy_end) {
                const struct flow_launch *fl = flowstats_launch(fs, s);
                struct flow_gap g = { .proc = p, .t0 = busy_end, .t1 = d[i].start, .before = last, .after = s,
                                      .host_bound = fl && fl->how == LAUNCH_FLOW && m->start[fl->launcher] > busy_end };
                fn(&g, ctx);
            }
            if (model_end(m, s) > busy_end) {
                busy_end = model_end(m, s);
                last = s;
            }
        }
        free(d);
    }
    return 0;
}

struct idle_walk {
    struct flowstats *fs;
    size_t cap;        /* of fs->host_bound_list */
    bool oom;
};

static void idle_gap(const struct flow_gap *g, void *ctx)
{
    struct idle_walk *w = ctx;
    struct flowstats *fs = w->fs;
    ns_t gap = g->t1 - g->t0;
    fs->idle += gap;
    fs->gaps++;
    if (g->host_bound) {
        fs->host_bound_idle += gap;
        struct flow_gap *l = grow_array(fs->host_bound_list, &w->cap, fs->host_bound_gaps + 1, sizeof *l);
        if (l) {
            fs->host_bound_list = l;
            l[fs->host_bound_gaps] = *g;
        } else {
            w->oom = true;
        }
        fs->host_bound_gaps++;
    }
    gap_to_steps(fs, g->t0, g->t1, g->host_bound);
}

/* Each device's window, first kernel start to last kernel end, over the lanes the gaps walk. */
static void device_windows(const struct model *m, struct flowstats *fs)
{
    for (uint32_t p = 0; p < m->nprocs; p++) {
        const struct proc *pr = &m->procs[p];
        if (pr->kind != LANE_DEVICE)
            continue;
        ns_t t0 = NS_NONE, t1 = NS_NONE;
        for (uint32_t l = pr->first_lane; l < pr->first_lane + pr->nlanes; l++)
            for (uint32_t s = m->lanes[l].first; m->lanes[l].kind == LANE_DEVICE && s < m->lanes[l].first + m->lanes[l].count; s++) {
                if (t0 == NS_NONE || m->start[s] < t0)
                    t0 = m->start[s];
                if (t1 == NS_NONE || model_end(m, s) > t1)
                    t1 = model_end(m, s);
            }
        if (t0 != NS_NONE && t1 >= t0)
            fs->window += t1 - t0;
    }
}

static int idle_stats(const struct model *m, struct flowstats *fs)
{
    device_windows(m, fs);
    struct idle_walk w = { .fs = fs };
    return flowstats_gaps(m, fs, idle_gap, &w) < 0 || w.oom ? -1 : 0;
}

static int cmp_step_idle(const void *a, const void *b)
{
    const struct flow_step_idle *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int step_windows(struct flowstats *fs, const struct steps *steps)
{
    size_t n = steps_count(steps);
    if (!n)
        return 0;
    fs->steps = calloc(n, sizeof *fs->steps);
    if (!fs->steps)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct step *st = steps_get(steps, i);
        if (st->start == NS_NONE || st->end == NS_NONE || st->end < st->start)
            continue;
        fs->steps[fs->nsteps++] = (struct flow_step_idle){ .index = st->index, .t0 = st->start,
                                                           .t1 = st->end, .start = st->start };
    }
    qsort(fs->steps, fs->nsteps, sizeof *fs->steps, cmp_step_idle);
    /* each window reaches back to the previous step's end to hold the idle before it */
    for (size_t i = 1; i < fs->nsteps; i++) {
        if (fs->steps[i - 1].t1 < fs->steps[i].t0)
            fs->steps[i].t0 = fs->steps[i - 1].t1;
        else if (fs->steps[i - 1].t1 > fs->steps[i].t0)   /* keep windows disjoint */
            fs->steps[i - 1].t1 = fs->steps[i].t0;
    }
    return 0;
}

struct flowstats *flowstats_compute(const struct model *m, const struct steps *steps)
{
    if (!m || !m->finalized)
        return NULL;
    struct flowstats *fs = calloc(1, sizeof *fs);
    if (!fs)
        return NULL;
    if (cat_stats(m, fs) < 0 || queue_stats(m, fs) < 0 || launch_stats(m, fs) < 0 ||
        step_windows(fs, steps) < 0 || idle_stats(m, fs) < 0) {
        flowstats_free(fs);
        return NULL;
    }
    return fs;
}

void flowstats_free(struct flowstats *fs)
{
    if (!fs)
        return;
    FREE_ALL(fs->cats, fs->kernels, fs->steps, fs->launches, fs->host_bound_list, fs);
}

void flow_lat_of(struct flow_lat *l, const ns_t *sorted, size_t n)
{
    lat_fill(l, sorted, n);
}

/* --- rowsets ----------------------------------------------------------------------------- */

struct rowset *flowstats_kernel_rowset(const struct flowstats *fs, const struct model *m)
{
    struct rowset *rs = rowset_new("launch_latency");
    if (!rs)
        return NULL;
    rowset_caption(rs, "Launch latency (kernel start - launcher start) per kernel name");
    size_t cn = rowset_col(rs, "name", "Kernel", RS_STR, 0);
    size_t cc = rowset_col(rs, "count", "Count", RS_INT, 0);
    size_t c50 = rowset_col(rs, "p50_us", "p50 µs", RS_NS, 0);
    size_t c90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    size_t c99 = rowset_col(rs, "p99_us", "p99 µs", RS_NS, 0);
    size_t cm = rowset_col(rs, "max_us", "Max µs", RS_NS, 0);
    for (size_t i = 0; fs && i < fs->nkernels; i++) {
        const struct flow_kernel_lat *k = &fs->kernels[i];
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        rowset_str(rs, r, cn, model_str(m, k->name));
        rowset_int(rs, r, cc, (int64_t)k->lat.n);
        rowset_ns(rs, r, c50, k->lat.p50);
        rowset_ns(rs, r, c90, k->lat.p90);
        rowset_ns(rs, r, c99, k->lat.p99);
        rowset_ns(rs, r, cm, k->lat.max);
        rs->link[r] = k->worst;
    }
    return rs;
}

struct rowset *flowstats_chain_rowset(const struct model *m, const struct flow_hop *h, size_t n)
{
    struct rowset *rs = rowset_new("chain");
    if (!rs)
        return NULL;
    size_t cl = rowset_col(rs, "level", "Hop", RS_INT, 0);
    size_t cc = rowset_col(rs, "category", "Via", RS_STR, 0);
    size_t cn = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t ca = rowset_col(rs, "lane", "Lane", RS_STR, 0);
    size_t cs = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t cd = rowset_col(rs, "dur_us", "Dur µs", RS_NS, 0);
    size_t co = rowset_col(rs, "offset_us", "From origin µs", RS_NS, 0);
    char buf[512];
    for (size_t i = 0; i < n; i++) {
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        rowset_int(rs, r, cl, h[i].level);
        rowset_str(rs, r, cc, flow_hop_category(m, &h[i]));
        rowset_str(rs, r, cn, model_str(m, m->name[h[i].slice]));
        rowset_str(rs, r, ca, model_lane_label(m, h[i].lane, buf, sizeof buf));
        rowset_ns(rs, r, cs, h[i].ts);
        rowset_ns(rs, r, cd, m->dur[h[i].slice]);
        rowset_ns(rs, r, co, h[i].ts - h[0].ts);
        rs->link[r] = h[i].slice;
    }
    return rs;
}
