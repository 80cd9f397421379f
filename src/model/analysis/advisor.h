/* The advisor: rules that read a loaded session and say what to fix, each finding with the
 * time it costs and the evidence (gaps, slices, steps, ranks, kernels, links) it rests on.
 *
 * Data flow: advisor_run(session) runs every rule of advisor_rules[] over the installed
 * parts (models, kernel tables, steps, flow figures, communication files) and returns the
 * findings sorted by cost, highest first. Nothing is changed; parts a rule needs but that
 * are absent make that rule silent for that rank. The report's "advice" section and the
 * Overview view print the same findings.
 *
 * Rules (ids are stable; thresholds are the ADV_* constants below; man/aptop.1 has the table):
 *   host_bound      device idle gaps whose next kernel was launched only after the device
 *                   went idle (the flowstats.h rule), summed: >= ADV_HOST_BOUND_PCT of the
 *                   rank's span. Cost: that idle time. Evidence: the longest such gaps, each
 *                   naming the kernel after it and its launcher (the host op before it).
 *   aicore_freq_low "AI Core Freq" counter samples at least ADV_FREQ_LOW_PCT below nominal
 *                   (nominal: the most common sampled value; a sample holds until the next).
 *                   Cost: time below x (nominal - value) / nominal, the work the lower clock
 *                   lost. Evidence: the costliest low intervals.
 *   slow_rank       the rank the others wait for (rank analysis, comm.h: waited_for), else
 *                   the one with the longest mean step. Cost: in the first case the mean over
 *                   the other ranks of their wait beyond that rank's own wait; else (mean
 *                   step - median mean step of the others) x its steps. Fires at >=
 *                   ADV_SLOW_RANK_PCT of its step time.
 *   slow_link       a link of communication_matrix.json whose bandwidth is below
 *                   ADV_SLOW_LINK_PCT of the median of the links of the same transport type in
 *                   the same step and group (over every rank, >= 3 links; the "-total@" groups
 *                   when a step has them). Cost: its transit time minus size / that median.
 *   comm_wait       a rank's communication ops (communication.json) spend >= ADV_COMM_WAIT_PCT
 *                   of their elapse time waiting. Cost: the summed wait. Evidence: the ops that
 *                   waited longest.
 *   aicpu_ops       kernels whose accelerator core is AI_CPU take >= ADV_AICPU_PCT of device
 *                   busy time. Cost: their summed duration. Evidence: the longest call of each.
 *   tiny_kernels    kernels shorter than ADV_TINY_NS preceded by a device idle gap at least as
 *                   long as themselves (launch overhead dominates), when those gaps sum to >=
 *                   ADV_TINY_PCT of the span and such kernels are >= ADV_TINY_SHARE_PCT of the
 *                   device kernels. Host-bound gaps are host_bound's. Cost: those gaps.
 *   prefill_interference  mixed steps (chunked prefill: prefill chunks batched with decodes)
 *                   lasting more than ADV_PREFILL_X10/10 x the decode p50 (>= 3 decode steps).
 *                   Cost: their time beyond the decode p50. Evidence: those steps.
 *   graph_bubbles   device idle between the kernels of two different graph launches (replays;
 *                   flowstats.h's graph rule), summed >= ADV_GRAPH_PCT of the span, >= 2 gaps.
 *                   Cost: those gaps. Evidence: the longest.
 * Severity: cost >= ADV_HIGH_PCT of the rank's span is "high", >= ADV_MEDIUM_PCT "medium",
 * else "low" (a whole-capture finding compares with the longest span).
 * Span: the model's t_max - t_min (the summary's span). */
#ifndef APTOP_ADVISOR_H
#define APTOP_ADVISOR_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"

#define ADV_HOST_BOUND_PCT 5
#define ADV_FREQ_LOW_PCT 20
#define ADV_SLOW_RANK_PCT 2
#define ADV_SLOW_LINK_PCT 50
#define ADV_COMM_WAIT_PCT 20
#define ADV_AICPU_PCT 1
#define ADV_TINY_NS ((ns_t)10000)
#define ADV_TINY_PCT 5
#define ADV_TINY_SHARE_PCT 20
#define ADV_PREFILL_X10 15
#define ADV_GRAPH_PCT 5
#define ADV_HIGH_PCT 10
#define ADV_MEDIUM_PCT 3
#define ADV_EVIDENCE 5              /* evidence items kept per finding, worst first */

enum adv_severity { ADV_LOW, ADV_MEDIUM, ADV_HIGH };
const char *adv_severity_name(enum adv_severity s);   /* "low", "medium", "high" */

enum adv_ev_kind { EV_GAP, EV_SLICE, EV_STEP, EV_RANK, EV_KERNEL, EV_LINK, EV_COUNTER, EV_OP };
const char *adv_ev_kind_name(enum adv_ev_kind k);     /* "gap", "slice", "step", ... */

struct adv_evidence {
    enum adv_ev_kind kind;
    size_t rank;              /* index into session->ranks */
    ns_t start, dur;          /* absolute, the rank's time base; NS_NONE when unknown */
    ns_t cost;                /* this item's part of the cost (orders the items) */
    uint32_t slice;           /* the slice it names (the kernel after a gap), SLICE_NONE */
    int64_t step;             /* step number, -1 when none */
    size_t step_pos;          /* index into the rank's steps, SIZE_MAX when none */
    char what[200];           /* kernel / op / link name, or what the item shows */
};

struct adv_rule {
    const char *id;           /* stable: "host_bound" */
    const char *title;        /* "Host-bound launches" */
    const char *threshold;    /* the rule's threshold in words, for the man page and `?` */
};

struct adv_finding {
    const struct adv_rule *rule;
    size_t rank;              /* index into session->ranks, SIZE_MAX: the whole capture */
    enum adv_severity severity;
    ns_t cost;
    double share;             /* cost / span of the rank (or the longest span) */
    char summary[256];        /* one line: what was measured */
    struct adv_evidence ev[ADV_EVIDENCE];
    size_t nev;
};

struct advice {
    struct adv_finding *f;
    size_t n, cap;
};

extern const struct adv_rule advisor_rules[];
extern const size_t advisor_nrules;

/* Runs every rule; out is zeroed first. 0, or -1 when memory ran out (findings so far kept).
 * Cost: O(device slices log n + counter samples + comm entries) per rank. */
int advisor_run(const struct session *s, struct advice *out);
void advice_free(struct advice *a);

/* The findings as rows: rank (several ranks), rule, severity, cost_us, share, summary,
 * evidence (a JSON array of items: kind, rank, start_us, dur_us, cost_us, and slice /
 * kernel / step / link / op / counter naming it). link of row i: finding index i. */
struct rowset *advice_rowset(const struct advice *a, const struct session *s);

#endif
