/* The step tables: steps, phases and the canonical decode step, as rowsets. */
#include "model/analysis/steps.h"
#include "model/analysis/steps_internal.h"
#include "model/analysis/comm.h"
#include "model/analysis/engine_annot.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "util/free_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- rowsets ------------------------------------------------------------------------------- */

struct rowset *steps_rowset(const struct steps *s)
{
    struct rowset *rs = rowset_new("steps");
    if (!rs)
        return NULL;
    size_t c_idx = rowset_col(rs, "index", "Step", RS_INT, 0);
    size_t c_ph = rowset_col(rs, "phase", "Phase", RS_STR, 0);
    size_t c_st = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t c_du = rowset_col(rs, "dur_us", "Dur µs", RS_NS, 0);
    size_t c_k = rowset_col(rs, "kernels", "Kernels", RS_INT, 0);
    size_t c_b = rowset_col(rs, "busy_share", "Busy", RS_PCT, 1);
    size_t c_cp = rowset_col(rs, "computing_us", "Computing µs", RS_NS, 0);
    size_t c_cm = rowset_col(rs, "comm_not_overlapped_us", "Comm not ovl µs", RS_NS, 0);
    size_t c_fr = rowset_col(rs, "free_us", "Free µs", RS_NS, 0);
    size_t c_gap = rowset_col(rs, "gap_before_us", "Gap before µs", RS_NS, 0);
    size_t c_la = rowset_col(rs, "launch_us", "Launch µs", RS_NS, 0);
    size_t c_out = rowset_col(rs, "outlier", "Outlier", RS_STR, 0);
    size_t c_src = rowset_col(rs, "source", "Source", RS_STR, 0);
    if (s && s->note[0])
        rowset_caption(rs, "%s", s->note);
    for (size_t i = 0; s && i < s->n; i++) {
        const struct step *st = &s->v[i];
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        ns_t d = st->end - st->start;
        rowset_int(rs, r, c_idx, st->index);
        rowset_str(rs, r, c_ph, step_phase_name(st->phase));
        rowset_ns(rs, r, c_st, st->start);
        rowset_ns(rs, r, c_du, d);
        rowset_int(rs, r, c_k, st->kernels);
        rowset_num(rs, r, c_b, d > 0 ? (double)st->busy / (double)d : 0.0);
        rowset_ns(rs, r, c_cp, st->computing);
        rowset_ns(rs, r, c_cm, st->comm_not_overlapped);
        rowset_ns(rs, r, c_fr, st->free_time);
        if (st->gap_before != NS_NONE)
            rowset_ns(rs, r, c_gap, st->gap_before);
        if (st->launch != NS_NONE)
            rowset_ns(rs, r, c_la, st->launch);
        rowset_str(rs, r, c_out, st->outlier ? "yes" : "");
        rowset_str(rs, r, c_src, step_source_name(s->source));
        rs->link[r] = i;
    }
    return rs;
}

struct rowset *steps_phase_rowset(const struct steps *s)
{
    int64_t outliers[PHASE_COUNT] = { 0 };   /* one pass over the steps, not one per phase */
    for (size_t i = 0; s && i < s->n; i++)
        if (s->v[i].outlier && (unsigned)s->v[i].phase < PHASE_COUNT)
            outliers[s->v[i].phase]++;
    struct rowset *rs = rowset_new("phases");
    if (!rs)
        return NULL;
    size_t c_ph = rowset_col(rs, "phase", "Phase", RS_STR, 0);
    size_t c_n = rowset_col(rs, "count", "Steps", RS_INT, 0);
    size_t c_50 = rowset_col(rs, "p50_us", "p50 µs", RS_NS, 0);
    size_t c_90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    size_t c_99 = rowset_col(rs, "p99_us", "p99 µs", RS_NS, 0);
    size_t c_mx = rowset_col(rs, "max_us", "Max µs", RS_NS, 0);
    size_t c_o = rowset_col(rs, "outliers", "Outliers", RS_INT, 0);
    for (int p = 0; s && p < PHASE_COUNT; p++) {
        const struct phase_stat *ps = &s->phase[p];
        if (!ps->count)
            continue;
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        rowset_str(rs, r, c_ph, step_phase_name((enum step_phase)p));
        rowset_int(rs, r, c_n, ps->count);
        rowset_ns(rs, r, c_50, ps->p50);
        rowset_ns(rs, r, c_90, ps->p90);
        rowset_ns(rs, r, c_99, ps->p99);
        rowset_ns(rs, r, c_mx, ps->max);
        rowset_int(rs, r, c_o, outliers[p]);
        rs->link[r] = (uint64_t)p;
    }
    return rs;
}

