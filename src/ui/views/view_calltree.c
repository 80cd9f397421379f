/* The Call tree view: the host stack top-down (roots are outermost frames) or bottom-up
 * (roots are the frames themselves, below them their callers), each node with its host
 * time, the device time launched from it and below, and the host-bound device idle charged
 * to it and below, and to it alone (model/host/call_tree.h defines every figure).
 *
 * The tree is built on a thread of its own once the rank's timeline and flow figures are in:
 * the view draws "building…" until the thread writes its wake-up byte. The thread only reads
 * the installed model and flowstats, which stay while their rank is on screen; when the rank
 * or its parts change the view stops the thread and waits for it before anything is freed.
 *
 * Keys: Right opens a node, Left closes it (or goes to its parent), t turns the tree over,
 * < > choose the figure the children are sorted by, / searches names (regular expression)
 * and opens the way to the match, n N go to the next and previous match, Enter goes to the
 * node's longest slice in the timeline. f turns the table into the flame drawing of the same
 * tree (calltree_flame.h) and back, i chooses its figure; the cursor stays on its node. */
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/analysis/flowstats.h"
#include "model/host/call_tree.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"
#include "ui/views/calltree_flame.h"
#include "util/free_all.h"

/* --- the build thread ------------------------------------------------------------------------ */

struct ct_job {
    pthread_t th;
    _Atomic bool stop, done;
    const struct model *m;
    const struct flowstats *fs;    /* the rank's, or NULL (then the job computes its own) */
    const struct steps *steps;
    int wake_fd;
    struct call_tree *td, *bu;     /* results, read once done */
};

static void *ct_job_run(void *arg)
{
    struct ct_job *j = arg;
    struct flowstats *own = NULL;
    const struct flowstats *fs = j->fs;
    if (!fs)
        fs = own = flowstats_compute(j->m, j->steps);
    j->td = call_tree_build(j->m, fs, 0, &j->stop);
    flowstats_free(own);
    if (j->td && !atomic_load(&j->stop))
        j->bu = call_tree_invert(j->td, j->m, 0);
    atomic_store(&j->done, true);
    if (j->wake_fd >= 0) {
        char b = 1;
        ssize_t w = write(j->wake_fd, &b, 1);
        (void)w;   /* a full pipe already wakes the shell */
    }
    return NULL;
}

/* --- the view's state ------------------------------------------------------------------------- */

enum { CT_TOP_DOWN, CT_BOTTOM_UP };
static const char *const sort_names[] = { "host", "device", "idle", "idle self", "calls" };
#define NSORTS 5

struct ctv {
    struct ct_job *job;            /* running or done; NULL: none */
    bool started;                  /* a build ran for this rank's parts (failed: job NULL) */
    const struct model *m;         /* the model the trees are of */
    struct call_tree *tree[2];     /* top-down, bottom-up */
    uint8_t *open[2];              /* per node: shown open */
    int mode;
    enum ct_sort sort;
    uint32_t *rows;                /* the visible nodes, in order */
    size_t nrows, sel, top;
    regex_t re;
    bool have_re;
    bool flame;                    /* drawn as a flame, not as a table */
    struct ctf fl;
};

static struct ctv *ctv_of(struct view *v) { return v->priv; }

static void job_stop(struct ctv *c)
{
    if (!c->job)
        return;
    atomic_store(&c->job->stop, true);
    pthread_join(c->job->th, NULL);
    call_tree_free(c->job->td);
    call_tree_free(c->job->bu);
    free(c->job);
    c->job = NULL;
}

static void trees_free(struct ctv *c)
{
    job_stop(c);
    ctf_reset(&c->fl);
    for (int i = 0; i < 2; i++) {
        call_tree_free(c->tree[i]);
        free(c->open[i]);
        c->tree[i] = NULL;
        c->open[i] = NULL;
    }
    free(c->rows);
    c->rows = NULL;
    c->nrows = c->sel = c->top = 0;
    c->m = NULL;
    c->started = false;
}

