/* A time window of one rank as a Chrome trace (see export_window.h). */
#include "io/export/export_window.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/load/slice_fields.h"
#include "model/index/timeparse.h"
#include "model/rowsets/jsonbuf.h"
#include "util/free_all.h"

int export_window_parse(const char *text, struct export_window *w, char *err, size_t errsz)
{
    *w = (struct export_window){ 0 };
    const char *dots = text ? strstr(text, "..") : NULL;
    char a[64], b[64];
    if (!dots || (size_t)(dots - text) >= sizeof a || strlen(dots + 2) >= sizeof b) {
        snprintf(err, errsz, "--window wants START..END, e.g. 12.5ms..20ms");
        return -1;
    }
    snprintf(a, sizeof a, "%.*s", (int)(dots - text), text);
    snprintf(b, sizeof b, "%s", dots + 2);
    if (time_text_to_ns(a, &w->start) != 0 || time_text_to_ns(b, &w->end) != 0) {
        snprintf(err, errsz, "--window %s: a time is a number with a unit (s, ms, us, ns; ms when none)", text);
        return -1;
    }
    if (w->end <= w->start) {
        snprintf(err, errsz, "--window %s: the end must come after the start", text);
        return -1;
    }
    w->text = text;
    return 0;
}

size_t export_window_rank(const struct session *s, int rank)
{
    for (size_t i = 0; i < s->nranks; i++)
        if (rank >= 0 ? s->ranks[i].rank == rank : s->ranks[i].model != NULL)
            return i;
    return SIZE_MAX;
}

/* The writer's state: the JSON text of one event is built in `b`, then written. */
struct out {
    FILE *f;
    struct jbuf b;
    long events;
    bool first;
    ns_t origin;
};

static void emit(struct out *o)
{
    if (o->b.oom || !o->b.p)
        return;
    fprintf(o->f, "%s\n%s", o->first ? "" : ",", o->b.p);
    o->first = false;
    o->events++;
    o->b.n = 0;
    o->b.p[0] = 0;
}

/* "ts": relative µs with 3 decimals. */
static void put_ts(struct out *o, const char *key, ns_t t)
{
    jputs(&o->b, ",\"");
    jputs(&o->b, key);
    jputs(&o->b, "\":");
    jus(&o->b, t - o->origin);
}

static void put_ids(struct out *o, uint32_t proc, uint32_t lane)
{
    char ids[64];
    if (lane == UINT32_MAX)   /* a process's own event */
        snprintf(ids, sizeof ids, ",\"pid\":%u", proc + 1);
    else
        snprintf(ids, sizeof ids, ",\"pid\":%u,\"tid\":%u", proc + 1, lane + 1);
    jputs(&o->b, ids);
}

static void metadata(struct out *o, const struct model *m)
{
    char num[192];
    for (uint32_t p = 0; p < m->nprocs; p++) {
        jputs(&o->b, "{\"ph\":\"M\",\"name\":\"process_name\"");
        put_ids(o, p, UINT32_MAX);
        jputs(&o->b, ",\"args\":{\"name\":");
        jstr(&o->b, model_str(m, m->procs[p].name));
        jputs(&o->b, "}}");
        emit(o);
        snprintf(num, sizeof num, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"args\":{\"sort_index\":%u}}",
                 p + 1, p);
        jputs(&o->b, num);
        emit(o);
    }
    for (uint32_t i = 0; i < m->nlanes; i++) {
        uint32_t l = m->lane_order ? m->lane_order[i] : i;
        jputs(&o->b, "{\"ph\":\"M\",\"name\":\"thread_name\"");
        put_ids(o, m->lanes[l].proc, l);
        jputs(&o->b, ",\"args\":{\"name\":");
        jstr(&o->b, model_str(m, m->lanes[l].name));
        jputs(&o->b, "}}");
        emit(o);
        snprintf(num, sizeof num, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                 m->lanes[l].proc + 1, l + 1, i);
        jputs(&o->b, num);
        emit(o);
    }
}

