/* The tables around the slices: track (every lane and counter series, a counter's with the
 * unit of its values; thread_track and counter_track are views of it, as in Perfetto), flow (each bound or unbound flow with the
 * slices at its ends) and counter (every counter sample). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_internal.h"

static const struct model *model_at(const struct session *s, size_t ri)
{
    const struct model *m = s->ranks[ri].model;
    return m && m->finalized ? m : NULL;
}

/* --- track ------------------------------------------------------------------------------ */

enum { T_ID, T_NAME, T_TYPE, T_PROCESS, T_PID, T_TID, T_KIND, T_RANK, T_UNIT };

static void track_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct model *m = t->s->ranks[ri].model;
    bool lane = row < m->nlanes;
    const struct lane *l = lane ? &m->lanes[row] : NULL;
    const struct counter_track *ct = lane ? NULL : &m->counters[row - m->nlanes];
    const struct proc *p = &m->procs[lane ? l->proc : ct->proc];
    switch (col) {
    case T_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case T_NAME: query_result_text(c, model_str(m, lane ? l->name : ct->name)); break;
    case T_TYPE: query_result_text(c, lane ? "thread" : "counter"); break;
    case T_PROCESS: query_result_text(c, model_str(m, p->name)); break;
    case T_PID: query_result_text(c, model_str(m, p->key)); break;
    case T_TID:
        if (lane)
            query_result_text(c, model_str(m, l->key));
        else
            sqlite3_result_null(c);
        break;
    case T_KIND: query_result_text(c, lane_kind_name(lane ? l->kind : p->kind)); break;
    case T_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    case T_UNIT:   /* a counter's unit as its file gave it; NULL for threads and unitless series */
        if (!lane && ct->unit)
            query_result_text(c, model_str(m, ct->unit));
        else
            sqlite3_result_null(c);
        break;
    default: sqlite3_result_null(c); break;
    }
}

/* --- flow ------------------------------------------------------------------------------- */

enum { F_ID, F_OUT, F_IN, F_TS_OUT, F_TS_IN, F_CATEGORY, F_NAME, F_FLOW_ID, F_RANK };

static void flow_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct query *q = t->ctx;
    const struct model *m = t->s->ranks[ri].model;
    const struct flow *f = &m->flows[row];
    switch (col) {
    case F_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case F_OUT: query_result_slice(q, ri, f->src, c); break;
    case F_IN: query_result_slice(q, ri, f->dst, c); break;
    case F_TS_OUT:
    case F_TS_IN: {
        ns_t ts = col == F_TS_OUT ? f->src_ts : f->dst_ts;
        if (ts == NS_NONE)
            sqlite3_result_null(c);
        else
            sqlite3_result_int64(c, ts);
        break;
    }
    case F_CATEGORY: query_result_text(c, model_str(m, f->cat)); break;
    case F_NAME: query_result_text(c, model_str(m, f->name)); break;
    case F_FLOW_ID:
        /* the file's id, exact: a string id as its text, a number above INT64_MAX as decimal text */
        if (f->id_is_str) {
            query_result_text(c, model_str(m, (uint32_t)f->id));
        } else if (f->id > (uint64_t)INT64_MAX) {
            char buf[24];
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)f->id);
            sqlite3_result_text(c, buf, -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_result_int64(c, (int64_t)f->id);
        }
        break;
    case F_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    default: sqlite3_result_null(c); break;
    }
}

/* --- counter ---------------------------------------------------------------------------- */

enum { K_ID, K_TS, K_TRACK, K_VALUE, K_RANK };

/* Per rank: first[i] = samples of counter tracks before track i (ncounters + 1 entries). */
struct counter_ctx {
    const struct query *q;
    int64_t **first;
    size_t nranks;
};

static void counter_ctx_free(void *p)
{
    struct counter_ctx *x = p;
    if (x)
        QUERY_FREE_PER_RANK(x->first, x->nranks);
    free(x);
}

