/* The Call tree view's flame drawing (see calltree_flame.h). */
#include "ui/views/calltree_flame.h"

#include <stdio.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/view.h"
#include "util/shorten.h"

/* Left-aligned blocks of 1 to 7 eighths of a cell; index 8 is the full block. */
static const char *const eighths[] = { "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
                                       "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89", "\xe2\x96\x88" };

void ctf_reset(struct ctf *f)
{
    call_tree_flame_free(f->layout);
    f->layout = NULL;
    f->of = NULL;
}

void ctf_toggle_by(struct ctf *f)
{
    f->by = f->by == CT_FLAME_DEVICE ? CT_FLAME_IDLE : CT_FLAME_DEVICE;
    ctf_reset(f);
}

static void ensure_layout(struct ctf *f, const struct call_tree *t, int width, int rows)
{
    if (f->layout && f->of == t && f->width == width && f->rows == rows)
        return;
    ctf_reset(f);
    f->layout = call_tree_flame(t, f->by, width, rows);
    f->of = t;
    f->width = width;
    f->rows = rows;
}

/* The selected block: the selected node's, else the nearest ancestor's that has one, else
 * the first. CT_FLAME_NO_BLOCK when the layout is empty. */
static uint32_t sel_block(const struct ctf *f)
{
    const struct ct_flame *L = f->layout;
    if (!L || !L->n)
        return CT_FLAME_NO_BLOCK;
    for (uint32_t id = f->node; id != CT_NONE && f->of; id = f->of->nodes[id].parent) {
        uint32_t b = call_tree_flame_find(L, id);
        if (b != CT_FLAME_NO_BLOCK)
            return b;
    }
    return 0;
}

bool ctf_move(struct ctf *f, enum request req)
{
    const struct ct_flame *L = f->layout;
    if (req != REQ_MOVE_LEFT && req != REQ_MOVE_RIGHT && req != REQ_MOVE_UP && req != REQ_MOVE_DOWN &&
        req != REQ_HOME)
        return false;
    uint32_t b = sel_block(f);
    if (b == CT_FLAME_NO_BLOCK)
        return true;
    uint32_t to = CT_FLAME_NO_BLOCK;
    const struct ct_block *B = &L->blocks[b];
    switch (req) {
    case REQ_MOVE_LEFT:    /* the node beside it on its row (fillers are skipped) */
        for (uint32_t i = b; i-- > 0 && L->blocks[i].depth == B->depth;)
            if (L->blocks[i].node != CT_NONE) {
                to = i;
                break;
            }
        break;
    case REQ_MOVE_RIGHT:
        for (uint32_t i = b + 1; i < L->n && L->blocks[i].depth == B->depth; i++)
            if (L->blocks[i].node != CT_NONE) {
                to = i;
                break;
            }
        break;
    case REQ_MOVE_UP:
        to = B->parent;
        break;
    case REQ_MOVE_DOWN:
        to = call_tree_flame_child(L, b);
        if (to != CT_FLAME_NO_BLOCK && L->blocks[to].node == CT_NONE)
            to = CT_FLAME_NO_BLOCK;
        break;
    default:
        to = 0;
        break;
    }
    if (to != CT_FLAME_NO_BLOCK && L->blocks[to].node != CT_NONE)
        f->node = L->blocks[to].node;
    return true;
}

