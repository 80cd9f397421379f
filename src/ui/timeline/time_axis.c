/* The time axis of the timeline, X-Rank and Memory views (see time_axis.h). Pure integer
 * arithmetic on ns: no curses, no model. */
#include "ui/timeline/time_axis.h"

#define MIN_NPC 1                         /* ns per column at the deepest zoom */
#define MAX_NPC ((ns_t)1 << 52)
#define FALLBACK_COLS 80                  /* before the first draw */

static ns_t cols_or(const struct time_axis *a, int fallback)
{
    return (ns_t)(a->ncols > 0 ? a->ncols : fallback);
}

ns_t time_axis_end(const struct time_axis *a)
{
    return a->t0 + a->npc * cols_or(a, 1);
}

/* at - t0, saturated: hostile timestamps near the int64 ends must not overflow */
static ns_t axis_offset(const struct time_axis *a, ns_t at)
{
    ns_t d;
    if (__builtin_sub_overflow(at, a->t0, &d))
        d = at > a->t0 ? INT64_MAX / 2 : INT64_MIN / 2;
    return d;
}

int64_t time_axis_col(const struct time_axis *a, ns_t at)
{
    ns_t d = axis_offset(a, at);
    int64_t c = d / a->npc;
    if (d < 0 && d % a->npc)
        c--;
    return c;
}

int64_t time_axis_col_ceil(const struct time_axis *a, ns_t at)
{
    ns_t d = axis_offset(a, at);
    int64_t c = d / a->npc;
    if (d > 0 && d % a->npc)
        c++;
    return c;
}

bool time_axis_resize(struct time_axis *a, int ncols)
{
    if (a->ncols == ncols)
        return false;
    if (a->ncols > 0) {
        ns_t span = a->npc * a->ncols;
        a->npc = span / ncols > 0 ? span / ncols : MIN_NPC;
    }
    a->ncols = ncols;
    return true;
}

void time_axis_fit(struct time_axis *a, ns_t lo, ns_t hi)
{
    a->t0 = lo;
    if (hi <= lo) {
        a->npc = 1000;
        return;
    }
    a->npc = (hi - lo) / cols_or(a, FALLBACK_COLS) + 1;
    if (a->npc < MIN_NPC) a->npc = MIN_NPC;
}

void time_axis_zoom(struct time_axis *a, bool in, ns_t around)
{
    ns_t t1 = time_axis_end(a);
    if (around < a->t0 || around >= t1)
        around = a->t0 + (t1 - a->t0) / 2;
    ns_t old = a->npc, npc = in ? old / 2 : old * 2;
    if (npc < MIN_NPC) npc = MIN_NPC;
    if (npc > MAX_NPC) npc = MAX_NPC;
    if (npc == old)
        return;
    __int128 off = (__int128)(around - a->t0) * npc / old;   /* keep `around` on its column */
    a->t0 = around - (ns_t)off;
    a->npc = npc;
}

/* Pans stop this far from 0 (2^62 ns, twice today's epoch times): t0 + npc * ncols then
 * stays inside int64 even at MAX_NPC on a 1000-column axis, so panning without end
 * cannot wrap to the other sign. */
#define PAN_LIMIT ((ns_t)1 << 62)

static ns_t pan_clamp(ns_t t)
{
    return t > PAN_LIMIT ? PAN_LIMIT : t < -PAN_LIMIT ? -PAN_LIMIT : t;
}

void time_axis_pan(struct time_axis *a, int dir, ns_t *cur)
{
    ns_t step = a->npc * (ns_t)(a->ncols > 4 ? a->ncols / 4 : 1);
    ns_t t0 = pan_clamp(a->t0 + dir * step);
    *cur = pan_clamp(*cur + (t0 - a->t0));
    a->t0 = t0;
}

void time_axis_center(struct time_axis *a, ns_t at)
{
    a->t0 = at - a->npc * cols_or(a, FALLBACK_COLS) / 2;
}

void time_axis_show(struct time_axis *a, ns_t lo, ns_t hi)
{
    if (hi <= lo)
        hi = lo + 1;
    ns_t pad = (hi - lo) / 20, span = hi - lo + 2 * pad;
    a->npc = span / cols_or(a, FALLBACK_COLS) + 1;
    if (a->npc < MIN_NPC) a->npc = MIN_NPC;
    a->t0 = lo - pad;
}

ns_t time_axis_at(const struct time_axis *a, int64_t col)
{
    return a->t0 + (ns_t)col * a->npc;
}

bool time_axis_shows(const struct time_axis *a, ns_t at)
{
    return at >= a->t0 && at < time_axis_end(a);
}

void time_axis_wheel(struct time_axis *a, bool in, int64_t col, ns_t cur)
{
    time_axis_zoom(a, in, col >= 0 ? time_axis_at(a, col) : cur);
}

void time_axis_edge(struct time_axis *a, ns_t lo, ns_t hi, bool end, ns_t *cur)
{
    a->t0 = end ? hi - a->npc * (a->ncols - 1) : lo;
    *cur = end ? hi : lo;
}

bool time_axis_request(struct time_axis *a, enum request req, ns_t *cur)
{
    switch (req) {
    case REQ_MOVE_LEFT: case REQ_PAN_LEFT: time_axis_pan(a, -1, cur); return true;
    case REQ_MOVE_RIGHT: case REQ_PAN_RIGHT: time_axis_pan(a, 1, cur); return true;
    case REQ_ZOOM_IN: time_axis_zoom(a, true, *cur); return true;
    case REQ_ZOOM_OUT: time_axis_zoom(a, false, *cur); return true;
    default: return false;
    }
}