static void counter_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct counter_ctx *x = t->ctx;
    const struct model *m = t->s->ranks[ri].model;
    const int64_t *first = x->first[ri];
    uint32_t lo = 0, hi = m->ncounters;   /* first[lo] <= row < first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= row)
            lo = mid;
        else
            hi = mid;
    }
    const struct counter_track *ct = &m->counters[lo];
    size_t k = (size_t)(row - first[lo]);
    switch (col) {
    case K_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case K_TS: sqlite3_result_int64(c, ct->ts[k]); break;
    case K_TRACK: sqlite3_result_int64(c, query_track_base(x->q, ri) + m->nlanes + lo); break;
    case K_VALUE: sqlite3_result_double(c, ct->value[k]); break;
    case K_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    default: sqlite3_result_null(c); break;
    }
}

/* --- registration ----------------------------------------------------------------------- */

bool query_track_tables(struct query *q, char *err, size_t errsz)
{
    const struct session *s = q->s;
    size_t n = s->nranks;
    int64_t *tracks = calloc(n + 1, sizeof *tracks), *flows = calloc(n + 1, sizeof *flows);
    int64_t *samples = calloc(n + 1, sizeof *samples);
    struct counter_ctx *cx = calloc(1, sizeof *cx);
    if (cx && (cx->first = calloc(n + 1, sizeof *cx->first)))
        cx->nranks = n;
    bool ok = tracks && flows && samples && cx && cx->first;
    for (size_t i = 0; ok && i < n; i++) {
        const struct model *m = model_at(s, i);
        if (!m)
            continue;
        tracks[i] = q->track_base[i + 1] - q->track_base[i];
        flows[i] = (int64_t)m->nflows;
        if (!(cx->first[i] = malloc(((size_t)m->ncounters + 1) * sizeof *cx->first[i]))) {
            ok = false;
            break;
        }
        cx->first[i][0] = 0;
        for (uint32_t k = 0; k < m->ncounters; k++)
            cx->first[i][k + 1] = cx->first[i][k] + (int64_t)m->counters[k].n;
        samples[i] = cx->first[i][m->ncounters];
    }
    struct qtab *tt = ok ? qtab_new(q, "track", "id INTEGER, name TEXT, type TEXT, process TEXT, pid TEXT, tid TEXT, "
                                               "kind TEXT, rank INTEGER, unit TEXT", tracks) : NULL;
    struct qtab *ft = ok ? qtab_new(q, "flow", "id INTEGER, slice_out INTEGER, slice_in INTEGER, ts_out INT_NS, "
                                              "ts_in INT_NS, category TEXT, name TEXT, flow_id, rank INTEGER", flows) : NULL;
    struct qtab *kt = ok ? qtab_new(q, "counter", "id INTEGER, ts INT_NS, track_id INTEGER, value REAL, rank INTEGER",
                                    samples) : NULL;
    free(tracks), free(flows), free(samples);
    if (!tt || !ft || !kt) {
        counter_ctx_free(cx);
        qtab_discard(tt), qtab_discard(ft), qtab_discard(kt);
        return query_oom(err, errsz);
    }
    cx->q = q;
    tt->cell = track_cell, tt->id_col = T_ID, tt->rank_col = T_RANK, tt->name_col = T_NAME;
    ft->cell = flow_cell, ft->id_col = F_ID, ft->rank_col = F_RANK, ft->ctx = q;
    kt->cell = counter_cell, kt->id_col = K_ID, kt->rank_col = K_RANK, kt->ctx = cx, kt->ctx_free = counter_ctx_free;
    /* a table SQLite took is freed with the database; the ones after a refusal here */
    if (!qtab_register(q, tt, err, errsz)) {
        qtab_discard(ft), qtab_discard(kt);
        return false;
    }
    if (!qtab_register(q, ft, err, errsz)) {
        qtab_discard(kt);
        return false;
    }
    if (!qtab_register(q, kt, err, errsz))
        return false;
    static const char views[] =
        "CREATE TEMP VIEW thread_track AS SELECT id, name, process, pid, tid, kind, rank FROM track WHERE type = 'thread';"
        "CREATE TEMP VIEW counter_track AS SELECT id, name, process, pid, kind, rank, unit FROM track WHERE type = 'counter';";
    char *msg = NULL;
    if (sqlite3_exec(q->db, views, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errsz, "track views: %s", msg ? msg : "failed");
        sqlite3_free(msg);
        return false;
    }
    return true;
}
