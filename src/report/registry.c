/* The report's section table: which sections exist, in what order --help lists them, the
 * default set, and report_print, which builds and writes the chosen ones. */
#include "report/report.h"

#include "model/rowsets/escape.h"
#include "model/rowsets/rowset_write.h"
#include "util/oom.h"

#include <stdlib.h>
#include <string.h>

static const struct section {
    const char *name;
    report_section_fn fn;
    const char *help;
} sections[] = {
    { "summary", report_summary, "files, events by phase, slices, flows, lanes, span, load time" },
    { "kernels", report_kernels, "device kernels by name: count, total, mean, min, max, share" },
    { "ops", report_ops, "host operators (operator_details.csv)" },
    { "apis", report_apis, "CANN APIs (api_statistic.csv)" },
    { "step_trace", report_step_trace, "rows of step_trace_time.csv" },
    { "flows", report_flows, "flow categories, launch latency, host-bound idle" },
    { "steps", report_steps, "detected steps with phase and breakdown" },
    { "phases", report_phases, "per phase step-time summary" },
    { "ranks", report_ranks, "per rank step time, compute, communication, wait" },
    { "comm", report_comm, "communication ops per rank and step" },
    { "comm_ranks", report_comm_ranks, "every op of every rank with its instance across ranks, the last arriver, the wait it caused" },
    { "comm_matrix", report_comm_matrix, "links per source, destination and transport: size, time, bandwidth, slow" },
    { "diagnostics", report_diagnostics, "every problem found while loading, whole: level, path, message (by file)" },
    { "overview", report_overview, "per rank: span, device busy, split, host-bound idle, top kernels, step times" },
    { "advice", report_advice, "advisor findings by cost, with rule, severity and evidence" },
    { "capture", report_capture, "per rank: rank, device, label, status, how steps were found (for summaries)" },
    { "rank_steps", report_rank_steps, "per rank and step: the step times the ranks section averages" },
    { "comm_ends", report_comm_ends, "per rank: communication slice ends that align the ranks' clocks" },
    { "memory", report_memory, "memory peaks per rank and component (memory_record, npu_module_mem, npu_mem)" },
    { "memory_ops", report_memory_ops, "operator memory allocations: size, alloc/release, lifetime" },
    { "memory_static", report_memory_static, "static graph memory (static_op_mem.csv)" },
    { "memory_ranks", report_memory_ranks, "every rank's memory peak side by side, the highest named" },
};
#define NSECTIONS (sizeof sections / sizeof sections[0])
static const char *default_sections = "summary,kernels,flows,steps,phases,ranks,comm";

static const struct section *find_section(const char *name, size_t len)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strlen(sections[i].name) == len && strncmp(sections[i].name, name, len) == 0)
            return &sections[i];
    return NULL;
}

int report_print(const struct session *s, const struct report_opts *o, FILE *out)
{
    const char *list = o->sections ? o->sections : default_sections;
    bool explicit = o->sections != NULL;
    /* validate every name before printing anything */
    for (const char *p = list; *p; ) {
        size_t len = strcspn(p, ",");
        if (len && !find_section(p, len)) {
            char e[512];
            text_escape(p, len < 100 ? len : 100, e, sizeof e);
            fprintf(stderr, "aptop: unknown report section '%s'; sections:", e);
            for (size_t i = 0; i < NSECTIONS; i++)
                fprintf(stderr, " %s", sections[i].name);
            fputc('\n', stderr);
            return 2;
        }
        p += len + (p[len] == ',');
    }
    bool first = true, short_of_memory = false;
    if (o->format == FMT_JSON)
        fputc('{', out);
    for (const char *p = list; *p; ) {
        size_t len = strcspn(p, ",");
        const struct section *sec = len ? find_section(p, len) : NULL;
        p += len + (p[len] == ',');
        if (!sec)
            continue;
        struct rowset *rs = sec->fn(s, o);
        if (!rs) {
            bool summaries = false;   /* ranks read from summary files keep their traces on their hosts */
            for (size_t i = 0; i < s->nranks && !summaries; i++)
                summaries = s->ranks[i].digest && !s->ranks[i].model;
            if (explicit && o->format == FMT_TEXT)
                fprintf(out, "%s== %s: not available for this capture%s\n", first ? "" : "\n", sec->name,
                        summaries ? " (its ranks were read from summaries, without their traces)" : "");
            continue;
        }
        if (o->top > 0 && !rs->object)
            rowset_truncate(rs, (size_t)o->top);
        if (o->format == FMT_JSON) {
            fputs(first ? "\n" : ",\n", out);
            rowset_write_json_string(sec->name, out);
            fputs(": ", out);
        } else if (o->format == FMT_TEXT) {
            fprintf(out, "%s== %s\n", first ? "" : "\n", sec->name);
        } else {
            fprintf(out, "%s# %s\n", first ? "" : "\n", sec->name);
        }
        rowset_write(rs, o->format, out);
        if (rs->lost_rows) {
            fprintf(stderr, "aptop: error: %s: %zu row%s not shown: memory ran out\n", sec->name, rs->lost_rows,
                    rs->lost_rows == 1 ? "" : "s");
            short_of_memory = true;
        }
        rowset_free(rs);
        first = false;
    }
    if (o->format == FMT_JSON)
        fputs("\n}\n", out);
    return short_of_memory ? OOM_EXIT_STATUS : 0;
}

void report_list_sections(FILE *out)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        fprintf(out, "  %-11s %s\n", sections[i].name, sections[i].help);
}
