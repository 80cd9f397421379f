/* What the advisor's rule files share (advisor.c runs them; see advisor.h for the rules). */
#ifndef APTOP_ADVISOR_RULES_H
#define APTOP_ADVISOR_RULES_H
#include <stdbool.h>

#include "model/analysis/advisor.h"

struct adv_ctx {
    const struct session *s;
    struct advice *out;
    bool oom;
};

typedef void (*adv_rule_fn)(struct adv_ctx *c, const struct adv_rule *rule);

/* The model's t_max - t_min, 0 without timed events. */
ns_t adv_span(const struct model *m);
/* A finding of rule on rank (SIZE_MAX: the whole capture), empty. */
void adv_begin(struct adv_finding *f, const struct adv_rule *rule, size_t rank);
/* An evidence item of this kind on rank, with nothing named yet. */
struct adv_evidence adv_item(enum adv_ev_kind kind, size_t rank);
/* Keeps e among the ADV_EVIDENCE costliest items of f (ties: the earlier one stays). */
void adv_keep(struct adv_finding *f, const struct adv_evidence *e);
/* Settles share and severity, sorts the evidence by cost and appends the finding. */
void adv_emit(struct adv_ctx *c, struct adv_finding *f);
/* x >= pct % of whole (integers, no rounding). */
bool adv_at_least_pct(ns_t x, ns_t whole, int pct);

/* The rules, by theme. */
void adv_rule_host_bound(struct adv_ctx *c, const struct adv_rule *rule);      /* advisor_device.c */
void adv_rule_tiny_kernels(struct adv_ctx *c, const struct adv_rule *rule);    /* advisor_device.c */
void adv_rule_graph_bubbles(struct adv_ctx *c, const struct adv_rule *rule);   /* advisor_device.c */
void adv_rule_aicore_freq_low(struct adv_ctx *c, const struct adv_rule *rule); /* advisor_device.c */
void adv_rule_aicpu_ops(struct adv_ctx *c, const struct adv_rule *rule);       /* advisor_device.c */
void adv_rule_prefill_interference(struct adv_ctx *c, const struct adv_rule *rule); /* advisor_comm.c */
void adv_rule_slow_rank(struct adv_ctx *c, const struct adv_rule *rule);       /* advisor_comm.c */
void adv_rule_slow_link(struct adv_ctx *c, const struct adv_rule *rule);       /* advisor_comm.c */
void adv_rule_comm_wait(struct adv_ctx *c, const struct adv_rule *rule);       /* advisor_comm.c */

#endif
