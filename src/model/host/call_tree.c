/* The host call tree (see call_tree.h): nodes by path, figures per node. */
#include "model/host/call_tree.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/host/host_gaps.h"
#include "model/host/host_launch.h"
#include "util/free_all.h"
#include "util/grow.h"

/* --- nodes by (parent, name): open addressing ---------------------------------------------- */

/* A slot holds its key beside the node, so a lookup reads one slot per probe, not a node. */
struct node_slot {
    uint32_t parent, name;
    uint32_t node;           /* CT_NONE: empty */
};

struct builder {
    const struct model *m;
    struct call_tree *t;
    size_t cap, max;
    ns_t *longest_dur;       /* per node: its longest slice's duration (cap of them), read
                              * here rather than from the slices' far-apart durations */
    struct node_slot *slot;  /* hcap slots */
    size_t hcap;
    uint32_t *node_of;       /* per slice: its node, CT_NONE when not a host slice */
    bool oom;
};

/* The slot of (parent, name): both halves of the key mixed into every bit, since node ids and
 * name ids are small consecutive numbers that a plain product spreads poorly. */
static size_t hash_key(uint32_t parent, uint32_t name, size_t mask)
{
    uint64_t k = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;
    k ^= k >> 29;
    k *= 0xBF58476D1CE4E5B9ull;
    k ^= k >> 32;
    return (size_t)k & mask;
}

static bool rehash(struct builder *b)
{
    size_t nc = b->hcap ? b->hcap * 2 : 1024;
    struct node_slot *ns = malloc(nc * sizeof *ns);
    if (!ns)
        return false;
    for (size_t h = 0; h < nc; h++)
        ns[h].node = CT_NONE;
    for (size_t i = 0; i < b->t->n; i++) {
        const struct ct_node *n = &b->t->nodes[i];
        size_t h = hash_key(n->parent, n->name, nc - 1);
        while (ns[h].node != CT_NONE)
            h = (h + 1) & (nc - 1);
        ns[h] = (struct node_slot){ n->parent, n->name, (uint32_t)i };
    }
    free(b->slot);
    b->slot = ns;
    b->hcap = nc;
    return true;
}

/* The node (parent, name), made when new; past the bound, the parent itself. */
static uint32_t node_for(struct builder *b, uint32_t parent, uint32_t name)
{
    struct call_tree *t = b->t;
    if ((t->n + 1) * 2 > b->hcap && !rehash(b)) {
        b->oom = true;
        return parent;
    }
    size_t h = hash_key(parent, name, b->hcap - 1);
    for (; b->slot[h].node != CT_NONE; h = (h + 1) & (b->hcap - 1))
        if (b->slot[h].parent == parent && b->slot[h].name == name)
            return b->slot[h].node;
    if (t->n >= b->max) {
        t->truncated = true;
        return parent;
    }
    if (t->n == b->cap) {   /* the nodes and their longest durations grow together */
        size_t cap = b->cap, lcap = b->cap;
        struct ct_node *nn = grow_array(t->nodes, &cap, t->n + 1, sizeof *nn);
        if (nn)
            t->nodes = nn;
        ns_t *nl = nn ? grow_array(b->longest_dur, &lcap, cap, sizeof *nl) : NULL;
        if (!nl) {
            b->oom = true;
            return parent;
        }
        b->longest_dur = nl;
        b->cap = cap;
    }
    uint32_t id = (uint32_t)t->n++;
    t->nodes[id] = (struct ct_node){
        .name = name, .parent = parent, .first_child = CT_NONE, .next = CT_NONE,
        .depth = parent == CT_NONE ? 0 : t->nodes[parent].depth + 1, .longest = SLICE_NONE,
    };
    if (parent == CT_NONE) {
        t->nodes[id].next = t->first_root;
        t->first_root = id;
    } else {
        t->nodes[id].next = t->nodes[parent].first_child;
        t->nodes[parent].first_child = id;
    }
    b->slot[h] = (struct node_slot){ parent, name, id };
    return id;
}

/* --- slices to nodes: a stack per lane in (start, longer first, shallower first) order ------- */

