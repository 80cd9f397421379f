/* Step period detection: device kernels cut into steps by the most regular gap between
 * repeats of one kernel name (when no markers say where steps are). */
#include "model/analysis/steps.h"
#include "model/analysis/steps_internal.h"
#include "util/search.h"
#include "model/analysis/comm.h"
#include "model/analysis/engine_annot.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "util/free_all.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- period detection ----------------------------------------------------------------------- */

struct cand { uint32_t g; uint32_t name; uint32_t count; };

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    return x->count > y->count ? -1 : x->count < y->count;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct period_try {
    uint32_t *cuts;     /* indices into the stream sequence where steps begin */
    size_t ncuts;
    double strength;
    uint32_t g;
};

/* Places cuts for period g anchored at the occurrences pos[0..c) of one name; measures how
 * clearly the cuts sit in idle gaps. gap[i]: device idle before stream kernel i. */
static int try_period(const ns_t *gap, size_t n, const uint32_t *pos, size_t c, uint32_t g,
                      struct period_try *out)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    int32_t half = (int32_t)g / 2;
    double best = -1;
    int32_t bestd = 0;
    for (int32_t d = -half; d < (int32_t)g - half; d++) {
        double sum = 0;
        for (size_t j = 0; j < c; j++) {
            int64_t p = (int64_t)pos[j] + d;
            if (p >= 0 && p < (int64_t)n)
                sum += log1p((double)gap[p] / 1000.0);
        }
        if (sum > best) {
            best = sum;
            bestd = d;
        }
    }
    uint32_t *cuts = malloc((2 * c + 2 + n / (g ? g : 1) * 2) * sizeof *cuts);
    if (!cuts)
        return -1;
    size_t nc = 0;
    int32_t w = (int32_t)g / 16 > 1 ? (int32_t)g / 16 : 1;
    cuts[nc++] = 0;
    for (size_t j = 0; j < c; j++) {
        int64_t p0 = (int64_t)pos[j] + bestd, bp = -1;
        for (int64_t p = p0 - w; p <= p0 + w; p++)
            if (p > 0 && p < (int64_t)n && (bp < 0 || gap[p] > gap[bp]))
                bp = p;
        if (bp > 0)
            cuts[nc++] = (uint32_t)bp;
    }
    qsort(cuts, nc, sizeof *cuts, cmp_u32);
    /* drop cuts too close to the previous one (extra anchors), keeping the larger gap */
    size_t k = 0;
    for (size_t i = 0; i < nc; i++) {
        if (k && cuts[i] - cuts[k - 1] < (g + 1) / 2) {
            if (k > 1 && gap[cuts[i]] > gap[cuts[k - 1]])
                cuts[k - 1] = cuts[i];
            continue;
        }
        cuts[k++] = cuts[i];
    }
    nc = k;
    /* fill holes (missing anchors): cut at the largest gap near the expected place */
    size_t cap = 2 * c + 2 + n / (g ? g : 1) * 2;
    uint32_t *fill = malloc(cap * sizeof *fill);
    if (!fill) {
        free(cuts);
        return -1;
    }
    size_t nf = 0;
    for (size_t i = 0; i < nc && nf < cap; i++) {
        fill[nf++] = cuts[i];
        uint64_t next = i + 1 < nc ? cuts[i + 1] : n;
        uint32_t at = cuts[i];
        while (next - at > g + g / 2 && nf < cap) {
            int64_t lo = (int64_t)at + g - g / 4, hi = (int64_t)at + g + g / 4, bp = -1;
            for (int64_t p = lo; p <= hi && p < (int64_t)next; p++)
                if (bp < 0 || gap[p] > gap[bp])
                    bp = p;
            if (bp < 0 || (uint64_t)bp >= next)
                break;
            fill[nf++] = (uint32_t)bp;
            at = (uint32_t)bp;
        }
    }
    free(cuts);
    out->cuts = fill;
    out->ncuts = nf;
    /* strength: lower quartile of cut gaps against the 90th percentile of the others */
    ns_t *cg = malloc((nf + 1) * sizeof *cg), *og = malloc((n + 1) * sizeof *og);
    if (!cg || !og) {
        FREE_ALL(cg, og);
        return -1;
    }
    size_t ncg = 0, nog = 0, ci = 0;
    for (size_t i = 1; i < n; i++) {
        while (ci < nf && fill[ci] < i)
            ci++;
        if (ci < nf && fill[ci] == i)
            cg[ncg++] = gap[i];
        else
            og[nog++] = gap[i];
    }
    if (ncg >= 1) {
        qsort(cg, ncg, sizeof *cg, steps_cmp_ns);
        qsort(og, nog, sizeof *og, steps_cmp_ns);
        ns_t q = steps_pct_sorted(cg, ncg, 0.25), o = steps_pct_sorted(og, nog, 0.90);
        if (o < 1000)
            o = 1000;
        out->strength = q >= 1000 ? (double)q / (double)o : 0;
    }
    FREE_ALL(cg, og);
    return 0;
}