/* The slice's fields as its args: a trace event's args keep their JSON types; a DB row's
 * fields are keyed "TABLE.column". */
static void put_args(struct out *o, const struct model *m, uint32_t s)
{
    struct slice_fields_job *j = slice_fields_read_now(m, s);
    const struct slice_field *f;
    const char *err;
    size_t n = slice_fields_get(j, &f, &err);
    if (n) {
        jputs(&o->b, ",\"args\":{");
        for (size_t i = 0; i < n; i++) {
            if (i)
                jputs(&o->b, ",");
            if (strcmp(f[i].section, "Args")) {
                char key[512];
                snprintf(key, sizeof key, "%s.%s", f[i].section, f[i].key);
                jstr(&o->b, key);
            } else {
                jstr(&o->b, f[i].key);
            }
            jputs(&o->b, ":");
            if (f[i].is_json)
                jputs(&o->b, f[i].value);
            else
                jstr(&o->b, f[i].value);
        }
        jputs(&o->b, "}");
    }
    slice_fields_release(j);
}

/* The slices of m overlapping [w0, w1), clipped, their args when cheap to read; false when
 * cancelled. */
static bool slices(struct out *o, const struct model *m, ns_t w0, ns_t w1, const bool *slow_file,
                   const atomic_bool *cancel)
{
    for (uint32_t s = 0; s < m->nslices; s++) {
        if (cancel && (s & 1023) == 0 && atomic_load(cancel))
            return false;
        ns_t a = m->start[s], e = m->start[s] + m->dur[s];
        if (e < w0 || a >= w1 || (e == w0 && m->dur[s] > 0))
            continue;
        if (a < w0) a = w0;
        if (e > w1) e = w1;
        uint32_t l = m->lane[s];
        jputs(&o->b, "{\"ph\":\"X\",\"name\":");
        jstr(&o->b, model_str(m, m->name[s]));
        if (m->cat && m->cat[s]) {
            jputs(&o->b, ",\"cat\":");
            jstr(&o->b, model_str(m, m->cat[s]));
        }
        put_ids(o, m->lanes[l].proc, l);
        put_ts(o, "ts", a);
        jputs(&o->b, ",\"dur\":");
        jus(&o->b, e - a);
        if (!(m->file[s] < m->nfiles && slow_file[m->file[s]]))
            put_args(o, m, s);
        jputs(&o->b, "}");
        emit(o);
    }
    return true;
}

static void counters(struct out *o, const struct model *m, ns_t w0, ns_t w1)
{
    char v[64];
    for (uint32_t c = 0; c < m->ncounters; c++) {
        const struct counter_track *ct = &m->counters[c];
        for (size_t i = 0; i < ct->n; i++) {
            if (ct->ts[i] < w0 || ct->ts[i] >= w1)
                continue;
            jputs(&o->b, "{\"ph\":\"C\",\"name\":");
            jstr(&o->b, model_str(m, ct->name));
            put_ids(o, ct->proc, UINT32_MAX);
            put_ts(o, "ts", ct->ts[i]);
            /* the unit as the arg key, the way Ascend writes it: read back, the series keeps it */
            jputs(&o->b, ",\"args\":{");
            jstr(&o->b, ct->unit ? model_str(m, ct->unit) : "value");
            snprintf(v, sizeof v, ":%.17g}}", ct->value[i]);
            jputs(&o->b, v);
            emit(o);
        }
    }
}

/* Where a flow end sits: its own time when the file gave one, else its slice's start. */
static ns_t flow_end(const struct model *m, uint32_t slice, ns_t ts)
{
    return ts != NS_NONE ? ts : m->start[slice];
}

static bool inside_slice(const struct model *m, uint32_t s, ns_t t, ns_t w0, ns_t w1)
{
    return t >= w0 && t < w1 && t >= m->start[s] && t <= m->start[s] + m->dur[s];
}