/* A lane's slices come in that order from its depth rows (model.h): each row is already in
 * (start, longer first) order, so the rows are merged (a heap of rows keyed by their next
 * slice, the row's depth breaking ties) instead of the lane being sorted. Equal slices of one
 * row keep their row order. */
struct row_merge {
    const struct model *m;
    uint32_t *at, *end;      /* per row: its next slice, its end */
    ns_t *head_start, *head_end;   /* per row: its next slice's start and end */
    uint32_t *heap, n;       /* rows with slices left */
};

static inline bool row_before(const struct row_merge *r, uint32_t x, uint32_t y)
{
    if (r->head_start[x] != r->head_start[y])
        return r->head_start[x] < r->head_start[y];
    if (r->head_end[x] != r->head_end[y])
        return r->head_end[x] > r->head_end[y];
    return x < y;
}

static inline void heap_down(struct row_merge *r, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, best = i;
        if (c < r->n && row_before(r, r->heap[c], r->heap[best]))
            best = c;
        if (c + 1 < r->n && row_before(r, r->heap[c + 1], r->heap[best]))
            best = c + 1;
        if (best == i)
            return;
        uint32_t t = r->heap[i];
        r->heap[i] = r->heap[best];
        r->heap[best] = t;
        i = best;
    }
}

static inline void head_load(struct row_merge *r, uint32_t d)
{
    r->head_start[d] = r->m->start[r->at[d]];
    r->head_end[d] = model_end(r->m, r->at[d]);
}

static int merge_open(struct row_merge *r, const struct model *m, const struct lane *l)
{
    uint32_t nd = l->ndepth;
    *r = (struct row_merge){ .m = m };
    r->at = malloc(nd * sizeof *r->at);
    r->end = malloc(nd * sizeof *r->end);
    r->head_start = malloc(nd * sizeof *r->head_start);
    r->head_end = malloc(nd * sizeof *r->head_end);
    r->heap = malloc(nd * sizeof *r->heap);
    if (!r->at || !r->end || !r->head_start || !r->head_end || !r->heap)
        return -1;
    for (uint32_t d = 0; d < nd; d++) {
        r->at[d] = l->row_first[d];
        r->end[d] = l->row_first[d + 1];
        if (r->at[d] < r->end[d]) {
            head_load(r, d);
            r->heap[r->n++] = d;
        }
    }
    for (uint32_t i = r->n / 2; i-- > 0;)
        heap_down(r, i);
    return 0;
}

/* The next slice in run order, SLICE_NONE after the last. */
static inline uint32_t merge_next(struct row_merge *r)
{
    if (!r->n)
        return SLICE_NONE;
    uint32_t d = r->heap[0], y = r->at[d]++;
    if (r->at[d] < r->end[d])
        head_load(r, d);
    else
        r->heap[0] = r->heap[--r->n];
    heap_down(r, 0);
    return y;
}

static void merge_close(struct row_merge *r)
{
    FREE_ALL(r->at, r->end, r->head_start, r->head_end, r->heap);
}

/* An open slice on the lane's stack. */
struct open_slice {
    ns_t start, end;
    uint32_t node;
};

static int lane_nodes(struct builder *b, uint32_t lane, const _Atomic bool *stop)
{
    const struct model *m = b->m;
    const struct lane *l = &m->lanes[lane];
    if (!l->count)
        return 0;
    struct row_merge r;
    struct open_slice *stack = NULL;
    size_t cap = 0, top = 0;
    if (merge_open(&r, m, l) < 0) {
        merge_close(&r);
        return -1;
    }
    uint32_t y;
    for (uint32_t i = 0; (y = merge_next(&r)) != SLICE_NONE && !b->oom; i++) {
        if (stop && (i & 0xffff) == 0 && atomic_load(stop))
            break;
        ns_t ys = m->start[y], ye = model_end(m, y);
        while (top && !(stack[top - 1].start <= ys && ye <= stack[top - 1].end))
            top--;
        uint32_t id = node_for(b, top ? stack[top - 1].node : CT_NONE, m->name[y]);
        b->node_of[y] = id;
        if (top == cap) {
            struct open_slice *ns = grow_array(stack, &cap, top + 1, sizeof *ns);
            if (!ns) {
                b->oom = true;
                break;
            }
            stack = ns;
        }
        stack[top++] = (struct open_slice){ ys, ye, id };
        if (id == CT_NONE)
            continue;
        struct ct_node *n = &b->t->nodes[id];
        ns_t d = m->dur[y];
        n->calls++;
        n->host += d > 0 ? d : 0;
        if (n->longest == SLICE_NONE || d > b->longest_dur[id]) {
            n->longest = y;
            b->longest_dur[id] = d;
        }
    }
    merge_close(&r);
    free(stack);
    return b->oom ? -1 : 0;
}

