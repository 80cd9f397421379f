/* The icicle layout of a call tree (see call_tree_flame.h). */
#include "model/host/call_tree_flame.h"

#include <stdlib.h>

#include "util/grow.h"

ns_t call_tree_flame_figure(const struct ct_node *n, enum ct_flame_by by)
{
    ns_t v = by == CT_FLAME_IDLE ? n->idle : n->device;
    return v > 0 ? v : 0;
}

/* a * b / c rounded down, without overflow: a <= c and b < 2^32. Precision drops only where
 * c needs more than 32 bits over b's room, far below an eighth of a cell. */
static uint64_t scale(uint64_t a, uint64_t b, uint64_t c)
{
    if (!c)
        return 0;
    while (b && c > UINT64_MAX / b) {
        a >>= 1;
        c >>= 1;
    }
    return c ? a * b / c : 0;
}

struct layout {
    const struct call_tree *t;
    enum ct_flame_by by;
    struct ct_flame *f;
    size_t cap;
    uint32_t *kids;          /* scratch: one node's children with a figure */
    size_t nkids, kcap;
    bool oom;
};

static _Thread_local const struct layout *sort_layout;

/* Widest first; equal figures keep the tree's order (node ids break the tie in qsort). */
static int cmp_kids(const void *a, const void *b)
{
    const struct layout *L = sort_layout;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    ns_t fx = call_tree_flame_figure(&L->t->nodes[x], L->by), fy = call_tree_flame_figure(&L->t->nodes[y], L->by);
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void add_block(struct layout *L, struct ct_block b)
{
    struct ct_block *nb = grow_array(L->f->blocks, &L->cap, L->f->n + 1, sizeof *nb);
    if (!nb) {
        L->oom = true;
        return;
    }
    L->f->blocks = nb;
    L->f->blocks[L->f->n++] = b;
    if (b.depth + 1 > L->f->rows)
        L->f->rows = b.depth + 1;
}

/* Lays the nodes of the list starting at first (linked by next) over [x0, x1) at depth,
 * out of denom (0: their own sum), below block parent. */
static void lay_row(struct layout *L, uint32_t first, uint32_t x0, uint32_t x1, ns_t denom, uint32_t depth,
                    uint32_t parent)
{
    const struct call_tree *t = L->t;
    L->nkids = 0;
    ns_t sum = 0;
    for (uint32_t c = first; c != CT_NONE; c = t->nodes[c].next) {
        ns_t v = call_tree_flame_figure(&t->nodes[c], L->by);
        if (!v)
            continue;
        uint32_t *nk = grow_array(L->kids, &L->kcap, L->nkids + 1, sizeof *nk);
        if (!nk) {
            L->oom = true;
            return;
        }
        L->kids = nk;
        L->kids[L->nkids++] = c;
        sum += v;
    }
    if (!L->nkids)
        return;
    sort_layout = L;
    qsort(L->kids, L->nkids, sizeof *L->kids, cmp_kids);
    if (denom < sum)
        denom = sum;
    uint64_t span = x1 - x0;
    ns_t cum = 0;
    for (size_t i = 0; i < L->nkids && !L->oom; i++) {
        uint32_t node = L->kids[i];
        ns_t v = call_tree_flame_figure(&t->nodes[node], L->by);
        uint32_t a = x0 + (uint32_t)scale((uint64_t)cum, span, (uint64_t)denom);
        uint32_t b = x0 + (uint32_t)scale((uint64_t)(cum + v), span, (uint64_t)denom);
        if (b - a < CT_FLAME_CELL) {
            /* this one and the rest (narrower still): one filler */
            uint32_t end = x0 + (uint32_t)scale((uint64_t)sum, span, (uint64_t)denom);
            if (end > a)
                add_block(L, (struct ct_block){ .node = CT_NONE, .depth = depth, .x0 = a, .x1 = end, .parent = parent,
                                                .merged = (uint32_t)(L->nkids - i), .figure = sum - cum });
            return;
        }
        add_block(L, (struct ct_block){ .node = node, .depth = depth, .x0 = a, .x1 = b, .parent = parent,
                                        .merged = 1, .figure = v });
        cum += v;
    }
}

struct ct_flame *call_tree_flame(const struct call_tree *t, enum ct_flame_by by, int width, int max_rows)
{
    struct ct_flame *f = calloc(1, sizeof *f);
    struct layout L = { .t = t, .by = by, .f = f };
    if (!f)
        return NULL;
    if (!t || width <= 0 || max_rows <= 0 || (uint64_t)width * CT_FLAME_CELL > UINT32_MAX)
        return f;
    for (uint32_t r = t->first_root; r != CT_NONE; r = t->nodes[r].next)
        f->total += call_tree_flame_figure(&t->nodes[r], by);
    lay_row(&L, t->first_root, 0, (uint32_t)width * CT_FLAME_CELL, 0, 0, CT_FLAME_NO_BLOCK);
    /* breadth first: the blocks of a row are laid in order, so the next row comes out in order */
    for (size_t i = 0; i < f->n && !L.oom; i++) {
        struct ct_block b = f->blocks[i];
        if (b.node == CT_NONE || b.depth + 1 >= (uint32_t)max_rows)
            continue;
        const struct ct_node *n = &t->nodes[b.node];
        lay_row(&L, n->first_child, b.x0, b.x1, call_tree_flame_figure(n, by), b.depth + 1, (uint32_t)i);
    }
    free(L.kids);
    if (L.oom) {
        call_tree_flame_free(f);
        return NULL;
    }
    return f;
}

void call_tree_flame_free(struct ct_flame *f)
{
    if (f) {
        free(f->blocks);
        free(f);
    }
}

uint32_t call_tree_flame_find(const struct ct_flame *f, uint32_t node)
{
    for (size_t i = 0; f && node != CT_NONE && i < f->n; i++)
        if (f->blocks[i].node == node)
            return (uint32_t)i;
    return CT_FLAME_NO_BLOCK;
}

uint32_t call_tree_flame_child(const struct ct_flame *f, uint32_t b)
{
    if (!f || b >= f->n)
        return CT_FLAME_NO_BLOCK;
    for (size_t i = b + 1; i < f->n && f->blocks[i].depth <= f->blocks[b].depth + 1; i++)
        if (f->blocks[i].parent == b)
            return (uint32_t)i;
    return CT_FLAME_NO_BLOCK;
}