/* The visible rows: depth first, children of open nodes only. */
static void rows_build(struct ctv *c)
{
    const struct call_tree *t = c->tree[c->mode];
    free(c->rows);
    c->rows = NULL;
    c->nrows = 0;
    if (!t || !t->n)
        return;
    c->rows = malloc(t->n * sizeof *c->rows);
    if (!c->rows)
        return;
    const uint8_t *open = c->open[c->mode];
    uint32_t id = t->first_root;
    while (id != CT_NONE) {
        c->rows[c->nrows++] = id;
        if (open[id] && t->nodes[id].first_child != CT_NONE) {
            id = t->nodes[id].first_child;
            continue;
        }
        while (id != CT_NONE && t->nodes[id].next == CT_NONE)
            id = t->nodes[id].parent;
        if (id != CT_NONE)
            id = t->nodes[id].next;
    }
    if (c->sel >= c->nrows)
        c->sel = c->nrows ? c->nrows - 1 : 0;
}

static uint32_t sel_node(const struct ctv *c)
{
    return c->sel < c->nrows ? c->rows[c->sel] : CT_NONE;
}

/* Puts the cursor on node id, opening its ancestors. */
static void show_node(struct ctv *c, uint32_t id)
{
    const struct call_tree *t = c->tree[c->mode];
    for (uint32_t p = t->nodes[id].parent; p != CT_NONE; p = t->nodes[p].parent)
        c->open[c->mode][p] = 1;
    rows_build(c);
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i] == id)
            c->sel = i;
}

/* Takes the finished job's trees; the first root of the top-down tree opens down its most
 * costly path, so the first screen already says where the time went. */
static void job_take(struct ctv *c)
{
    struct ct_job *j = c->job;
    c->tree[CT_TOP_DOWN] = j->td;
    c->tree[CT_BOTTOM_UP] = j->bu;
    j->td = j->bu = NULL;
    pthread_join(j->th, NULL);
    free(j);
    c->job = NULL;
    for (int i = 0; i < 2; i++)
        if (c->tree[i]) {
            c->open[i] = calloc(c->tree[i]->n ? c->tree[i]->n : 1, 1);
            call_tree_sort(c->tree[i], c->m, c->sort);
        }
    const struct call_tree *t = c->tree[CT_TOP_DOWN];
    if (t && c->open[CT_TOP_DOWN])
        for (uint32_t id = t->first_root; id != CT_NONE && t->nodes[id].depth < 16; id = t->nodes[id].first_child)
            c->open[CT_TOP_DOWN][id] = 1;
    rows_build(c);
}

static void job_start(struct view *v, struct ctv *c, const struct rank_data *rd)
{
    struct ct_job *j = calloc(1, sizeof *j);
    c->started = true;
    c->m = rd->model;
    if (!j)
        return;
    j->m = rd->model;
    j->fs = rd->flowstats;
    j->steps = rd->steps;
    j->wake_fd = v->ui->wake_fd;
    if (pthread_create(&j->th, NULL, ct_job_run, j) != 0) {
        free(j);
        return;
    }
    c->job = j;
}

/* --- drawing ------------------------------------------------------------------------------- */

static void fmt_ms(ns_t ns, char *buf, size_t size)
{
    snprintf(buf, size, "%lld.%03lld", (long long)(ns / 1000000), (long long)(ns % 1000000 / 1000));
}

