/* The call tree's icicle layout (model/host/call_tree_flame.h) on trees built here: widths in
 * proportion to the figure, children inside their parent and adding up to it, narrow nodes
 * merged into one filler, the idle figure instead of the device one, and the navigation
 * helpers. */
#include <stdlib.h>
#include <string.h>

#include "model/host/call_tree_flame.h"
#include "../runner.h"

/* A tree of up to 16 nodes; add() links a node under parent (CT_NONE: a root) at the end of
 * its siblings. */
struct small_tree {
    struct call_tree t;
    struct ct_node nodes[16];
};

static uint32_t add(struct small_tree *s, uint32_t parent, ns_t device, ns_t idle)
{
    uint32_t id = (uint32_t)s->t.n++;
    s->nodes[id] = (struct ct_node){ .name = id, .parent = parent, .first_child = CT_NONE, .next = CT_NONE,
                                     .depth = parent == CT_NONE ? 0 : s->nodes[parent].depth + 1,
                                     .device = device, .idle = idle };
    uint32_t *link = parent == CT_NONE ? &s->t.first_root : &s->nodes[parent].first_child;
    while (*link != CT_NONE)
        link = &s->nodes[*link].next;
    *link = id;
    return id;
}

static void tree_init(struct small_tree *s)
{
    memset(s, 0, sizeof *s);
    s->t.nodes = s->nodes;
    s->t.first_root = CT_NONE;
}

static const struct ct_block *block_of(const struct ct_flame *f, uint32_t node)
{
    uint32_t b = call_tree_flame_find(f, node);
    return b == CT_FLAME_NO_BLOCK ? NULL : &f->blocks[b];
}

TEST(flame_widths_are_proportional_and_add_up)
{
    struct small_tree s;
    tree_init(&s);
    /* root 800 = a 600 (a1 300, a2 300) + b 200; width 10 columns = 80 eighths */
    uint32_t root = add(&s, CT_NONE, 800, 0);
    uint32_t b = add(&s, root, 200, 0);   /* added first: the layout puts the wider a first */
    uint32_t a = add(&s, root, 600, 0);
    uint32_t a1 = add(&s, a, 300, 0), a2 = add(&s, a, 300, 0);
    struct ct_flame *f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 10, 24);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_INT(f->total, 800);
    CHECK_INT(f->n, 5);
    CHECK_INT(f->rows, 3);
    const struct ct_block *R = block_of(f, root), *A = block_of(f, a), *B = block_of(f, b);
    const struct ct_block *A1 = block_of(f, a1), *A2 = block_of(f, a2);
    CHECK(R && A && B && A1 && A2);
    if (R && A && B && A1 && A2) {
        CHECK_INT(R->x0, 0);
        CHECK_INT(R->x1, 80);          /* the root row spans the width */
        CHECK_INT(A->x0, 0);
        CHECK_INT(A->x1, 60);          /* 600/800 of 80 */
        CHECK_INT(B->x0, 60);
        CHECK_INT(B->x1, 80);
        CHECK_INT(A1->x1 - A1->x0, 30);
        CHECK_INT(A2->x0, A1->x1);     /* side by side */
        CHECK_INT(A2->x1, A->x1);      /* the children fill their parent */
        CHECK_INT(A->depth, 1);
        CHECK_INT(A1->depth, 2);
        /* rows stored in order: a before b, and b is a's right neighbour */
        CHECK(A + 1 == B);
        CHECK_INT(A1->parent, (uint32_t)(A - f->blocks));
        CHECK_INT(call_tree_flame_child(f, (uint32_t)(R - f->blocks)), (uint32_t)(A - f->blocks));
        CHECK_INT(call_tree_flame_child(f, (uint32_t)(B - f->blocks)), CT_FLAME_NO_BLOCK);
    }
    call_tree_flame_free(f);

    /* the node's own part stays empty: children 100 of a 400 root take a quarter */
    tree_init(&s);
    root = add(&s, CT_NONE, 400, 0);
    a = add(&s, root, 100, 0);
    f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 8, 24);
    A = f ? block_of(f, a) : NULL;
    CHECK(A && A->x0 == 0 && A->x1 == 16);
    call_tree_flame_free(f);

    /* children summing past the parent (a slice launched from two) share its span by their sum */
    tree_init(&s);
    root = add(&s, CT_NONE, 100, 0);
    a = add(&s, root, 100, 0);
    b = add(&s, root, 100, 0);
    f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 10, 24);
    A = f ? block_of(f, a) : NULL;
    B = f ? block_of(f, b) : NULL;
    CHECK(A && B && A->x0 == 0 && A->x1 == 40 && B->x0 == 40 && B->x1 == 80);
    call_tree_flame_free(f);
}