static int cmp_u32v(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The usual kernel count of decode steps (*mode) and how many decode steps have it (the
 * return value); 0 when there is no decode step or memory ran out. */
static uint32_t decode_kernel_mode(const struct steps *s, uint32_t *mode)
{
    uint32_t *kc = malloc(s->n * sizeof *kc);
    if (!kc)
        return 0;
    size_t nd = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].phase == PHASE_DECODE)
            kc[nd++] = s->v[i].kernels;
    if (!nd) {
        free(kc);
        return 0;
    }
    qsort(kc, nd, sizeof *kc, cmp_u32v);
    uint32_t best = 0;
    *mode = kc[0];
    for (size_t i = 0; i < nd;) {
        size_t j = i;
        while (j < nd && kc[j] == kc[i])
            j++;
        if (j - i > best) {
            best = (uint32_t)(j - i);
            *mode = kc[i];
        }
        i = j;
    }
    free(kc);
    return best;
}

struct rowset *steps_canonical_rowset(const struct steps *s, size_t slow)
{
    if (!s || !s->n)
        return NULL;
    const struct model *m = s->m;
    uint32_t mode = 0, best = decode_kernel_mode(s, &mode);
    if (!best)
        return NULL;
    size_t npos = mode, nsamp = best;
    ns_t *d = malloc((nsamp * npos + 1) * sizeof *d), *col = malloc((nsamp + 1) * sizeof *col);
    uint32_t *ref = NULL;
    struct rowset *rs = NULL;
    if (!d || !col)
        goto out;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct step *st = &s->v[i];
        if (st->phase != PHASE_DECODE || st->kernels != mode)
            continue;
        if (!ref)
            ref = &s->kernel[st->first];
        for (size_t p = 0; p < npos; p++)
            d[p * nsamp + k] = m->dur[s->kernel[st->first + p]];
        k++;
    }
    rs = rowset_new("canonical_decode");
    if (!rs)
        goto out;
    size_t c_pos = rowset_col(rs, "position", "#", RS_INT, 0);
    size_t c_nm = rowset_col(rs, "name", "Kernel", RS_STR, 0);
    size_t c_md = rowset_col(rs, "median_us", "Median µs", RS_NS, 0);
    size_t c_90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    size_t c_sd = SIZE_MAX, c_gr = SIZE_MAX;
    /* a step is compared only with steps of its own phase: the canonical step is decode */
    const struct step *sel = slow < s->n && s->v[slow].phase == PHASE_DECODE ? &s->v[slow] : NULL;
    if (sel) {
        c_sd = rowset_col(rs, "step_us", "Step µs", RS_NS, 0);
        c_gr = rowset_col(rs, "grew_us", "Grew µs", RS_NS, 0);
    }
    if (slow < s->n && !sel)
        rowset_caption(rs, "canonical decode step: %zu kernels, from %zu decode steps; step %lld is %s, "
                       "compared only with steps of its own phase", npos, nsamp, (long long)s->v[slow].index,
                       step_phase_name(s->v[slow].phase));
    else
        rowset_caption(rs, "canonical decode step: %zu kernels, from %zu decode steps", npos, nsamp);
    size_t sj = 0;      /* position in the selected step, aligned by name */
    for (size_t p = 0; p < npos; p++) {
        memcpy(col, &d[p * nsamp], nsamp * sizeof *col);
        qsort(col, nsamp, sizeof *col, steps_cmp_ns);
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        ns_t med = steps_pct_sorted(col, nsamp, 0.5);
        rowset_int(rs, r, c_pos, (int64_t)p);
        rowset_str(rs, r, c_nm, model_str(m, m->name[ref[p]]));
        rowset_ns(rs, r, c_md, med);
        rowset_ns(rs, r, c_90, steps_pct_sorted(col, nsamp, 0.9));
        rs->link[r] = ref[p];
        if (sel) {
            /* resynchronise over a few missing or extra kernels */
            size_t hit = SIZE_MAX;
            for (size_t look = 0; look < 4 && sj + look < sel->kernels; look++)
                if (m->name[s->kernel[sel->first + sj + look]] == m->name[ref[p]]) {
                    hit = sj + look;
                    break;
                }
            if (hit != SIZE_MAX) {
                uint32_t ks = s->kernel[sel->first + hit];
                rowset_ns(rs, r, c_sd, m->dur[ks]);
                rowset_ns(rs, r, c_gr, m->dur[ks] - med);
                rs->link[r] = ks;
                sj = hit + 1;
            }
        }
    }
out:
    FREE_ALL(d, col);
    return rs;
}
