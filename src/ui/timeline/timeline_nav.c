/* Timeline navigation: regex search in time order across lanes, flow-follow, the jump
 * history and go-to-time. Work per keypress is bounded: names are matched once per search
 * (one regexec per distinct name), then rows are scanned from the cursor with a budget. */
#include "ui/timeline/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "model/analysis/flowstats.h"
#include "ui/shell/draw.h"
#include "util/demangle.h"
#include "util/search.h"

/* --- search -------------------------------------------------------------------------- */

#define SEARCH_BUDGET 4000000u     /* slice checks per keypress, over all rows */

void tl_search_free(struct timeline *t)
{
    if (t->re_ok)
        regfree(&t->re);
    t->re_ok = false;
    free(t->match);
    t->match = NULL;
    t->nmatch_ids = 0;
    free(t->hits);
    t->hits = NULL;
    t->nhits = 0;
}

/* Counts the matching slices (one pass over the name column) and keeps them in search order
 * when there are not too many, so a match can say where it is ("3/90"). */
static void count_hits(struct timeline *t)
{
    const struct model *m = t->m;
    size_t n = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        n += t->match[m->name[i]];
    t->nhits = n;
    if (!n || n > TL_HITS_MAX)
        return;
    struct slice_start *h = malloc(n * sizeof *h);
    t->hits = malloc(n * sizeof *t->hits);
    if (!h || !t->hits) {
        free(h);
        free(t->hits);
        t->hits = NULL;
        return;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        if (t->match[m->name[i]])
            h[k++] = (struct slice_start){ m->start[i], i };
    qsort(h, n, sizeof *h, slice_start_cmp);
    for (k = 0; k < n; k++)
        t->hits[k] = h[k].slice;
    free(h);
}

/* "3/90" for slice s among the matches, or "90 matches" when they were too many to keep. */
static const char *hit_position(const struct timeline *t, uint32_t s, char *buf, size_t size)
{
    if (!t->hits) {
        snprintf(buf, size, "%zu matches", t->nhits);
        return buf;
    }
    const struct model *m = t->m;
    size_t lo;
    struct slice_start key = { m->start[s], s };
    LOWER_BOUND(lo, (size_t)0, t->nhits, k, slice_start_cmp(&(struct slice_start){ m->start[t->hits[k]], t->hits[k] }, &key) < 0);
    snprintf(buf, size, "%zu/%zu", lo + 1, t->nhits);
    return buf;
}

static bool has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return true;
    return false;
}

/* Compiles the pattern and marks matching name ids. Returns the count of names. */
static long prematch(struct view *v)
{
    struct timeline *t = tl_of(v);
    tl_search_free(t);
    if (!t->m || !t->pattern[0])
        return -1;
    int flags = REG_EXTENDED | REG_NOSUB | (has_upper(t->pattern) ? 0 : REG_ICASE);
    int rc = regcomp(&t->re, t->pattern, flags);
    if (rc) {
        char err[128];
        regerror(rc, &t->re, err, sizeof err);
        ui_error(v->ui, "search: %s", err);
        return -1;
    }
    t->re_ok = true;
    uint32_t n = strtab_count(t->m->str);
    t->match = calloc(n ? n : 1, 1);
    if (!t->match)
        return -1;
    t->nmatch_ids = n;
    long names = 0;
    for (uint32_t id = 1; id < n; id++)
        if (demangle_regmatch(&t->re, strtab_get(t->m->str, id))) {
            t->match[id] = 1;
            names++;
        }
    if (names)
        count_hits(t);
    return names;
}

static bool key_after(const struct model *m, uint32_t i, ns_t ts, int64_t idx)
{
    return m->start[i] > ts || (m->start[i] == ts && (int64_t)i > idx);
}

/* Next (or previous) matching slice in (start, index) order from (ts, idx) over every lane.
 * Rows stop scanning past the best candidate found so far; each row has a budget, and when
 * it runs out *frontier says how far the search safely got. */
