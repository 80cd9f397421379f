/* The report's "summary" (what was read: files, events, slices, flows, span) and "capture"
 * (one row per rank, enough to read a JSON report back as a summary) sections. */
#include "report/report.h"

#include "model/analysis/comm.h"
#include "model/analysis/rank_flowstats.h"
#include "model/index/rank_filter.h"
#include "model/index/rank_digest.h"
#include "model/analysis/steps.h"

#include <inttypes.h>
#include <stdio.h>

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
        if (!rank_selected(rd->rank, o->rank))
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
        struct flowstats *own;
        const struct flowstats *fs = rank_flowstats(rd, &own);
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
 * of those ranks (io/tables/summary_json.c). */
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
    rowset_caption(rs, "aptop report of %s", s->root ? s->root : "");
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(rd->rank, o->rank))
            continue;
        size_t r = rowset_rank_row(rs, i, c_rank, rd->rank, c_dev, rd->device);
        if (r == SIZE_MAX)
            continue;
        rowset_str(rs, r, c_label, rd->label ? rd->label : "");
        rowset_str(rs, r, c_status, rd->status);
        rowset_str(rs, r, c_note, rd->digest ? rd->digest->steps_note : rd->steps ? rd->steps->note : "");
        rowset_int(rs, r, c_src, rd->comm ? (int64_t)rd->comm->sources : 0);
    }
    return rs;
}