/* --- device time launched and idle charged ---------------------------------------------------- */

/* One pass over the flows sorted by destination: the flows into one device slice are
 * consecutive, so a node's stamp (the last device slice + 1 charged to it) keeps each device
 * slice counted once per node. */
static void charge_device(struct builder *b, uint32_t *stamp)
{
    const struct model *m = b->m;
    struct ct_node *nodes = b->t->nodes;
    for (size_t i = 0; i < m->nflows_by_dst; i++) {
        const struct flow *fl = &m->flows[m->flows_by_dst[i]];
        uint32_t k = fl->dst, src = fl->src;
        if (k == SLICE_NONE || src == SLICE_NONE || m->lanes[m->lane[k]].kind != LANE_DEVICE ||
            b->node_of[src] == CT_NONE)
            continue;
        for (uint32_t id = b->node_of[src]; id != CT_NONE && stamp[id] != k + 1; id = nodes[id].parent) {
            stamp[id] = k + 1;
            nodes[id].device += m->dur[k] > 0 ? m->dur[k] : 0;
        }
    }
}

static void charge_gap(const struct host_gap *g, void *ctx)
{
    struct builder *b = ctx;
    if (g->cause != GAP_HOST_BOUND || !g->nframes)
        return;
    uint32_t id = b->node_of[g->frames[g->nframes - 1]];
    if (id == CT_NONE)
        return;
    ns_t idle = g->t1 - g->t0;
    b->t->nodes[id].idle_self += idle;
    for (; id != CT_NONE; id = b->t->nodes[id].parent)
        b->t->nodes[id].idle += idle;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct call_tree *call_tree_build(const struct model *m, const struct flowstats *fs, size_t max_nodes,
                                  const _Atomic bool *stop)
{
    double t0 = now_ms();
    struct call_tree *t = calloc(1, sizeof *t);
    struct builder b = { .m = m, .t = t, .max = max_nodes ? max_nodes : CALL_TREE_MAX_NODES };
    uint32_t *stamp = NULL;
    if (!t || !m)
        goto fail;
    t->first_root = CT_NONE;
    if (b.max > CT_NONE - 1)
        b.max = CT_NONE - 1;
    b.node_of = malloc((m->nslices ? m->nslices : 1) * sizeof *b.node_of);
    if (!b.node_of)
        goto fail;
    memset(b.node_of, 0xff, (m->nslices ? m->nslices : 1) * sizeof *b.node_of);
    for (uint32_t l = 0; l < m->nlanes; l++) {
        if (!host_lane_kind(m->lanes[l].kind))
            continue;
        if (lane_nodes(&b, l, stop) < 0 || (stop && atomic_load(stop)))
            goto fail;
    }
    stamp = calloc(t->n ? t->n : 1, sizeof *stamp);
    if (!stamp)
        goto fail;
    charge_device(&b, stamp);
    if (stop && atomic_load(stop))
        goto fail;
    if (fs)
        host_gaps_each_host_bound(m, fs, charge_gap, &b);
    call_tree_sort(t, m, CT_BY_HOST);
    FREE_ALL(b.slot, b.longest_dur, b.node_of, stamp);
    t->build_ms = now_ms() - t0;
    return t;
fail:
    FREE_ALL(b.slot, b.longest_dur, b.node_of, stamp);
    call_tree_free(t);
    return NULL;
}

void call_tree_free(struct call_tree *t)
{
    if (t)
        FREE_ALL(t->nodes, t);
}

size_t call_tree_memory(const struct call_tree *t)
{
    return t ? sizeof *t + t->n * sizeof *t->nodes : 0;
}

/* --- order ------------------------------------------------------------------------------------ */

static _Thread_local struct { const struct call_tree *t; const struct model *m; enum ct_sort by; } sort_ctx;

static uint64_t figure(const struct ct_node *n, enum ct_sort by)
{
    switch (by) {
    case CT_BY_DEVICE: return (uint64_t)n->device;
    case CT_BY_IDLE: return (uint64_t)n->idle;
    case CT_BY_IDLE_SELF: return (uint64_t)n->idle_self;
    case CT_BY_CALLS: return n->calls;
    default: return (uint64_t)n->host;
    }
}

static int cmp_nodes(const void *a, const void *b)
{
    const struct ct_node *x = &sort_ctx.t->nodes[*(const uint32_t *)a];
    const struct ct_node *y = &sort_ctx.t->nodes[*(const uint32_t *)b];
    uint64_t fx = figure(x, sort_ctx.by), fy = figure(y, sort_ctx.by);
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return strcmp(model_str(sort_ctx.m, x->name), model_str(sort_ctx.m, y->name));
}

/* Sorts the list starting at *head (linked by next) through the scratch array. */
static void sort_list(struct call_tree *t, uint32_t *head, uint32_t *scratch)
{
    size_t n = 0;
    for (uint32_t c = *head; c != CT_NONE; c = t->nodes[c].next)
        scratch[n++] = c;
    if (n < 2)
        return;
    qsort(scratch, n, sizeof *scratch, cmp_nodes);
    *head = scratch[0];
    for (size_t i = 0; i + 1 < n; i++)
        t->nodes[scratch[i]].next = scratch[i + 1];
    t->nodes[scratch[n - 1]].next = CT_NONE;
}

void call_tree_sort(struct call_tree *t, const struct model *m, enum ct_sort by)
{
    if (!t || !t->n)
        return;
    uint32_t *scratch = malloc(t->n * sizeof *scratch);
    if (!scratch)
        return;   /* the order stays as it was */
    sort_ctx.t = t;
    sort_ctx.m = m;
    sort_ctx.by = by;
    sort_list(t, &t->first_root, scratch);
    for (size_t i = 0; i < t->n; i++)
        sort_list(t, &t->nodes[i].first_child, scratch);
    free(scratch);
}

/* --- bottom-up ------------------------------------------------------------------------------ */

struct call_tree *call_tree_invert(const struct call_tree *t, const struct model *m, size_t max_nodes)
{
    struct call_tree *u = calloc(1, sizeof *u);
    struct builder b = { .m = m, .t = u, .max = max_nodes ? max_nodes : CALL_TREE_MAX_NODES };
    if (!u || !t)
        goto fail;
    u->first_root = CT_NONE;
    u->truncated = t->truncated;
    for (size_t i = 0; i < t->n && !b.oom; i++) {
        const struct ct_node *v = &t->nodes[i];
        uint32_t at = CT_NONE;
        for (uint32_t up = (uint32_t)i; up != CT_NONE; up = t->nodes[up].parent) {
            uint32_t id = node_for(&b, at, t->nodes[up].name);
            if (id == at)   /* bounded: the rest of the path stays in the last node */
                break;
            struct ct_node *n = &u->nodes[id];
            n->calls += v->calls;
            n->host += v->host;
            n->device += v->device;
            n->idle += v->idle;
            n->idle_self += v->idle_self;
            if (n->longest == SLICE_NONE || (v->longest != SLICE_NONE && m->dur[v->longest] > m->dur[n->longest]))
                n->longest = v->longest;
            at = id;
        }
    }
    if (b.oom)
        goto fail;
    call_tree_sort(u, m, CT_BY_HOST);
    FREE_ALL(b.slot, b.longest_dur);
    return u;
fail:
    FREE_ALL(b.slot, b.longest_dur);
    call_tree_free(u);
    return NULL;
}