/* Flows whose two ends are inside the window, renumbered from 1. */
static void flows(struct out *o, const struct model *m, ns_t w0, ns_t w1)
{
    uint64_t id = 0;
    char num[96];
    for (size_t i = 0; i < m->nflows; i++) {
        const struct flow *f = &m->flows[i];
        if (f->src == SLICE_NONE || f->dst == SLICE_NONE || f->src >= m->nslices || f->dst >= m->nslices)
            continue;
        ns_t ts = flow_end(m, f->src, f->src_ts), td = flow_end(m, f->dst, f->dst_ts);
        if (!inside_slice(m, f->src, ts, w0, w1) || !inside_slice(m, f->dst, td, w0, w1))
            continue;
        id++;
        for (int end = 0; end < 2; end++) {
            uint32_t s = end ? f->dst : f->src;
            jputs(&o->b, end ? "{\"ph\":\"f\",\"bp\":\"e\",\"name\":" : "{\"ph\":\"s\",\"name\":");
            jstr(&o->b, model_str(m, f->name ? f->name : f->cat));
            jputs(&o->b, ",\"cat\":");
            jstr(&o->b, model_str(m, f->cat));
            put_ids(o, m->lanes[m->lane[s]].proc, m->lane[s]);
            put_ts(o, "ts", end ? td : ts);
            snprintf(num, sizeof num, ",\"id\":%llu}", (unsigned long long)id);
            jputs(&o->b, num);
            emit(o);
        }
    }
}

long export_window_write(const struct session *s, const struct export_window *w, FILE *out, char *err,
                         size_t errsz)
{
    const struct rank_data *rd = w->rank < s->nranks ? &s->ranks[w->rank] : NULL;
    return export_window_write_model(rd ? rd->model : NULL, rd ? rd->rank : -1, session_origin(s), w, out, err,
                                     errsz);
}

long export_window_write_model(const struct model *m, int rank, ns_t origin, const struct export_window *w,
                               FILE *out, char *err, size_t errsz)
{
    if (!m || !m->finalized) {
        snprintf(err, errsz, "rank %d has no timeline to export", rank);
        return -1;
    }
    struct out o = { .f = out, .first = true, .origin = origin };
    ns_t w0 = o.origin + w->start, w1 = o.origin + w->end;
    bool *slow = calloc(m->nfiles ? m->nfiles : 1, sizeof *slow);
    if (!slow) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    bool any_slow = false;
    for (uint32_t f = 0; f < m->nfiles; f++)
        any_slow |= slow[f] = slice_fields_slow(m, f);
    fputs("{\"traceEvents\":[", out);
    metadata(&o, m);
    bool whole = slices(&o, m, w0, w1, slow, w->cancel);
    if (whole) {
        counters(&o, m, w0, w1);
        flows(&o, m, w0, w1);
    }
    fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"window\":", out);
    o.b.n = 0;
    jstr(&o.b, w->text ? w->text : "");
    jputs(&o.b, ",\"rank\":");
    char num[64];
    snprintf(num, sizeof num, "%d", rank);
    jputs(&o.b, num);
    jputs(&o.b, ",\"origin_us\":");
    jus(&o.b, o.origin);
    jputs(&o.b, ",\"ts_relative_to\":\"origin_us\"");
    if (any_slow)
        jputs(&o.b, ",\"args\":\"left out: the trace is gzipped (each event's args would be decompressed from the file's start)\"");
    jputs(&o.b, "}}\n");
    if (o.b.p)
        fputs(o.b.p, out);
    bool oom = o.b.oom;
    free(o.b.p);
    free(slow);
    if (!whole || oom || ferror(out) || fflush(out) != 0) {
        snprintf(err, errsz, !whole ? "cancelled" : oom ? "out of memory: the export is incomplete"
                                                        : "the export could not be written");
        return -1;
    }
    return o.events;
}