static uint32_t search_from(struct timeline *t, ns_t ts, int64_t idx, bool fwd, ns_t *frontier, bool *exhausted)
{
    const struct model *m = t->m;
    uint32_t best = SLICE_NONE;
    uint32_t rows = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        rows += m->lanes[l].ndepth;
    uint32_t per_row = rows ? SEARCH_BUDGET / rows : SEARCH_BUDGET;
    if (per_row < 20000) per_row = 20000;
    *exhausted = false;
    *frontier = fwd ? INT64_MAX : INT64_MIN;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            uint32_t a = ln->row_first[d], b = ln->row_first[d + 1];
            uint32_t lo;   /* first i with key(i) > (ts, idx) */
            LOWER_BOUND(lo, a, b, k, !key_after(m, k, ts, idx));
            uint32_t budget = per_row;
            if (fwd) {
                for (uint32_t i = lo; i < b; i++) {
                    if (best != SLICE_NONE && !key_after(m, best, m->start[i], i))
                        break;     /* past the best so far */
                    if (t->match[m->name[i]]) { best = i; break; }
                    if (!--budget) {
                        *exhausted = true;
                        if (m->start[i] < *frontier) *frontier = m->start[i];
                        break;
                    }
                }
            } else {
                for (uint32_t i = lo; i-- > a;) {
                    if (m->start[i] == ts && (int64_t)i == idx)
                        continue;
                    if (best != SLICE_NONE && key_after(m, best, m->start[i], i))
                        break;     /* before the best so far */
                    if (t->match[m->name[i]]) { best = i; break; }
                    if (!--budget) {
                        *exhausted = true;
                        if (m->start[i] > *frontier) *frontier = m->start[i];
                        break;
                    }
                }
            }
        }
    }
    if (*exhausted && best != SLICE_NONE) {
        /* a row that ran out may hide an earlier match: only trust best inside the frontier */
        if ((fwd && m->start[best] > *frontier) || (!fwd && m->start[best] < *frontier))
            best = SLICE_NONE;
    }
    return best;
}

void tl_search_step(struct view *v, bool forward)
{
    struct timeline *t = tl_of(v);
    if (!t->m)
        return;
    if (!t->pattern[0]) {
        tl_search_prompt(v);
        return;
    }
    if (!t->match && prematch(v) < 0)
        return;
    ns_t ts;
    int64_t idx;
    if (t->sel != SLICE_NONE) {
        ts = t->m->start[t->sel];
        idx = t->sel;
    } else {
        ts = t->cur_t;
        idx = forward ? -1 : INT64_MAX;
    }
    ns_t frontier;
    bool exhausted;
    uint32_t s = search_from(t, ts, idx, forward, &frontier, &exhausted);
    char pat[300];
    draw_escape(t->pattern, SIZE_MAX, pat, sizeof pat);
    if (s == SLICE_NONE) {
        if (exhausted && frontier != INT64_MAX && frontier != INT64_MIN) {
            t->sel = SLICE_NONE;
            t->cur_t = frontier;
            ui_message(v->ui, "searching /%s/ ... press %s to continue", pat, forward ? "n" : "N");
        } else {
            ui_message(v->ui, "/%s/: no %s match", pat, forward ? "later" : "earlier");
        }
        return;
    }
    tl_select(v, s, true);
    char lane[256], at[48], pos[64];
    ui_message(v->ui, "/%s/ %s: %s on %s at %s", pat, hit_position(t, s, pos, sizeof pos),
               demangle_shown(model_str(t->m, t->m->name[s])), lanedraw_lane_label(t->m, t->m->lane[s], lane, sizeof lane),
               tl_fmt_time(t, t->m->start[s], at, sizeof at));
}

static void search_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct timeline *t = user;
    if (!accepted)
        return;
    if (!text[0]) {
        tl_search_free(t);
        t->pattern[0] = 0;
        ui_message(v->ui, "search cleared");
        return;
    }
    snprintf(t->pattern, sizeof t->pattern, "%s", text);
    long names = prematch(v);
    if (names < 0)
        return;
    if (names == 0) {
        char pat[300];
        draw_escape(t->pattern, SIZE_MAX, pat, sizeof pat);
        ui_message(v->ui, "/%s/: no slice name matches", pat);
        return;
    }
    /* the first match at or after the cursor */
    t->sel = SLICE_NONE;
    tl_search_step(v, true);
}

