/* The advisor's frame: the rule table, running the rules, ranking findings and their rows
 * (see advisor.h). The rules themselves live in advisor_device.c and advisor_comm.c. */
#include "model/analysis/advisor.h"
#include "util/grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/advisor_rules.h"
#include "model/rowsets/jsonbuf.h"
#include "model/index/rank_digest.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const struct adv_rule advisor_rules[] = {
    { "host_bound", "Host-bound launches",
      "device idle waiting for launches >= " STR(ADV_HOST_BOUND_PCT) "% of the span" },
    { "aicore_freq_low", "AI Core clock below nominal",
      "AI Core Freq samples >= " STR(ADV_FREQ_LOW_PCT) "% below the most common value" },
    { "slow_rank", "Slow rank (straggler)",
      "the others' extra wait (or the longer steps) >= " STR(ADV_SLOW_RANK_PCT) "% of its step time" },
    { "slow_link", "Slow link",
      "bandwidth < " STR(ADV_SLOW_LINK_PCT) "% of the median of its transport type's links in the same group" },
    { "comm_wait", "Communication waits",
      "wait >= " STR(ADV_COMM_WAIT_PCT) "% of the communication ops' elapse time" },
    { "aicpu_ops", "AI CPU operators",
      "AI_CPU kernels >= " STR(ADV_AICPU_PCT) "% of device busy time" },
    { "tiny_kernels", "Tiny kernels dominated by launch overhead",
      "kernels < 10 us after an idle gap at least as long: gaps >= " STR(ADV_TINY_PCT)
      "% of the span, kernels >= " STR(ADV_TINY_SHARE_PCT) "% of all" },
    { "prefill_interference", "Prefill chunks stretch decode steps",
      "mixed steps > 1.5 x the decode p50 (>= 3 decode steps)" },
    { "graph_bubbles", "Bubbles between graph replays",
      "device idle between two graph launches' kernels >= " STR(ADV_GRAPH_PCT) "% of the span, >= 2 gaps" },
};
const size_t advisor_nrules = sizeof advisor_rules / sizeof advisor_rules[0];

static const adv_rule_fn rule_fns[] = {
    adv_rule_host_bound, adv_rule_aicore_freq_low, adv_rule_slow_rank, adv_rule_slow_link,
    adv_rule_comm_wait, adv_rule_aicpu_ops, adv_rule_tiny_kernels, adv_rule_prefill_interference,
    adv_rule_graph_bubbles,
};
_Static_assert(sizeof rule_fns / sizeof rule_fns[0] == sizeof advisor_rules / sizeof advisor_rules[0],
               "one function per rule");

const char *adv_severity_name(enum adv_severity s)
{
    return s == ADV_HIGH ? "high" : s == ADV_MEDIUM ? "medium" : "low";
}

const char *adv_ev_kind_name(enum adv_ev_kind k)
{
    static const char *const names[] = { "gap", "slice", "step", "rank", "kernel", "link", "counter", "op" };
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

ns_t adv_span(const struct model *m)
{
    if (!m || m->t_min == NS_NONE || m->t_max == NS_NONE || m->t_max < m->t_min)
        return 0;
    return m->t_max - m->t_min;
}

bool adv_at_least_pct(ns_t x, ns_t whole, int pct)
{
    if (whole <= 0)
        return false;
    return (__int128)x * 100 >= (__int128)whole * pct;
}

void adv_begin(struct adv_finding *f, const struct adv_rule *rule, size_t rank)
{
    memset(f, 0, sizeof *f);
    f->rule = rule;
    f->rank = rank;
}

struct adv_evidence adv_item(enum adv_ev_kind kind, size_t rank)
{
    return (struct adv_evidence){ .kind = kind, .rank = rank, .start = NS_NONE, .dur = NS_NONE,
                                  .slice = SLICE_NONE, .step = -1, .step_pos = SIZE_MAX };
}

void adv_keep(struct adv_finding *f, const struct adv_evidence *e)
{
    if (f->nev < ADV_EVIDENCE) {
        f->ev[f->nev++] = *e;
        return;
    }
    size_t low = 0;
    for (size_t i = 1; i < f->nev; i++)
        if (f->ev[i].cost < f->ev[low].cost)
            low = i;
    if (e->cost > f->ev[low].cost)
        f->ev[low] = *e;
}

/* Findings and their evidence are ranked by what they cost: the larger cost first. */
static int by_cost(ns_t x, ns_t y)
{
    return (x < y) - (x > y);
}

static int cmp_ev(const void *a, const void *b)
{
    const struct adv_evidence *x = a, *y = b;
    int c = by_cost(x->cost, y->cost);
    return c ? c : (x->start > y->start) - (x->start < y->start);
}

/* A rank's span: its timeline's, or the one its summary file gives (model/index/rank_digest.h). */
static ns_t rank_span(const struct rank_data *rd)
{
    if (rd->model || !rd->digest || !rd->digest->ov || !rd->digest->ov->has_span)
        return adv_span(rd->model);
    return rd->digest->ov->span;
}

static ns_t longest_span(const struct session *s)
{
    ns_t best = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        ns_t sp = rank_span(&s->ranks[i]);
        if (sp > best)
            best = sp;
    }
    return best;
}

