/* `aptop report --diff BASE NEW`: the diff sections of model/analysis/diff.h printed like any report
 * (text, CSV or JSON, --section, --top), and the --fail-if regression guards. */
#ifndef APTOP_REPORT_DIFF_H
#define APTOP_REPORT_DIFF_H
#include <stdio.h>

#include "model/index/session.h"
#include "model/analysis/steps.h"
#include "report/report.h"

/* A --fail-if condition: "decode_p50>5%" (any phase: prefill_p50, mixed_p50, other_p50) or
 * "kernel:NAME>10%": the decode step p50 (per matched rank) or the kernel's total grew by
 * more than pct percent from base to new. */
struct diff_fail {
    enum { FAIL_P50, FAIL_KERNEL } kind;
    enum step_phase phase;
    char name[512];
    double pct;
};
/* Parses one condition; 0, or -1 with a reason in why. */
int diff_fail_parse(const char *text, struct diff_fail *out, char *why, size_t size);

/* Prints the chosen sections (o->sections; default every diff section and decode_diff).
 * Returns 0, or 2 when a section name is unknown. */
int report_diff_print(const struct session *base, const struct session *new,
                      const struct report_opts *o, FILE *out);
/* Checks the conditions; prints one line per condition that fails (grew too much, or
 * cannot be checked because a side lacks the figure) to err. Returns how many failed. */
int diff_fail_check(const struct session *base, const struct session *new,
                    const struct diff_fail *conds, size_t n, FILE *err);
/* The section names with a line of help each (for --help). */
void report_diff_list_sections(FILE *out);

#endif