static void fmt_us(ns_t ns, char *buf, size_t size)
{
    snprintf(buf, size, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* The detail lines: the selected node's name and calls, then its figures. */
static void draw_detail(WINDOW *w, int y, int width, const struct ct_node *n, const struct model *m)
{
    char h[32], d[32], i[32], is[32], calls[48];
    fmt_us(n->host, h, sizeof h);
    fmt_us(n->device, d, sizeof d);
    fmt_us(n->idle, i, sizeof i);
    fmt_us(n->idle_self, is, sizeof is);
    snprintf(calls, sizeof calls, "calls %llu", (unsigned long long)n->calls);
    int cw = (int)strlen(calls), room = width - 2 - cw - 2;
    const char *name = model_str(m, n->name);
    char shown[512];
    shorten_middle(name, strlen(name), room > 1 ? room : 1, room / 3, draw_utf8 ? "\xe2\x80\xa6" : "~", shown, sizeof shown);
    int used = draw_text(w, y, 1, room, shown, SIZE_MAX, draw_attr(CP_LABEL) | A_BOLD);
    draw_text(w, y, 1 + used + 2, cw, calls, SIZE_MAX, A_NORMAL);
    const char *us = draw_utf8 ? "µs" : "us";
    draw_printf(w, y + 1, 1, width - 2, A_NORMAL, "host %s %s  device %s %s  idle %s %s (self %s)", h, us, d, us, i, us, is);
}

/* One block on row y: its whole cells [c0, c1) carry the name (reversed) then full blocks, the
 * cell where it ends inside gets the eighth block of its part. */
static void draw_block(WINDOW *w, int y, const struct ct_block *b, const struct model *m, const struct call_tree *t,
                       bool selected, int pair)
{
    int c0 = (int)((b->x0 + CT_FLAME_CELL - 1) / CT_FLAME_CELL), c1 = (int)(b->x1 / CT_FLAME_CELL);
    int part = (int)(b->x1 % CT_FLAME_CELL);
    attr_t fill = selected ? draw_attr(CP_SELECT) : b->node == CT_NONE ? draw_attr(CP_DIM) : draw_attr(pair);
    attr_t text = selected ? draw_attr(CP_SELECT) | A_BOLD : fill | A_REVERSE;
    const char *full = draw_utf8 ? eighths[8] : "#";
    if (c1 > c0) {
        const char *name = b->node == CT_NONE ? (draw_utf8 ? "\xe2\x80\xa6" : "~") : model_str(m, t->nodes[b->node].name);
        char shown[512];
        shorten_middle(name, strlen(name), c1 - c0, (c1 - c0) / 3, draw_utf8 ? "\xe2\x80\xa6" : "~", shown, sizeof shown);
        int used = b->node == CT_NONE && !selected ? draw_text(w, y, c0, c1 - c0, shown, SIZE_MAX, fill)
                                                    : draw_text(w, y, c0, c1 - c0, shown, SIZE_MAX, text);
        if (selected)
            draw_fill(w, y, c0 + used, c1 - c0 - used, " ", fill);
        else
            draw_fill(w, y, c0 + used, c1 - c0 - used, full, fill);
    }
    if (part && c1 >= c0 && b->x0 <= (uint32_t)c1 * CT_FLAME_CELL && draw_utf8)
        draw_fill(w, y, c1, 1, eighths[part], selected ? draw_attr(CP_SELECT) : fill);
}

void ctf_draw(struct ctf *f, WINDOW *w, const struct call_tree *t, const struct model *m, const char *title)
{
    int h = getmaxy(w), width = getmaxx(w);
    ensure_layout(f, t, width, h > 3 ? h - 3 : 0);
    const struct ct_flame *L = f->layout;
    const char *what = f->by == CT_FLAME_DEVICE ? "device time" : "idle charged";
    char tot[32];
    fmt_us(L ? L->total : 0, tot, sizeof tot);
    draw_printf(w, 0, 1, width - 2, draw_attr(CP_HEADER), "%s flame by %s (%s %s = the width)   f:table i:%s",
                title, what, tot, draw_utf8 ? "µs" : "us", f->by == CT_FLAME_DEVICE ? "idle" : "device");
    if (!L || !L->n) {
        draw_printf(w, 1, 1, width - 2, draw_attr(CP_DIM), "%s", !L ? "the flame could not be laid out (out of memory)"
                    : f->by == CT_FLAME_DEVICE ? "no node launched device time" : "no idle was charged to a node");
        return;
    }
    uint32_t sel = sel_block(f);
    if (sel != CT_FLAME_NO_BLOCK && L->blocks[sel].node != CT_NONE)
        f->node = L->blocks[sel].node;
    if (L->blocks[sel].node != CT_NONE)
        draw_detail(w, 1, width, &t->nodes[L->blocks[sel].node], m);
    else
        draw_printf(w, 1, 1, width - 2, draw_attr(CP_DIM), "%u nodes, each narrower than a column", L->blocks[sel].merged);
    int prev_pair = -1;
    uint32_t prev_depth = UINT32_MAX;
    for (size_t i = 0; i < L->n; i++) {
        const struct ct_block *b = &L->blocks[i];
        if ((int)b->depth + 3 >= h)
            break;
        if (b->depth != prev_depth)
            prev_pair = -1;
        /* neighbours of one colour would run together: the next colour then */
        int pair = b->node == CT_NONE ? CP_DIM : draw_name_pair(t->nodes[b->node].name);
        if (pair == prev_pair && b->node != CT_NONE)
            pair = CP_NAME0 + (pair - CP_NAME0 + 1) % CP_NAMES;
        draw_block(w, 3 + (int)b->depth, b, m, t, i == sel, pair);
        prev_pair = pair;
        prev_depth = b->depth;
    }
}