/* The device lane with the most compute kernels (*n of them); LANE_NONE when there is none,
 * UINT32_MAX - 1 when memory ran out. */
static uint32_t busiest_stream(const struct ctx *c, size_t *n)
{
    const struct model *m = c->m;
    uint32_t *cnt = calloc(m->nlanes + 1, sizeof *cnt);
    if (!cnt)
        return UINT32_MAX - 1;
    for (size_t i = 0; i < c->ndev; i++)
        if (!steps_is_comm_slice(c, c->dev[i].s))
            cnt[m->lane[c->dev[i].s]]++;
    uint32_t lane = LANE_NONE;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (cnt[l] && (lane == LANE_NONE || cnt[l] > cnt[lane]))
            lane = l;
    *n = lane == LANE_NONE ? 0 : cnt[lane];
    free(cnt);
    return lane;
}

/* Candidate periods: names recurring at a regular interval through the whole stream (their
 * occurrences pos[off[a]..off[a + 1]) in the stream of n kernels), one representative per
 * period (within 3%), shortest first, into cand; how many. gtmp is scratch of n entries. */
static size_t period_candidates(const uint32_t *pos, const uint32_t *off, uint32_t nl, size_t n, uint32_t *gtmp,
                                struct cand *cand)
{
    size_t ncand = 0;
    for (uint32_t a = 0; a < nl; a++) {
        uint32_t cc = off[a + 1] - off[a];
        if (cc < 2)
            continue;
        const uint32_t *p = &pos[off[a]];
        for (uint32_t j = 0; j + 1 < cc; j++)
            gtmp[j] = p[j + 1] - p[j];
        qsort(gtmp, cc - 1, sizeof *gtmp, cmp_u32);
        uint32_t g = gtmp[(cc - 1) / 2];
        if (g < 2 || (size_t)g * 2 > n)
            continue;
        uint32_t reg = 0;
        for (uint32_t j = 0; j + 1 < cc; j++)
            if (gtmp[j] * 4 >= g * 3 && gtmp[j] * 4 <= g * 5)
                reg++;
        if (reg * 10 < (cc - 1) * 7 || (uint64_t)(cc - 1) * g * 2 < n)
            continue;
        cand[ncand++] = (struct cand){ g, a, cc };
    }
    qsort(cand, ncand, sizeof *cand, cmp_cand);
    size_t nrep = 0;
    for (size_t i = 0; i < ncand; i++) {
        if (nrep && (uint64_t)cand[i].g * 100 <= (uint64_t)cand[nrep - 1].g * 103) {
            continue;
        }
        cand[nrep++] = cand[i];
    }
    return nrep;
}

/* Of the representative candidate periods (by increasing period), the shortest whose cut
 * strength is within 70% of the strongest; .cuts NULL when none holds. */
static struct period_try pick_period(const struct cand *cand, size_t nrep, const uint32_t *lname,
                                     const ns_t *gap, size_t n, const uint32_t *pos, const uint32_t *off)
{
    struct period_try best = { 0 };
    double best_strength = 0;
    struct period_try tries[MAX_CANDIDATES];
    size_t ntries = 0;
    for (size_t i = 0; i < nrep && ntries < MAX_CANDIDATES; i++) {
        uint32_t g = cand[i].g;
        size_t match = 0;
        /* a missing or extra kernel shifts the rest of a step: allow a drift of 2 */
        size_t drift = g >= 8 ? 2 : g >= 4 ? 1 : 0;
        for (size_t j = 0; j + g < n; j++) {
            size_t lo = j + g - drift, hi = j + g + drift < n ? j + g + drift : n - 1;
            for (size_t q = lo; q <= hi; q++)
                if (lname[q] == lname[j]) {
                    match++;
                    break;
                }
        }
        if (match * 2 < n - g)
            continue;
        struct period_try t;
        if (try_period(gap, n, &pos[off[cand[i].name]], cand[i].count, g, &t) < 0) {
            free(t.cuts);
            continue;
        }
        if (t.strength < 3.0 || t.ncuts < 2) {
            free(t.cuts);
            continue;
        }
        if (t.strength > best_strength)
            best_strength = t.strength;
        tries[ntries++] = t;
    }
    for (size_t i = 0; i < ntries; i++) {       /* tries are by increasing period */
        if (!best.cuts && tries[i].strength >= 0.7 * best_strength)
            best = tries[i];
        else
            free(tries[i].cuts);
    }
    return best;
}

/* The step windows from the chosen cuts (a step begins where the device went idle before
 * its first stream kernel: win, best->ncuts + 1 entries) and every device kernel's step. */