void adv_emit(struct adv_ctx *c, struct adv_finding *f)
{
    struct advice *a = c->out;
    ns_t span = f->rank < c->s->nranks ? rank_span(&c->s->ranks[f->rank]) : longest_span(c->s);
    f->share = span > 0 ? (double)f->cost / (double)span : 0;
    f->severity = adv_at_least_pct(f->cost, span, ADV_HIGH_PCT) ? ADV_HIGH
                : adv_at_least_pct(f->cost, span, ADV_MEDIUM_PCT) ? ADV_MEDIUM : ADV_LOW;
    qsort(f->ev, f->nev, sizeof f->ev[0], cmp_ev);
    struct adv_finding *nf = grow_array(a->f, &a->cap, a->n + 1, sizeof *nf);
    if (!nf) {
        c->oom = true;
        return;
    }
    a->f = nf;
    a->f[a->n++] = *f;
}

static int cmp_finding(const void *a, const void *b)
{
    const struct adv_finding *x = a, *y = b;
    int c = by_cost(x->cost, y->cost);
    if (!c)
        c = (x->rank > y->rank) - (x->rank < y->rank);
    return c ? c : strcmp(x->rule->id, y->rule->id);
}

int advisor_run(const struct session *s, struct advice *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return 0;
    struct adv_ctx c = { .s = s, .out = out };
    for (size_t i = 0; i < advisor_nrules; i++)
        rule_fns[i](&c, &advisor_rules[i]);
    if (out->n > 1)
        qsort(out->f, out->n, sizeof *out->f, cmp_finding);
    return c.oom ? -1 : 0;
}

void advice_free(struct advice *a)
{
    if (!a)
        return;
    free(a->f);
    memset(a, 0, sizeof *a);
}

/* --- rows --------------------------------------------------------------------------------- */

static const char *what_key(enum adv_ev_kind k)
{
    switch (k) {
    case EV_GAP: case EV_SLICE: return "slice";
    case EV_KERNEL: return "kernel";
    case EV_LINK: return "link";
    case EV_COUNTER: return "counter";
    case EV_OP: return "op";
    case EV_STEP: case EV_RANK: default: return "detail";
    }
}

static void evidence_json(struct jbuf *b, const struct adv_finding *f, const struct session *s)
{
    jputs(b, "[");
    for (size_t i = 0; i < f->nev; i++) {
        const struct adv_evidence *e = &f->ev[i];
        char t[64];
        jputs(b, i ? ", {\"kind\": " : "{\"kind\": ");
        jstr(b, adv_ev_kind_name(e->kind));
        snprintf(t, sizeof t, ", \"rank\": %d", e->rank < s->nranks ? s->ranks[e->rank].rank : -1);
        jputs(b, t);
        jputs(b, ", \"start_us\": ");
        jus(b, e->start);
        jputs(b, ", \"dur_us\": ");
        jus(b, e->dur);
        jputs(b, ", \"cost_us\": ");
        jus(b, e->cost);
        if (e->step >= 0) {
            snprintf(t, sizeof t, ", \"step\": %" PRId64, e->step);
            jputs(b, t);
        }
        if (e->what[0]) {
            jputs(b, ", ");
            jstr(b, what_key(e->kind));
            jputs(b, ": ");
            jstr(b, e->what);
        }
        jputs(b, "}");
    }
    jputs(b, "]");
}

struct rowset *advice_rowset(const struct advice *a, const struct session *s)
{
    struct rowset *rs = rowset_new("advice");
    if (!rs)
        return NULL;
    bool multi = s->nranks > 1;
    size_t c_rank = multi ? rowset_col(rs, "rank", "Rank", RS_INT, 0) : SIZE_MAX;
    size_t c_rule = rowset_col(rs, "rule", "Rule", RS_STR, 0);
    size_t c_sev = rowset_col(rs, "severity", "Severity", RS_STR, 0);
    size_t c_cost = rowset_col(rs, "cost_us", "Cost µs", RS_NS, 0);
    size_t c_share = rowset_col(rs, "share", "Of span", RS_PCT, 1);
    size_t c_sum = rowset_col(rs, "summary", "Finding", RS_STR, 0);
    size_t c_ev = rowset_col(rs, "evidence", "Evidence", RS_RAW, 0);
    rowset_caption(rs, "%zu findings, costliest first; cost = the time the problem took (see man aptop, ADVISOR RULES)", a->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct adv_finding *f = &a->f[i];
        size_t r = rowset_linked_row(rs, i);
        if (r == SIZE_MAX)
            break;
        if (multi && f->rank < s->nranks)
            rowset_int(rs, r, c_rank, s->ranks[f->rank].rank);
        rowset_str(rs, r, c_rule, f->rule->id);
        rowset_str(rs, r, c_sev, adv_severity_name(f->severity));
        rowset_ns(rs, r, c_cost, f->cost);
        rowset_num(rs, r, c_share, f->share);
        rowset_str(rs, r, c_sum, f->summary);
        struct jbuf b = { 0 };
        evidence_json(&b, f, s);
        if (!b.oom && b.p)
            rowset_raw(rs, r, c_ev, b.p);
        free(b.p);
    }
    return rs;
}