static void ct_draw(struct view *v, WINDOW *w)
{
    struct ctv *c = ctv_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    werase(w);
    int h = getmaxy(w), width = getmaxx(w);
    if (rd && rd->model && !c->started && (rd->flowstats || !v->ui->load.loading))
        job_start(v, c, rd);
    if (c->job && atomic_load(&c->job->done))
        job_take(c);
    const struct call_tree *t = c->tree[c->mode];
    if (t && c->flame) {
        char title[96];
        snprintf(title, sizeof title, "Call tree %s (rank %d)", c->mode == CT_TOP_DOWN ? "top-down" : "bottom-up",
                 rd ? rd->rank : 0);
        ctf_draw(&c->fl, w, t, c->m, title);
        return;
    }
    if (!t) {
        const char *why = !rd ? "no rank" : rd->digest ? "this rank was read from a summary: its trace stays on its host"
                        : !rd->model ? (v->ui->load.loading ? "waiting for the timeline…" : "this rank has no timeline")
                        : c->job ? "building the call tree…" : !rd->flowstats && v->ui->load.loading ? "waiting for the load…"
                        : "the call tree could not be built (out of memory)";
        draw_printf(w, 0, 1, width - 2, draw_attr(CP_DIM), "Call tree: %s", why);
        return;
    }
    char a[32];
    draw_printf(w, 0, 1, width - 2, draw_attr(CP_HEADER), "Call tree %s (rank %d, %s nodes%s), by %s   t:%s",
                c->mode == CT_TOP_DOWN ? "top-down" : "bottom-up", rd ? rd->rank : 0,
                vt_thousands(t->n, a, sizeof a), t->truncated ? ", truncated" : "", sort_names[c->sort],
                c->mode == CT_TOP_DOWN ? "bottom-up" : "top-down");
    /* columns from the right: calls (wide screens only), idle self, idle, device, host */
    static const char *const heads[] = { "Host ms", "Device ms", "Idle ms", "Idle self", "Calls" };
    int ncol = width >= 100 ? 5 : 4, cw = 11;
    int namew = width - 2 - ncol * cw;
    if (namew < 10)
        namew = 10;
    draw_printf(w, 1, 1, namew, draw_attr(CP_LABEL), "%s", c->mode == CT_TOP_DOWN ? "Frame (callees below)" : "Frame (callers below)");
    for (int k = 0; k < ncol; k++)
        draw_printf(w, 1, 1 + namew + k * cw, cw, draw_attr((int)c->sort == k ? CP_SELECT : CP_LABEL), "%*s", cw, heads[k]);
    int body = h - 2;
    if (body < 1)
        return;
    if (c->sel < c->top)
        c->top = c->sel;
    if (c->sel >= c->top + (size_t)body)
        c->top = c->sel - (size_t)body + 1;
    for (int y = 0; y < body && c->top + (size_t)y < c->nrows; y++) {
        size_t r = c->top + (size_t)y;
        const struct ct_node *n = &t->nodes[c->rows[r]];
        attr_t at = r == c->sel ? draw_attr(CP_SELECT) : A_NORMAL;
        if (r == c->sel)
            draw_fill(w, 2 + y, 0, width, " ", at);
        int indent = (int)(n->depth < 30 ? n->depth : 30);
        const char *mark = n->first_child == CT_NONE ? "  " : c->open[c->mode][c->rows[r]] ? "▾ " : "▸ ";
        if (!draw_utf8)
            mark = n->first_child == CT_NONE ? "  " : c->open[c->mode][c->rows[r]] ? "- " : "+ ";
        int x = 1 + indent;
        if (x + 2 < namew) {
            draw_printf(w, 2 + y, x, 2, at, "%s", mark);
            const char *name = model_str(c->m, n->name);
            draw_text(w, 2 + y, x + 2, namew - x - 3, name, SIZE_MAX, at);
        }
        ns_t fig[4] = { n->host, n->device, n->idle, n->idle_self };
        for (int k = 0; k < ncol; k++) {
            char b[32];
            if (k < 4)
                fmt_ms(fig[k], b, sizeof b);
            else
                snprintf(b, sizeof b, "%llu", (unsigned long long)n->calls);
            draw_printf(w, 2 + y, 1 + namew + k * cw, cw, at, "%*s", cw, b);
        }
    }
}

/* --- requests ------------------------------------------------------------------------------ */

static bool matches(struct ctv *c, uint32_t id)
{
    return c->have_re && regexec(&c->re, model_str(c->m, c->tree[c->mode]->nodes[id].name), 0, NULL, 0) == 0;
}

/* The next (dir 1) or previous (-1) node in node order whose name matches, after the
 * selected one, wrapping; shown with its ancestors opened. */
static void search_step(struct view *v, struct ctv *c, int dir)
{
    const struct call_tree *t = c->tree[c->mode];
    if (!t || !t->n || !c->have_re)
        return;
    uint32_t from = sel_node(c);
    size_t n = t->n, start = from == CT_NONE ? 0 : from;
    for (size_t k = 1; k <= n; k++) {
        size_t id = (start + n + (dir > 0 ? k : n - k)) % n;
        if (matches(c, (uint32_t)id)) {
            show_node(c, (uint32_t)id);
            return;
        }
    }
    ui_error(v->ui, "no frame matches");
}

static void search_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct ctv *c = user;
    if (!accepted || !text || !*text)
        return;
    if (c->have_re)
        regfree(&c->re);
    c->have_re = regcomp(&c->re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB) == 0;
    if (!c->have_re) {
        ui_error(v->ui, "not a regular expression: %s", text);
        return;
    }
    search_step(v, c, 1);
    c->fl.node = sel_node(c);
    ui_dirty(v->ui);
}