void tl_search_prompt(struct view *v)
{
    /* starts empty like vi and less; n and N keep using the last pattern */
    ui_prompt(v->ui, v, "/", NULL, NULL, search_done, tl_of(v));
}

/* --- go to time ------------------------------------------------------------------------ */

static void goto_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct timeline *t = user;
    if (!accepted || !t->m || !text[0])
        return;
    ns_t at;
    if (parse_time(text, &at) != 0) {
        ui_error(v->ui, "go to: cannot read a time in '%s' (e.g. 12.5ms, 300us, 1.2s)", text);
        return;
    }
    tl_hist_push(t);
    t->cur_t = t->abs_time ? at : t->origin + at;
    time_axis_center(&t->ax, t->cur_t);
    t->sel = SLICE_NONE;
    if (t->row < t->nrows && t->rows[t->row].kind == TR_LANE) {
        uint32_t f, l;
        model_row_range(t->m, t->rows[t->row].lane, t->rows[t->row].depth, t->cur_t, t->cur_t + 1, &f, &l);
        if (f < l)
            t->sel = f;
    }
    char buf[48];
    ui_message(v->ui, "at %s", tl_fmt_time(t, t->cur_t, buf, sizeof buf));
}

void tl_goto_prompt(struct view *v)
{
    struct timeline *t = tl_of(v);
    ui_prompt(v->ui, v, t->abs_time ? "go to absolute time: " : "go to time from start (e.g. 12.5ms): ",
              NULL, NULL, goto_done, t);
}

/* --- jump history ------------------------------------------------------------------------ */

static struct tl_pos here(const struct timeline *t)
{
    return (struct tl_pos){ .slice = t->sel, .cur_t = t->cur_t };
}

void tl_hist_push(struct timeline *t)
{
    if (t->hist_i >= TL_HIST) {
        memmove(t->hist, t->hist + 1, (TL_HIST - 1) * sizeof *t->hist);
        t->hist_i = TL_HIST - 1;
    }
    t->hist[t->hist_i++] = here(t);
    t->nhist = t->hist_i;
}

static void go_pos(struct view *v, struct tl_pos p)
{
    struct timeline *t = tl_of(v);
    if (p.slice != SLICE_NONE && t->m && p.slice < t->m->nslices) {
        tl_select(v, p.slice, false);
    } else {
        t->sel = SLICE_NONE;
        ns_t t1 = time_axis_end(&t->ax);
        if (p.cur_t < t->ax.t0 || p.cur_t >= t1)
            time_axis_center(&t->ax, p.cur_t);
    }
    t->cur_t = p.cur_t;
}

void tl_hist_move(struct view *v, int dir)
{
    struct timeline *t = tl_of(v);
    if (dir < 0) {
        if (t->hist_i == 0) {
            ui_message(v->ui, "no earlier jump");
            return;
        }
        /* save where we are so forward can return */
        if (t->hist_i >= t->nhist) {
            if (t->nhist < TL_HIST)
                t->hist[t->nhist++] = here(t);
        } else {
            t->hist[t->hist_i] = here(t);
        }
        t->hist_i--;
        go_pos(v, t->hist[t->hist_i]);
        ui_message(v->ui, "back (%zu of %zu)", t->hist_i + 1, t->nhist);
    } else {
        if (t->hist_i + 1 >= t->nhist) {
            ui_message(v->ui, "no later jump");
            return;
        }
        t->hist[t->hist_i] = here(t);
        t->hist_i++;
        go_pos(v, t->hist[t->hist_i]);
        ui_message(v->ui, "forward (%zu of %zu)", t->hist_i + 1, t->nhist);
    }
}

/* --- flows ------------------------------------------------------------------------------- */

#define MAX_TARGETS 64
#define DESCEND_BUDGET 20000u

