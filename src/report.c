#include "report.h"

#include "model/comm.h"
#include "model/escape.h"
#include "model/flowstats.h"
#include "model/rank_digest.h"
#include "model/steps.h"

#include <inttypes.h>
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
    { "diagnostics", report_diagnostics, "every problem found while loading, whole: level, path, message" },
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

static bool rank_selected(const struct report_opts *o, const struct rank_data *rd)
{
    return o->rank < 0 || rd->rank == o->rank;
}

struct rowset *report_summary(const struct session *s, const struct report_opts *o)
{
    struct rowset *rs = rowset_new("summary");
    if (!rs)
        return NULL;
    rs->object = true;
    uint64_t events = 0, by_ph[128] = { 0 }, unknown = 0, files = 0, slices = 0, lanes = 0;
    uint64_t matched = 0, unmatched = 0, unbound = 0, counters = 0;
    ns_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t ranks = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(o, rd))
            continue;
        ranks++;
        const struct model *m = rd->model;
        if (!m && rd->digest) {
            /* the file's own figures, counted once per file (on its first rank) */
            const struct digest_summary *g = rd->digest->summary;
            if (!g)
                continue;
            files += (uint64_t)g->files;
            events += (uint64_t)g->events;
            for (int p = 0; p < 128; p++)
                by_ph[p] += (uint64_t)g->by_ph[p];
            unknown += (uint64_t)g->unknown_ph;
            slices += (uint64_t)g->slices;
            lanes += (uint64_t)g->lanes;
            matched += (uint64_t)g->flows_matched;
            unmatched += (uint64_t)g->flows_unmatched;
            unbound += (uint64_t)g->flows_unbound;
            counters += (uint64_t)g->counter_tracks;
            if (g->has_span) {
                if (g->start < t0) t0 = g->start;
                if (g->end > t1) t1 = g->end;
            }
            continue;
        }
        files += rd->files_read;
        if (!m)
            continue;
        events += m->events;
        for (int p = 0; p < 128; p++)
            by_ph[p] += m->events_by_ph[p];
        unknown += m->unknown_ph;
        slices += m->nslices;
        lanes += m->nlanes;
        matched += m->flows_matched;
        /* the flows section's definitions: unmatched = no partner, unbound apart */
        struct flowstats *own = NULL;
        const struct flowstats *fs = rd->flowstats;
        if (!fs)
            fs = own = flowstats_compute(m, rd->steps);
        for (size_t k = 0; fs && k < fs->ncats; k++) {
            unmatched += fs->cats[k].missing_start + fs->cats[k].missing_end;
            unbound += fs->cats[k].unbound;
        }
        if (!fs)
            unmatched += m->flows_unmatched;
        flowstats_free(own);
        counters += m->ncounters;
        if (m->nslices || m->ncounters) {
            if (m->t_min < t0) t0 = m->t_min;
            if (m->t_max > t1) t1 = m->t_max;
        }
    }
    char phs[2048];
    size_t n = (size_t)snprintf(phs, sizeof phs, "{");
    for (int p = 33; p < 127 && n < sizeof phs - 40; p++)
        if (by_ph[p] && p != '"' && p != '\\')
            n += (size_t)snprintf(phs + n, sizeof phs - n, "%s\"%c\": %" PRIu64, n > 1 ? ", " : "", p, by_ph[p]);
    snprintf(phs + n, sizeof phs - n, "}");
    size_t r = rowset_row(rs);
    size_t c;
    c = rowset_col(rs, "ranks", "Ranks", RS_INT, 0);          rowset_int(rs, r, c, (int64_t)ranks);
    c = rowset_col(rs, "files", "Files", RS_INT, 0);          rowset_int(rs, r, c, (int64_t)files);
    c = rowset_col(rs, "events", "Events", RS_INT, 0);        rowset_int(rs, r, c, (int64_t)events);
    c = rowset_col(rs, "events_by_ph", "By phase", RS_RAW, 0); rowset_raw(rs, r, c, phs);
    c = rowset_col(rs, "unknown_ph", "Unknown ph", RS_INT, 0); rowset_int(rs, r, c, (int64_t)unknown);
    c = rowset_col(rs, "slices", "Slices", RS_INT, 0);        rowset_int(rs, r, c, (int64_t)slices);
    c = rowset_col(rs, "flows_matched", "Flows", RS_INT, 0);  rowset_int(rs, r, c, (int64_t)matched);
    c = rowset_col(rs, "flows_unmatched", "Unmatched", RS_INT, 0); rowset_int(rs, r, c, (int64_t)unmatched);
    c = rowset_col(rs, "flows_unbound", "Unbound", RS_INT, 0); rowset_int(rs, r, c, (int64_t)unbound);
    c = rowset_col(rs, "lanes", "Lanes", RS_INT, 0);          rowset_int(rs, r, c, (int64_t)lanes);
    c = rowset_col(rs, "counter_tracks", "Counters", RS_INT, 0); rowset_int(rs, r, c, (int64_t)counters);
    c = rowset_col(rs, "span_us", "Span µs", RS_NS, 0);
    if (t1 >= t0)
        rowset_ns(rs, r, c, t1 - t0);
    c = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    if (t1 >= t0)
        rowset_ns(rs, r, c, t0);
    c = rowset_col(rs, "diagnostics", "Diagnostics", RS_INT, 0);
    rowset_int(rs, r, c, s->diag ? (int64_t)diag_count(s->diag) : 0);
    c = rowset_col(rs, "load_ms", "Load ms", RS_NUM, 1);      rowset_num(rs, r, c, s->load_ms);
    return rs;
}

/* What the report covers, one row per rank: enough to read a JSON report back as a summary
 * of those ranks (io/summary_json.c). */
struct rowset *report_capture(const struct session *s, const struct report_opts *o)
{
    struct rowset *rs = rowset_new("capture");
    if (!rs)
        return NULL;
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_dev = rowset_col(rs, "device", "Device", RS_INT, 0);
    size_t c_label = rowset_col(rs, "label", "Label", RS_STR, 0);
    size_t c_status = rowset_col(rs, "status", "Status", RS_STR, 0);
    size_t c_note = rowset_col(rs, "steps_note", "Steps found", RS_STR, 0);
    size_t c_src = rowset_col(rs, "comm_sources", "Comm sources", RS_INT, 0);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        size_t r = rank_selected(o, rd) ? rowset_row(rs) : SIZE_MAX;
        if (r == SIZE_MAX)
            continue;
        rs->link[r] = i;
        rowset_int(rs, r, c_rank, rd->rank);
        if (rd->device >= 0)
            rowset_int(rs, r, c_dev, rd->device);
        rowset_str(rs, r, c_label, rd->label ? rd->label : "");
        rowset_str(rs, r, c_status, rd->status);
        rowset_str(rs, r, c_note, rd->digest ? rd->digest->steps_note : rd->steps ? rd->steps->note : "");
        rowset_int(rs, r, c_src, rd->comm ? (int64_t)rd->comm->sources : 0);
    }
    rowset_caption(rs, "aptop report of %s", s->root ? s->root : "");
    return rs;
}

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
    bool first = true;
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
        rowset_free(rs);
        first = false;
    }
    if (o->format == FMT_JSON)
        fputs("\n}\n", out);
    return 0;
}

void report_list_sections(FILE *out)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        fprintf(out, "  %-11s %s\n", sections[i].name, sections[i].help);
}
