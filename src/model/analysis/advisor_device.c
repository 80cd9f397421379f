/* Advisor rules about one device: host-bound launches, tiny kernels, graph bubbles, the AI
 * Core clock and AI CPU operators (thresholds and costs: advisor.h). Gaps come from
 * flowstats_gaps, the walk behind the idle and host-bound figures, so a rule's idle time is
 * the same idle time every view shows. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/advisor_rules.h"
#include "util/grow.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"

static void slice_name(const struct model *m, uint32_t s, char *out, size_t size)
{
    snprintf(out, size, "%s", s < m->nslices ? model_str(m, m->name[s]) : "");
}

/* A small tally of names (launchers before gaps): the most frequent one is reported. */
#define TALLY_MAX 64
struct tally { uint32_t name[TALLY_MAX]; size_t count[TALLY_MAX], n; };

static void tally_add(struct tally *t, uint32_t name)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->name[i] == name) {
            t->count[i]++;
            return;
        }
    if (t->n < TALLY_MAX) {
        t->name[t->n] = name;
        t->count[t->n++] = 1;
    }
}

static size_t tally_top(const struct tally *t)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < t->n; i++)
        if (best == SIZE_MAX || t->count[i] > t->count[best])
            best = i;
    return best;
}

/* --- gap rules ------------------------------------------------------------------------------ */

enum gap_rule { GR_HOST, GR_TINY, GR_GRAPH };

struct gap_walk {
    enum gap_rule which;
    const struct model *m;
    const struct flowstats *fs;
    struct adv_finding *f;
    size_t rank;
    ns_t total;
    size_t gaps;
    struct tally launchers;
};

static bool tiny_after(const struct model *m, const struct flow_gap *g)
{
    ns_t d = m->dur[g->after];
    return d >= 0 && d < ADV_TINY_NS && g->t1 - g->t0 >= d;
}

static bool graph_pair(const struct gap_walk *w, const struct flow_gap *g)
{
    const struct flow_launch *a = flowstats_launch(w->fs, g->before), *b = flowstats_launch(w->fs, g->after);
    return a && b && a->how == LAUNCH_GRAPH && b->how == LAUNCH_GRAPH && a->launcher != b->launcher;
}

static void on_gap(const struct flow_gap *g, void *ctx)
{
    struct gap_walk *w = ctx;
    const struct model *m = w->m;
    bool hit = w->which == GR_HOST ? g->host_bound
             : w->which == GR_TINY ? !g->host_bound && tiny_after(m, g)
             : graph_pair(w, g);
    if (!hit)
        return;
    ns_t d = g->t1 - g->t0;
    w->total += d;
    w->gaps++;
    struct adv_evidence e = adv_item(EV_GAP, w->rank);
    e.start = g->t0;
    e.dur = d;
    e.cost = d;
    e.slice = g->after;
    char k[96];
    slice_name(m, g->after, k, sizeof k);
    const struct flow_launch *fl = flowstats_launch(w->fs, g->after);
    if (w->which == GR_HOST && fl && fl->launcher != SLICE_NONE) {
        tally_add(&w->launchers, m->name[fl->launcher]);
        snprintf(e.what, sizeof e.what, "%.90s, launched by %.90s", k, model_str(m, m->name[fl->launcher]));
    } else if (w->which == GR_GRAPH && fl && fl->launcher != SLICE_NONE) {
        snprintf(e.what, sizeof e.what, "%.90s, first kernel of %.90s", k, model_str(m, m->name[fl->launcher]));
    } else {
        snprintf(e.what, sizeof e.what, "%.180s", k);
    }
    adv_keep(w->f, &e);
}

static size_t device_kernels(const struct model *m, size_t *tiny)
{
    size_t n = 0;
    *tiny = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        n += ln->count;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
            *tiny += m->dur[s] >= 0 && m->dur[s] < ADV_TINY_NS;
    }
    return n;
}