static size_t add_unique(uint32_t *out, size_t n, uint32_t s)
{
    if (s == SLICE_NONE || n >= MAX_TARGETS)
        return n;
    for (size_t i = 0; i < n; i++)
        if (out[i] == s)
            return n;
    out[n] = s;
    return n + 1;
}

static size_t flow_ends(const struct model *m, uint32_t s, bool forward, uint32_t *out, size_t n)
{
    const uint32_t *idx;
    size_t k = forward ? model_flows_from(m, s, &idx) : model_flows_to(m, s, &idx);
    for (size_t i = 0; i < k; i++) {
        const struct flow *f = &m->flows[idx[i]];
        n = add_unique(out, n, forward ? f->dst : f->src);
    }
    return n;
}

static const struct model *sort_m;
static bool sort_fwd;

static int target_rank(uint32_t s)
{
    enum lane_kind k = sort_m->lanes[sort_m->lane[s]].kind;
    if (sort_fwd)
        return k == LANE_DEVICE ? 0 : k == LANE_COMM ? 1 : 2;
    return k == LANE_PYTHON ? 0 : k == LANE_CANN ? 1 : 2;
}

static int cmp_target(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int ra = target_rank(a), rb = target_rank(b);
    if (ra != rb)
        return ra - rb;
    if (sort_m->start[a] != sort_m->start[b])
        return sort_m->start[a] < sort_m->start[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void jump_to(struct view *v, uint32_t from, uint32_t to)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    tl_select(v, to, true);
    t->chain_a = from;
    t->chain_b = to;
    t->partner = SLICE_NONE;
    char lane[256], lat[48], at[48];
    ns_t d = m->start[to] - m->start[from];
    ui_message(v->ui, "%s on %s at %s (%s%s from %s)", model_str(m, m->name[to]),
               lanedraw_lane_label(m, m->lane[to], lane, sizeof lane),
               tl_fmt_time(t, m->start[to], at, sizeof at), d >= 0 ? "+" : "",
               fmt_dur(d, lat, sizeof lat), model_str(m, m->name[from]));
}

static void pick_done(struct view *v, void *user, size_t idx)
{
    struct timeline *t = user;
    if (idx == SIZE_MAX || idx >= t->npicks || !t->m) {
        v->dirty = true;
        return;
    }
    uint32_t from = t->sel;
    jump_to(v, from, t->picks[idx]);
}

/* What "follow forward" should land on: the device work the slice launched, through every
 * hop in between (aten op -> enqueue -> dequeue -> CANN node -> kernel), not merely the
 * first flow out of it (which may be a forward->backward link). Bounded for a frame that
 * encloses the whole capture. */
#define CHAIN_HOP_BUDGET 200000

static size_t device_targets(const struct model *m, uint32_t s, uint32_t *out, const char **how)
{
    struct flow_hop *hops = NULL;
    bool cut = false;
    size_t nh = flow_chain_forward_max(m, s, CHAIN_HOP_BUDGET, &hops, &cut);
    size_t n = 0;
    for (size_t i = 1; i < nh && n < MAX_TARGETS; i++) {
        enum lane_kind k = m->lanes[hops[i].lane].kind;
        if (k == LANE_DEVICE || (k == LANE_COMM && m->lanes[m->lane[s]].kind != LANE_COMM))
            out[n++] = hops[i].slice;
    }
    free(hops);
    if (n)
        *how = n == MAX_TARGETS || cut ? " (first device tasks it launched)" : " (device tasks it launched)";
    return n;
}

void tl_follow(struct view *v, bool forward)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    if (!m || t->sel == SLICE_NONE) {
        ui_message(v->ui, "select a slice first (h/l, click, or /search)");
        return;
    }
    uint32_t s = t->sel;
    uint32_t out[MAX_TARGETS];
    size_t n = 0;
    const char *how = "";
    if (forward)
        n = device_targets(m, s, out, &how);
    if (n == 0)
        n = flow_ends(m, s, forward, out, 0);
    if (n == 0 && forward) {
        /* a Python frame or op without a direct flow: use the flows of what it encloses */
        const struct lane *ln = &m->lanes[m->lane[s]];
        uint32_t budget = DESCEND_BUDGET;
        for (uint32_t d = m->depth[s] + 1u; d < ln->ndepth && budget && n < MAX_TARGETS; d++) {
            uint32_t f, l;
            model_row_range(m, m->lane[s], d, m->start[s], model_end(m, s) + (m->dur[s] == 0), &f, &l);
            for (uint32_t i = f; i < l && budget && n < MAX_TARGETS; i++, budget--)
                n = flow_ends(m, i, true, out, n);
        }
        how = " (from enclosed slices)";
    }
    if (n == 0 && !forward) {
        uint32_t p = model_parent(m, s);
        if (p != SLICE_NONE) {
            jump_to(v, s, p);
            return;
        }
    }
    if (n == 0) {
        ui_message(v->ui, forward ? "no flow leaves this slice or what it encloses" : "no flow enters this slice");
        return;
    }
    sort_m = m;
    sort_fwd = forward;
    qsort(out, n, sizeof *out, cmp_target);
    if (n == 1) {
        jump_to(v, s, out[0]);
        return;
    }
    free(t->picks);
    t->picks = malloc(n * sizeof *t->picks);
    char **items = calloc(n, sizeof *items);
    if (!t->picks || !items) {
        free(items);
        t->npicks = 0;
        return;
    }
    memcpy(t->picks, out, n * sizeof *out);
    t->npicks = n;
    for (size_t i = 0; i < n; i++) {
        char lane[256], at[48], name[160];
        draw_escape(model_str(m, m->name[out[i]]), SIZE_MAX, name, sizeof name);
        lanedraw_lane_label(m, m->lane[out[i]], lane, sizeof lane);
        size_t len = strlen(name) + strlen(lane) + 64;
        items[i] = malloc(len);
        if (items[i])
            snprintf(items[i], len, "%-32s %s  %s", name, lane, tl_fmt_time(t, m->start[out[i]], at, sizeof at));
    }
    char title[96];
    snprintf(title, sizeof title, "%zu %s%s", n, forward ? "targets" : "sources", how);
    ui_pick(v->ui, v, title, (const char *const *)items, n, pick_done, t);
    draw_strings_free(items, n);
}