TEST(flame_merges_narrow_nodes_into_one_filler)
{
    struct small_tree s;
    tree_init(&s);
    /* width 4 columns = 32 eighths; root 1000: big 900 (28.8 eighths), three of 30 (0.96 each),
     * one of 0 (no room at all) */
    uint32_t root = add(&s, CT_NONE, 1000, 0);
    uint32_t small[3];
    small[0] = add(&s, root, 30, 0);
    uint32_t big = add(&s, root, 900, 0);
    small[1] = add(&s, root, 30, 0);
    small[2] = add(&s, root, 30, 0);
    uint32_t zero = add(&s, root, 0, 0);
    struct ct_flame *f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 4, 24);
    CHECK(f != NULL);
    if (!f)
        return;
    const struct ct_block *B = block_of(f, big);
    CHECK(B && B->x0 == 0 && B->x1 == 28);   /* 900 * 32 / 1000 = 28.8, rounded down */
    for (int i = 0; i < 3; i++)
        CHECK(block_of(f, small[i]) == NULL);
    CHECK(block_of(f, zero) == NULL);
    const struct ct_block *filler = NULL;
    size_t fillers = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->blocks[i].node == CT_NONE) {
            filler = &f->blocks[i];
            fillers++;
        }
    CHECK_INT(fillers, 1);
    if (filler) {
        CHECK_INT(filler->merged, 3);
        CHECK_INT(filler->figure, 90);
        CHECK_INT(filler->x0, 28);
        CHECK_INT(filler->x1, 31);   /* 990 * 32 / 1000 = 31.68: the filler ends where the children do */
        CHECK_INT(filler->depth, 1);
        CHECK(B && B + 1 == filler);   /* right of the widest */
    }
    call_tree_flame_free(f);

    /* a root row of one root too narrow for a cell is a filler too: nothing else to show */
    tree_init(&s);
    add(&s, CT_NONE, 1, 0);
    add(&s, CT_NONE, 10000, 0);
    f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 10, 24);
    CHECK(f && f->n == 2 && f->blocks[0].node == 1 && f->blocks[1].node == CT_NONE && f->blocks[0].x1 == 79);
    call_tree_flame_free(f);
}

TEST(flame_by_idle_rows_and_empty_trees)
{
    struct small_tree s;
    tree_init(&s);
    uint32_t root = add(&s, CT_NONE, 10, 500);
    uint32_t a = add(&s, root, 10, 0);      /* device only: no room by idle */
    uint32_t b = add(&s, root, 0, 250);
    uint32_t deep = add(&s, b, 0, 250);
    struct ct_flame *f = call_tree_flame(&s.t, CT_FLAME_IDLE, 20, 24);
    CHECK(f && f->total == 500);
    const struct ct_block *B = f ? block_of(f, b) : NULL;
    CHECK(f && block_of(f, a) == NULL);
    CHECK(B && B->x0 == 0 && B->x1 == 80);
    CHECK(f && block_of(f, deep) != NULL);
    call_tree_flame_free(f);
    /* rows are bounded */
    f = call_tree_flame(&s.t, CT_FLAME_IDLE, 20, 2);
    CHECK(f && f->rows == 2 && block_of(f, deep) == NULL);
    call_tree_flame_free(f);
    /* nothing to draw: no figure, no width */
    tree_init(&s);
    add(&s, CT_NONE, 0, 0);
    f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 80, 24);
    CHECK(f && f->n == 0 && f->total == 0);
    call_tree_flame_free(f);
    f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 0, 24);
    CHECK(f && f->n == 0);
    call_tree_flame_free(f);
}

/* Figures far past what a product in 64 bits holds keep their proportions. */
TEST(flame_huge_figures)
{
    struct small_tree s;
    tree_init(&s);
    ns_t big = (ns_t)1 << 61;
    uint32_t root = add(&s, CT_NONE, big, 0);
    uint32_t a = add(&s, root, big / 4 * 3, 0);
    struct ct_flame *f = call_tree_flame(&s.t, CT_FLAME_DEVICE, 1000, 24);
    const struct ct_block *A = f ? block_of(f, a) : NULL;
    CHECK(A && A->x0 == 0 && A->x1 == 6000);
    call_tree_flame_free(f);
}