static enum request ct_request(struct view *v, enum request req, int key)
{
    (void)key;
    struct ctv *c = ctv_of(v);
    const struct call_tree *t = c->tree[c->mode];
    v->list = (struct list_cursor){ .sel = &c->sel, .n = c->nrows, .page = 10 };
    if (!t)
        return req;
    uint32_t id = sel_node(c);
    if (c->flame && ctf_move(&c->fl, req))
        return REQ_NONE;
    if (c->flame && (req == REQ_PAGE_UP || req == REQ_PAGE_DOWN || req == REQ_END))
        return REQ_NONE;   /* the table's rows are not on screen */
    if (c->flame && req == REQ_ENTER)
        id = c->fl.node;
    switch (req) {
    case REQ_FLAME:
        c->flame = !c->flame;
        if (c->flame) {
            c->fl.node = id;
        } else if (c->fl.node != CT_NONE && c->fl.node < t->n) {
            show_node(c, c->fl.node);
        }
        return REQ_NONE;
    case REQ_FLAME_FIGURE:
        ctf_toggle_by(&c->fl);
        if (!c->flame)
            c->flame = true, c->fl.node = id;
        return REQ_NONE;
    case REQ_MOVE_RIGHT:
        if (id != CT_NONE && t->nodes[id].first_child != CT_NONE) {
            if (c->open[c->mode][id] && c->sel + 1 < c->nrows)
                c->sel++;
            c->open[c->mode][id] = 1;
            rows_build(c);
        }
        return REQ_NONE;
    case REQ_MOVE_LEFT:
        if (id != CT_NONE && c->open[c->mode][id]) {
            c->open[c->mode][id] = 0;
            rows_build(c);
        } else if (id != CT_NONE && t->nodes[id].parent != CT_NONE) {
            show_node(c, t->nodes[id].parent);
        }
        return REQ_NONE;
    case REQ_TABLE_MODE:
        c->mode = !c->mode;
        c->sel = c->top = 0;
        rows_build(c);
        ctf_reset(&c->fl);
        c->fl.node = sel_node(c);
        return REQ_NONE;
    case REQ_SORT_NEXT:
    case REQ_SORT_PREV:
        c->sort = (enum ct_sort)(((int)c->sort + (req == REQ_SORT_NEXT ? 1 : NSORTS - 1)) % NSORTS);
        for (int i = 0; i < 2; i++)
            call_tree_sort(c->tree[i], c->m, c->sort);
        rows_build(c);
        if (id != CT_NONE)
            show_node(c, id);
        return REQ_NONE;
    case REQ_TABLE_SEARCH:
        ui_prompt(v->ui, v, "/", NULL, NULL, search_done, c);
        return REQ_NONE;
    case REQ_TABLE_SEARCH_NEXT:
    case REQ_TABLE_SEARCH_PREV:
        search_step(v, c, req == REQ_TABLE_SEARCH_NEXT ? 1 : -1);
        c->fl.node = sel_node(c);
        return REQ_NONE;
    case REQ_ENTER:
        if (id != CT_NONE && t->nodes[id].longest != SLICE_NONE)
            ui_goto_slice(v->ui, v->ui->rank, t->nodes[id].longest);
        else
            ui_error(v->ui, "this node has no slice to show");
        return REQ_NONE;
    default:
        return req;
    }
}

static void ct_changed(struct view *v)
{
    struct ctv *c = ctv_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    bool same = rd && rd->model == c->m && (!c->job || c->job->fs == rd->flowstats);
    if (c->started && !same)
        trees_free(c);   /* another rank or new parts: stop the thread before they go */
}

static void ct_done(struct view *v)
{
    struct ctv *c = ctv_of(v);
    trees_free(c);
    if (c->have_re)
        regfree(&c->re);
}

static const char *ct_hint(struct view *v)
{
    if (ctv_of(v)->flame)
        return "arrows:move  f:table  i:device/idle  t:top-down/bottom-up  /:search  Enter:timeline";
    return "Right/Left:open/close  t:top-down/bottom-up  </>:sort  /:search  f:flame  Enter:timeline";
}

const struct view_ops view_calltree = {
    .open = REQ_VIEW_CALLTREE,
    .help = "Call tree view (host frames: host time, device time launched, idle charged)",
    .name = "Call tree", .scopes = SCOPE_TABLE | SCOPE_CALLTREE, .own_scope = SCOPE_CALLTREE, .private_size = sizeof(struct ctv), .rank_timeline = true,
    .done = ct_done, .draw = ct_draw, .request = ct_request, .data_changed = ct_changed, .hint = ct_hint,
};