void tl_flow_cycle(struct view *v, int dir)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    if (!m || t->sel == SLICE_NONE)
        return;
    /* keep cycling the anchor's flows while we stand on one of its partners */
    if (t->flow_anchor == SLICE_NONE || t->flow_anchor >= m->nslices ||
        (t->sel != t->flow_anchor && t->sel != t->chain_b)) {
        t->flow_anchor = t->sel;
        t->flow_i = dir > 0 ? SIZE_MAX : 0;
    }
    uint32_t a = t->flow_anchor;
    const uint32_t *from, *to;
    size_t nf = model_flows_from(m, a, &from), nt = model_flows_to(m, a, &to);
    size_t n = nf + nt;
    if (!n) {
        ui_message(v->ui, "no flow touches this slice");
        return;
    }
    t->flow_i = dir > 0 ? (t->flow_i == SIZE_MAX ? 0 : (t->flow_i + 1) % n) : (t->flow_i + n - 1) % n;
    bool out = t->flow_i < nf;
    const struct flow *f = &m->flows[out ? from[t->flow_i] : to[t->flow_i - nf]];
    uint32_t other = out ? f->dst : f->src;
    if (other == SLICE_NONE) {
        ui_message(v->ui, "flow %zu/%zu %s: the other end is missing", t->flow_i + 1, n, model_str(m, f->cat));
        return;
    }
    uint32_t anchor = a;
    size_t keep_i = t->flow_i;
    jump_to(v, anchor, other);
    t->flow_anchor = anchor;
    t->flow_i = keep_i;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", v->ui->msg);
    ui_message(v->ui, "flow %zu/%zu %s %s: %s", keep_i + 1, n, model_str(m, f->cat), out ? "out" : "in", msg);
}