static void gap_rule(struct adv_ctx *c, const struct adv_rule *rule, enum gap_rule which)
{
    for (size_t i = 0; i < c->s->nranks; i++) {
        const struct rank_data *rd = &c->s->ranks[i];
        const struct model *m = rd->model;
        if (!m || !m->finalized || !rd->flowstats)
            continue;
        ns_t span = adv_span(m);
        struct adv_finding f;
        adv_begin(&f, rule, i);
        struct gap_walk w = { .which = which, .m = m, .fs = rd->flowstats, .f = &f, .rank = i };
        if (flowstats_gaps(m, rd->flowstats, on_gap, &w) < 0) {
            c->oom = true;
            continue;
        }
        f.cost = w.total;
        size_t tiny = 0, nk = device_kernels(m, &tiny);
        if (which == GR_HOST) {
            if (!w.gaps || !adv_at_least_pct(w.total, span, ADV_HOST_BOUND_PCT))
                continue;
            size_t top = tally_top(&w.launchers);
            char by[160] = "";
            if (top != SIZE_MAX)
                snprintf(by, sizeof by, "; most follow %.100s (%zu)", model_str(m, w.launchers.name[top]),
                         w.launchers.count[top]);
            snprintf(f.summary, sizeof f.summary, "device idle %.1f%% of the span in %zu gaps whose next kernel "
                     "was launched after it went idle%s", 100.0 * (double)w.total / (double)span, w.gaps, by);
        } else if (which == GR_TINY) {
            if (!w.gaps || !adv_at_least_pct(w.total, span, ADV_TINY_PCT)
                || !adv_at_least_pct((ns_t)tiny, (ns_t)nk, ADV_TINY_SHARE_PCT))
                continue;
            snprintf(f.summary, sizeof f.summary, "%zu of %zu kernels run < %" PRId64 " us; %zu of them wait "
                     "at least their own length after an idle gap (%.1f%% of the span)",
                     tiny, nk, (int64_t)(ADV_TINY_NS / 1000), w.gaps, 100.0 * (double)w.total / (double)span);
        } else {
            if (w.gaps < 2 || !adv_at_least_pct(w.total, span, ADV_GRAPH_PCT))
                continue;
            snprintf(f.summary, sizeof f.summary, "device idle %.1f%% of the span in %zu gaps between the "
                     "kernels of successive graph launches", 100.0 * (double)w.total / (double)span, w.gaps);
        }
        adv_emit(c, &f);
    }
}

void adv_rule_host_bound(struct adv_ctx *c, const struct adv_rule *rule) { gap_rule(c, rule, GR_HOST); }
void adv_rule_tiny_kernels(struct adv_ctx *c, const struct adv_rule *rule) { gap_rule(c, rule, GR_TINY); }
void adv_rule_graph_bubbles(struct adv_ctx *c, const struct adv_rule *rule) { gap_rule(c, rule, GR_GRAPH); }

/* --- AI Core clock ---------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The most common value (MHz, rounded to integers); ties: the higher one. */
static int64_t mode_of(const struct counter_track *ct, int64_t *tmp)
{
    for (size_t i = 0; i < ct->n; i++)
        tmp[i] = isfinite(ct->value[i]) ? llround(ct->value[i]) : INT64_MIN;
    qsort(tmp, ct->n, sizeof *tmp, cmp_i64);
    int64_t best = INT64_MIN;
    size_t best_n = 0;
    for (size_t i = 0; i < ct->n; ) {
        size_t j = i;
        while (j < ct->n && tmp[j] == tmp[i])
            j++;
        if (tmp[i] != INT64_MIN && j - i >= best_n) {
            best = tmp[i];
            best_n = j - i;
        }
        i = j;
    }
    return best;
}

void adv_rule_aicore_freq_low(struct adv_ctx *c, const struct adv_rule *rule)
{
    for (size_t i = 0; i < c->s->nranks; i++) {
        const struct model *m = c->s->ranks[i].model;
        if (!m || !m->finalized)
            continue;
        for (uint32_t k = 0; k < m->ncounters; k++) {
            const struct counter_track *ct = &m->counters[k];
            if (strcmp(model_str(m, ct->name), "AI Core Freq") || ct->n < 2)
                continue;
            int64_t *tmp = malloc(ct->n * sizeof *tmp);
            if (!tmp) {
                c->oom = true;
                return;
            }
            int64_t nominal = mode_of(ct, tmp);
            free(tmp);
            if (nominal <= 0)
                continue;
            struct adv_finding f;
            adv_begin(&f, rule, i);
            int64_t lowest = nominal;
            ns_t below = 0;
            for (size_t j = 0; j + 1 < ct->n; j++) {
                if (!isfinite(ct->value[j]))
                    continue;
                int64_t v = llround(ct->value[j]);
                /* at least ADV_FREQ_LOW_PCT below: v <= nominal * (100 - pct) / 100 */
                if ((__int128)v * 100 > (__int128)nominal * (100 - ADV_FREQ_LOW_PCT))
                    continue;
                ns_t d = ct->ts[j + 1] - ct->ts[j];
                if (d <= 0)
                    continue;
                int64_t lost_mhz = nominal - (v > 0 ? v : 0);
                ns_t cost = (ns_t)((__int128)d * lost_mhz / nominal);
                f.cost += cost;
                below += d;
                if (v < lowest)
                    lowest = v;
                struct adv_evidence e = adv_item(EV_COUNTER, i);
                e.start = ct->ts[j];
                e.dur = d;
                e.cost = cost;
                snprintf(e.what, sizeof e.what, "AI Core Freq %" PRId64 " MHz (nominal %" PRId64 " MHz)", v, nominal);
                adv_keep(&f, &e);
            }
            if (!below)
                continue;
            snprintf(f.summary, sizeof f.summary, "AI Core clock down to %" PRId64 " MHz against a nominal %" PRId64
                     " MHz (the most common sample) for %.3f ms", lowest, nominal, (double)below / 1e6);
            adv_emit(c, &f);
        }
    }
}