static void assign_windows(struct ctx *c, const uint32_t *seq, size_t n, const struct period_try *best, ns_t *win)
{
    const struct model *m = c->m;
    ns_t re = NS_NONE;
    size_t ci = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = c->dev[seq[i]].s;
        if (ci < best->ncuts && best->cuts[ci] == i) {
            win[ci] = ci == 0 ? INT64_MIN : steps_longest_hole(&c->dbusy, re, m->start[s]);
            ci++;
        }
        ns_t e = model_end(m, s);
        if (re == NS_NONE || e > re)
            re = e;
    }
    win[best->ncuts] = INT64_MAX;
    for (size_t i = 0; i < c->ndev; i++) {
        ns_t t = c->dev[i].start;
        size_t lo;                               /* last window starting <= t */
        LOWER_BOUND(lo, (size_t)0, best->ncuts, k, win[k] <= t);
        c->step_of[i] = (int32_t)lo - 1;
        if (c->step_of[i] < 0)
            c->step_of[i] = 0;
    }
    /* stream kernels follow the cut indices exactly */
    ci = 0;
    for (size_t i = 0; i < n; i++) {
        while (ci + 1 < best->ncuts && best->cuts[ci + 1] <= i)
            ci++;
        c->step_of[seq[i]] = (int32_t)ci;
    }
}

/* Finds periodic steps on the busiest compute stream. Fills c->step_of and *out_steps;
 * returns the number of steps (0: none, note says why), or -1 (memory). */
int steps_detect_period(struct ctx *c, struct steps *st, ns_t **win_out)
{
    const struct model *m = c->m;
    size_t n = 0;
    uint32_t lane = busiest_stream(c, &n);
    if (lane == UINT32_MAX - 1)
        return -1;
    if (n < 4) {
        snprintf(st->note, sizeof st->note, "no periodic steps found: %zu compute kernels on the device", n);
        return 0;
    }
    st->stream_lane = lane;
    uint32_t *seq = malloc(n * sizeof *seq);       /* dev indices of the stream, by start */
    ns_t *gap = malloc(n * sizeof *gap);
    uint32_t *lname = malloc(n * sizeof *lname);    /* dense local name ids */
    uint32_t *map = malloc((c->nnames + 1) * sizeof *map);
    if (!seq || !gap || !lname || !map) {
        free(seq); free(gap); free(lname); free(map);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->ndev; i++)
        if (m->lane[c->dev[i].s] == lane && !steps_is_comm_slice(c, c->dev[i].s))
            seq[k++] = (uint32_t)i;
    /* idle device time before each stream kernel */
    ns_t run_end = NS_NONE, maxgap = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = c->dev[seq[i]].s;
        ns_t t = m->start[s];
        gap[i] = 0;
        if (run_end != NS_NONE && t > run_end)
            gap[i] = (t - run_end) - steps_busy_in(&c->dbusy, run_end, t);
        if (gap[i] > maxgap)
            maxgap = gap[i];
        ns_t e = model_end(m, s);
        if (run_end == NS_NONE || e > run_end)
            run_end = e;
    }
    gap[0] = maxgap;
    /* dense names, occurrence lists by counting sort */
    for (uint32_t i = 0; i <= c->nnames; i++)
        map[i] = UINT32_MAX;
    uint32_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t nm = m->name[c->dev[seq[i]].s];
        if (nm > c->nnames)
            nm = c->nnames;
        if (map[nm] == UINT32_MAX)
            map[nm] = nl++;
        lname[i] = map[nm];
    }
    free(map);
    uint32_t *off = calloc(nl + 1, sizeof *off), *pos = malloc(n * sizeof *pos);
    uint32_t *fillp = malloc((nl + 1) * sizeof *fillp), *gtmp = malloc(n * sizeof *gtmp);
    struct cand *cand = malloc((nl + 1) * sizeof *cand);
    if (!off || !pos || !fillp || !gtmp || !cand) {
        free(off); free(pos); free(fillp); free(gtmp); free(cand);
        free(seq); free(gap); free(lname);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        off[lname[i] + 1]++;
    for (uint32_t i = 0; i < nl; i++)
        off[i + 1] += off[i];
    memcpy(fillp, off, nl * sizeof *fillp);
    for (size_t i = 0; i < n; i++)
        pos[fillp[lname[i]]++] = (uint32_t)i;
    free(fillp);
    size_t nrep = period_candidates(pos, off, nl, n, gtmp, cand);
    free(gtmp);
    struct period_try best = pick_period(cand, nrep, lname, gap, n, pos, off);
    FREE_ALL(off, pos, cand, lname);
    int nsteps = 0;
    if (!best.cuts) {
        snprintf(st->note, sizeof st->note,
                 "no periodic steps found: no kernel sequence on the busiest stream repeats with idle gaps between repeats");
    } else {
        /* windows: a step begins where the device went idle before its first stream kernel */
        ns_t *win = malloc((best.ncuts + 1) * sizeof *win);
        if (!win) {
            FREE_ALL(best.cuts, seq, gap);
            return -1;
        }
        assign_windows(c, seq, n, &best, win);
        nsteps = (int)best.ncuts;
        st->period_kernels = best.g;
        *win_out = win;
        snprintf(st->note, sizeof st->note,
                 "steps from the device: a sequence of about %u kernels on the busiest stream repeats %d times",
                 best.g, nsteps);
        free(best.cuts);
    }
    FREE_ALL(seq, gap);
    return nsteps;
}