/* --- AI CPU operators ------------------------------------------------------------------------ */

static bool is_aicpu(const char *core)
{
    return core && (strstr(core, "AI_CPU") || strstr(core, "AICPU") || strstr(core, "ai_cpu"));
}

void adv_rule_aicpu_ops(struct adv_ctx *c, const struct adv_rule *rule)
{
    for (size_t i = 0; i < c->s->nranks; i++) {
        const struct rank_data *rd = &c->s->ranks[i];
        const struct table *t = rd->tables[TK_KERNELS];
        if (!t)
            continue;
        size_t cc = table_col(t, "accelerator_core"), nc = table_col(t, "name");
        size_t dc = table_col(t, "duration(us)"), sc = table_col(t, "start_time(us)");
        if (cc == SIZE_MAX || nc == SIZE_MAX || dc == SIZE_MAX || t->cols[cc].type != TC_TEXT
            || t->cols[nc].type != TC_TEXT || t->cols[dc].type != TC_TIME)
            continue;
        bool starts = sc != SIZE_MAX && t->cols[sc].type == TC_TIME;
        ns_t busy = 0;
        if (!kernels_busy(t, rd->model, &busy, NULL) || busy <= 0)
            continue;
        /* per AI CPU kernel name: summed duration and the longest call */
        uint32_t nids = strtab_count(t->str);
        size_t *idx = malloc((nids ? nids : 1) * sizeof *idx);
        struct agg { uint32_t name; ns_t total, longest; size_t row, count; } *ag = NULL;
        size_t nag = 0, cap = 0;
        if (!idx) {
            c->oom = true;
            return;
        }
        memset(idx, 0xff, (nids ? nids : 1) * sizeof *idx);
        ns_t total = 0;
        size_t calls = 0;
        for (size_t r = 0; r < t->nrows; r++) {
            ns_t d = t->cols[dc].time[r];
            if (d == NS_NONE || d < 0 || !is_aicpu(strtab_get(t->str, t->cols[cc].text[r])))
                continue;
            uint32_t nm = t->cols[nc].text[r];
            if (idx[nm] == SIZE_MAX) {
                ag = grow_array_or_exit(ag, &cap, nag + 1, sizeof *ag, "graph launch aggregates");
                ag[nag] = (struct agg){ .name = nm, .longest = -1 };
                idx[nm] = nag++;
            }
            struct agg *a = &ag[idx[nm]];
            a->total += d;
            a->count++;
            if (d > a->longest) {
                a->longest = d;
                a->row = r;
            }
            total += d;
            calls++;
        }
        free(idx);
        if (calls && adv_at_least_pct(total, busy, ADV_AICPU_PCT)) {
            struct adv_finding f;
            adv_begin(&f, rule, i);
            f.cost = total;
            for (size_t k = 0; k < nag; k++) {
                struct adv_evidence e = adv_item(EV_KERNEL, i);
                e.cost = ag[k].total;
                e.dur = ag[k].longest;
                e.start = starts ? t->cols[sc].time[ag[k].row] : NS_NONE;
                if (t->slice && t->slice[ag[k].row] != SLICE_NONE)
                    e.slice = t->slice[ag[k].row];
                snprintf(e.what, sizeof e.what, "%.180s", strtab_get(t->str, ag[k].name));
                adv_keep(&f, &e);
            }
            snprintf(f.summary, sizeof f.summary, "%zu AI CPU kernel calls (%zu names) take %.1f%% of device "
                     "busy time", calls, nag, 100.0 * (double)total / (double)busy);
            adv_emit(c, &f);
        }
        free(ag);
    }
}
