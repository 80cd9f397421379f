/* The index cache's model section: a finalized model written as aligned arrays and used in
 * place in the mapped file (the small structures and the string table are rebuilt). See
 * index_cache.h for what the cache is, cache_io.h for the byte level. */
#include "io/cache/cache_model.h"
#include "io/files/mapped_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/strtab.h"

/* A field added to these structures must be written and read here too: the sizes below,
 * and the positional initializers in cache_read_model (-Wmissing-field-initializers), make
 * the build say so instead of a cache that silently drops the field. */
#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(struct model) == 1360, "struct model changed: update src/io/cache/cache_model.c");   /* stop, unmap: set by their owners, not written */
_Static_assert(sizeof(struct lane) == 56, "struct lane changed: update src/io/cache/cache_model.c");
_Static_assert(sizeof(struct proc) == 40, "struct proc changed: update src/io/cache/cache_model.c");
_Static_assert(sizeof(struct flow) == 56, "struct flow changed: update src/io/cache/cache_model.c");
_Static_assert(sizeof(struct counter_track) == 48, "struct counter_track changed: update src/io/cache/cache_model.c");
#endif

struct cache_model_counts {
    uint64_t time_base, nstr, str_bytes, nprocs, nlanes, nslices, nflows, flows_matched,
             flows_unmatched, nby_src, nby_dst, ncounters, nfiles, events, unknown_ph;
    int64_t t_min, t_max;
    uint64_t events_by_ph[128];
};

struct cache_proc { uint32_t key, name, labels, kind, first_lane, nlanes, kind_set, pad; int64_t sort_index; };
struct cache_lane { uint32_t proc, key, name, kind, first, count, ndepth, pad; int64_t sort_index; };
struct cache_counter { uint32_t proc, name, unit, pad; uint64_t n; };

void cache_write_model(struct cw *w, const struct model *m)
{
    uint32_t nstr = strtab_count(m->str);
    struct cache_model_counts sc = {
        .time_base = (uint64_t)m->time_base, .nstr = nstr, .str_bytes = cache_strings_bytes(m->str, nstr),
        .nprocs = m->nprocs, .nlanes = m->nlanes, .nslices = m->nslices, .nflows = m->nflows,
        .flows_matched = m->flows_matched, .flows_unmatched = m->flows_unmatched,
        .nby_src = m->nflows_by_src, .nby_dst = m->nflows_by_dst, .ncounters = m->ncounters,
        .nfiles = m->nfiles, .events = m->events, .unknown_ph = m->unknown_ph,
        .t_min = m->t_min, .t_max = m->t_max,
    };
    memcpy(sc.events_by_ph, m->events_by_ph, sizeof sc.events_by_ph);
    cw_put(w, &sc, sizeof sc);
    cw_strings(w, m->str, nstr);
    for (uint32_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        struct cache_proc cp = { p->key, p->name, p->labels, (uint32_t)p->kind, p->first_lane, p->nlanes,
                                 p->kind_set, 0, p->sort_index };
        cw_put(w, &cp, sizeof cp);
    }
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        struct cache_lane cl = { l->proc, l->key, l->name, (uint32_t)l->kind, l->first, l->count, l->ndepth, 0,
                                 l->sort_index };
        cw_put(w, &cl, sizeof cl);
    }
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        uint32_t r0 = l->ndepth ? l->row_first[1] - l->row_first[0] : 0;
        cw_put(w, l->row_first, ((size_t)l->ndepth + 1) * sizeof(uint32_t));
        cw_put(w, l->busy_prefix, ((size_t)r0 + 1) * sizeof(ns_t));
    }
    if (m->lane_order) {
        cw_put(w, m->lane_order, (size_t)m->nlanes * sizeof(uint32_t));
    } else {
        for (uint32_t i = 0; i < m->nlanes; i++)
            cw_bytes(w, &i, sizeof i);
        cw_align(w);
    }
    size_t n = m->nslices;
    cw_put(w, m->start, n * sizeof(ns_t));
    cw_put(w, m->dur, n * sizeof(ns_t));
    cw_put(w, m->name, n * sizeof(uint32_t));
    cw_put(w, m->cat, n * sizeof(uint32_t));
    cw_put(w, m->lane, n * sizeof(uint32_t));
    cw_put(w, m->depth, n * sizeof(uint16_t));
    cw_put(w, m->file, n);
    cw_put(w, m->off, n * sizeof(uint64_t));
    cw_put(w, m->len, n * sizeof(uint32_t));
    /* flows through zeroed copies: struct padding must not carry stray bytes */
    for (size_t i = 0; i < m->nflows && !w->failed; i++) {
        struct flow f;
        memset(&f, 0, sizeof f);
        const struct flow *s = &m->flows[i];
        f.cat = s->cat; f.name = s->name; f.id = s->id; f.id_is_str = s->id_is_str; f.by_correlation = s->by_correlation;
        f.src = s->src; f.dst = s->dst; f.src_lane = s->src_lane; f.dst_lane = s->dst_lane;
        f.src_ts = s->src_ts; f.dst_ts = s->dst_ts;
        cw_bytes(w, &f, sizeof f);
    }
    cw_align(w);
    cw_put(w, m->flows_by_src, m->nflows_by_src * sizeof(uint32_t));
    cw_put(w, m->flows_by_dst, m->nflows_by_dst * sizeof(uint32_t));
    for (uint32_t i = 0; i < m->ncounters; i++) {
        const struct counter_track *c = &m->counters[i];
        struct cache_counter cc = { c->proc, c->name, c->unit, 0, c->n };
        cw_put(w, &cc, sizeof cc);
        cw_put(w, c->ts, c->n * sizeof(ns_t));
        cw_put(w, c->value, c->n * sizeof(double));
    }
    for (uint32_t i = 0; i < m->nfiles; i++) {
        uint64_t hdr[2] = { m->files[i].size, strlen(m->files[i].path) };
        cw_put(w, hdr, sizeof hdr);
        cw_put(w, m->files[i].path, hdr[1]);
    }
}

/* A lane kind this build knows. Every kind is listed and there is no default, so a kind
 * added to the model is a -Wswitch warning here until it is listed. */
static bool known_kind(uint32_t k)
{
    switch ((enum lane_kind)k) {
    case LANE_OTHER: case LANE_PYTHON: case LANE_CANN: case LANE_DEVICE: case LANE_COMM: case LANE_OVERLAP:
    case LANE_GC: case LANE_MSTX: case LANE_COUNTER: case LANE_STEP_TRACE: case LANE_DEVICE_ANNOT:
        return true;
    }
    return false;
}

/* A time of the model within its span [t_min, t_max] (which check_counts bounds). */
static inline bool in_span(const struct model *m, ns_t t)
{
    return m->t_min != NS_NONE && t >= m->t_min && t <= m->t_max;
}

/* The flows' and counters' part of check_model: what is wrong, or NULL. Reads only m. */
static const char *check_flows(const struct model *m, uint32_t nstr)
{
    for (size_t i = 0; i < m->nflows; i++) {
        const struct flow *f = &m->flows[i];
        if (f->cat >= nstr || f->name >= nstr
            || (f->src != SLICE_NONE && f->src >= m->nslices) || (f->dst != SLICE_NONE && f->dst >= m->nslices)
            || (f->src_lane != LANE_NONE && f->src_lane >= m->nlanes)
            || (f->dst_lane != LANE_NONE && f->dst_lane >= m->nlanes))
            return "a flow out of bounds";
        unsigned char flag[2];   /* bools as bytes: any other value in a bool is undefined */
        memcpy(&flag[0], &f->id_is_str, 1);
        memcpy(&flag[1], &f->by_correlation, 1);
        if (flag[0] > 1 || flag[1] > 1)
            return "a flow flag out of range";
        if ((f->src_ts != NS_NONE && !in_span(m, f->src_ts)) || (f->dst_ts != NS_NONE && !in_span(m, f->dst_ts)))
            return "a flow's time outside the model's span";
    }
    if ((m->nflows_by_src && cache_max_u32(m->flows_by_src, m->nflows_by_src) >= m->nflows)
        || (m->nflows_by_dst && cache_max_u32(m->flows_by_dst, m->nflows_by_dst) >= m->nflows))
        return "a flow index out of bounds";
    for (uint32_t i = 0; i < m->ncounters; i++) {
        const struct counter_track *c = &m->counters[i];
        if (c->proc >= m->nprocs || c->name >= nstr || c->unit >= nstr)
            return "a counter out of bounds";
        for (size_t k = 0; k < c->n; k++)
            if (!in_span(m, c->ts[k]))
                return "a counter's time outside the model's span";
    }
    return NULL;
}

struct flows_check { const struct model *m; uint32_t nstr; const char *why; };

static void *check_flows_main(void *arg)
{
    struct flows_check *c = arg;
    c->why = check_flows(c->m, c->nstr);
    return NULL;
}

static bool check_slices(struct cr *r, const struct model *m, uint32_t nstr);

/* Every index the queries follow is checked here; a file that passes cannot make them read
 * outside an array. Reading every page of a new mapping for the first time is most of a
 * warm reopen: on a large index the flows are checked on a second thread meanwhile. */
static bool check_model(struct cr *r, const struct model *m, uint32_t nstr)
{
    struct flows_check fc = { m, nstr, NULL };
    pthread_t th;
    bool threaded = m->nflows >= (1u << 18) && pthread_create(&th, NULL, check_flows_main, &fc) == 0;
    bool ok = check_slices(r, m, nstr);
    if (threaded)
        pthread_join(th, NULL);
    else if (ok)
        fc.why = check_flows(m, nstr);
    return ok && (!fc.why || cr_fail(r, fc.why));
}

/* check_model's processes, lanes and slices */
static bool check_slices(struct cr *r, const struct model *m, uint32_t nstr)
{
    for (uint32_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        if (p->key >= nstr || p->name >= nstr || p->labels >= nstr || !known_kind(p->kind)
            || p->first_lane > m->nlanes || p->nlanes > m->nlanes - p->first_lane)
            return cr_fail(r, "a process out of bounds");
    }
    uint64_t next = 0;
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        if (l->proc >= m->nprocs || l->key >= nstr || l->name >= nstr || !known_kind(l->kind)
            || l->first != next || l->count > m->nslices - l->first)
            return cr_fail(r, "a lane out of bounds");
        next = (uint64_t)l->first + l->count;
        if (l->row_first[0] != l->first || l->row_first[l->ndepth] != l->first + l->count)
            return cr_fail(r, "a lane's rows do not cover it");
        /* the busy sums are the ones finalize makes of the durations, to the last bit */
        uint32_t r0 = l->ndepth ? l->row_first[1] - l->row_first[0] : 0;
        if (l->busy_prefix[0] != 0)
            return cr_fail(r, "a lane's busy sums do not add up");
        for (uint32_t k = 0; k < r0; k++)
            if (l->busy_prefix[k + 1] != (ns_t)((uint64_t)l->busy_prefix[k] + (uint64_t)m->dur[l->first + k]))
                return cr_fail(r, "a lane's busy sums do not add up");
        for (uint32_t d = 0; d < l->ndepth; d++) {
            uint32_t a = l->row_first[d], b = l->row_first[d + 1];
            if (b < a || b > l->first + l->count)
                return cr_fail(r, "a lane's rows out of order");
            for (uint32_t s = a; s < b; s++)
                if (m->lane[s] != i || m->depth[s] != d)
                    return cr_fail(r, "a slice outside its lane's row");
        }
    }
    if (next != m->nslices)
        return cr_fail(r, "slices outside every lane");
    if (m->nslices && (cache_max_u32(m->name, m->nslices) >= nstr || cache_max_u32(m->cat, m->nslices) >= nstr))
        return cr_fail(r, "a slice name out of bounds");
    for (uint32_t i = 0; i < m->nlanes; i++)
        if (m->lane_order[i] >= m->nlanes)
            return cr_fail(r, "the lane order out of bounds");
    for (size_t i = 0; i < m->nslices; i++) {
        /* bounded durations keep model_end from overflowing; every slice lies in the span */
        if (m->dur[i] <= -CACHE_NS_LIMIT || m->dur[i] >= CACHE_NS_LIMIT || !in_span(m, m->start[i])
            || model_end(m, (uint32_t)i) > m->t_max)
            return cr_fail(r, "a slice outside the model's span");
        if (!m->len[i])
            continue;
        if (m->file[i] >= m->nfiles)
            return cr_fail(r, "a slice's file out of bounds");
        /* a gzipped trace's offsets count decompressed bytes, so the file's size bounds
         * nothing; an argument read past the end only fails with a message */
        if (m->off[i] > ((uint64_t)1 << 56) || m->len[i] > (1u << 30))
            return cr_fail(r, "a slice's bytes beyond any trace");
    }
    return true;
}

/* The lanes, each with its row starts and busy sums (pointers into the mapping). */
static bool cr_lanes(struct cr *r, struct model *m, const struct cache_lane *cl, uint32_t nlanes)
{
    for (uint32_t i = 0; i < nlanes; i++) {
        struct lane *l = &m->lanes[i];
        /* every field by position: a field added to struct lane stops the build here
         * (-Wmissing-field-initializers) until the cache writes it too */
        *l = (struct lane){ cl[i].proc, cl[i].key, cl[i].name, cl[i].sort_index, (enum lane_kind)cl[i].kind,
                            cl[i].first, cl[i].count, cl[i].ndepth, NULL, NULL };
        m->nlanes = i + 1;   /* model_free sees only lanes whose arrays are set */
        if (l->ndepth > 1025)
            return cr_fail(r, "a lane deeper than the model makes");
        l->row_first = cr_take_n(r, (uint64_t)l->ndepth + 1, sizeof(uint32_t), "lane rows");
        if (!l->row_first)
            return false;
        uint32_t r0 = l->ndepth ? l->row_first[1] - l->row_first[0] : 0;
        if (l->ndepth && l->row_first[1] < l->row_first[0])
            return cr_fail(r, "a lane's rows out of order");
        l->busy_prefix = cr_take_n(r, (uint64_t)r0 + 1, sizeof(ns_t), "busy sums");
        if (!l->busy_prefix)
            return false;
    }
    return true;
}

/* The slice columns (pointers into the mapping). */
static bool cr_slices(struct cr *r, struct model *m, size_t n)
{
    m->start = cr_take_n(r, n, sizeof(ns_t), "slice starts");
    m->dur = cr_take_n(r, n, sizeof(ns_t), "slice durations");
    m->name = cr_take_n(r, n, sizeof(uint32_t), "slice names");
    m->cat = cr_take_n(r, n, sizeof(uint32_t), "slice categories");
    m->lane = cr_take_n(r, n, sizeof(uint32_t), "slice lanes");
    m->depth = cr_take_n(r, n, sizeof(uint16_t), "slice depths");
    m->file = cr_take_n(r, n, 1, "slice files");
    m->off = cr_take_n(r, n, sizeof(uint64_t), "slice offsets");
    m->len = cr_take_n(r, n, sizeof(uint32_t), "slice lengths");
    if (r->bad)
        return false;
    m->nslices = m->slices_cap = (uint32_t)n;
    return true;
}

/* The counter tracks, their samples pointers into the mapping. */
static bool cr_counters(struct cr *r, struct model *m, uint32_t ncounters)
{
    for (uint32_t i = 0; i < ncounters; i++) {
        const struct cache_counter *cc = cr_take(r, sizeof *cc, "a counter");
        if (!cc)
            return false;
        struct counter_track *c = &m->counters[i];
        ns_t *ts = cr_take_n(r, cc->n, sizeof(ns_t), "counter times");
        double *value = cr_take_n(r, cc->n, sizeof(double), "counter values");
        if (r->bad)
            return false;
        *c = (struct counter_track){ cc->proc, cc->name, cc->unit, (size_t)cc->n, (size_t)cc->n, ts, value };
        m->ncounters = i + 1;
    }
    return true;
}

/* The model's scalars within what a load can make: the span empty or within
 * CACHE_NS_LIMIT, and the event and flow tallies within their totals. */
static bool counts_in_range(const struct cache_model_counts *sc)
{
    bool span_ok = (sc->t_min == NS_NONE && sc->t_max == NS_NONE)
                   || (sc->t_min > -CACHE_NS_LIMIT && sc->t_min <= sc->t_max && sc->t_max < CACHE_NS_LIMIT);
    if (!span_ok || sc->events > ((uint64_t)1 << 56)
        || sc->unknown_ph > sc->events || sc->flows_matched > sc->nflows || sc->flows_unmatched > sc->nflows)
        return false;
    for (size_t k = 0; k < sizeof sc->events_by_ph / sizeof *sc->events_by_ph; k++)
        if (sc->events_by_ph[k] > sc->events)
            return false;
    return true;
}

struct model *cache_read_model(struct cr *r)
{
    const struct cache_model_counts *sc = cr_take(r, sizeof *sc, "the model's counts");
    if (!sc) {
        mapped_file_unmap(r->base, r->len);
        return NULL;
    }
    if (sc->time_base > TIME_UNIX_NS || sc->nstr == 0 || sc->nstr > UINT32_MAX || sc->nprocs > UINT32_MAX
        || sc->nlanes > UINT32_MAX || sc->nslices >= UINT32_MAX || sc->ncounters > UINT32_MAX
        || sc->nfiles > UINT32_MAX || sc->nby_src > sc->nflows || sc->nby_dst > sc->nflows
        || sc->nstr > r->len || sc->nprocs > r->len || sc->nlanes > r->len
        || sc->ncounters > r->len || sc->nfiles > r->len || !counts_in_range(sc)) {
        cr_fail(r, "impossible counts");
        mapped_file_unmap(r->base, r->len);
        return NULL;
    }
    struct model *m = model_new((enum time_base)sc->time_base);
    if (!m) {
        cr_fail(r, "out of memory");
        mapped_file_unmap(r->base, r->len);
        return NULL;
    }
    m->mapped = r->base;   /* owned from here on: model_free unmaps */
    m->mapped_len = r->len;
    m->unmap = mapped_file_unmap;   /* the mapping is under the SIGBUS handler (io/files/mapped_file.h) */
    /* strings: interned again in order, so each keeps its id */
    if (!cr_strings(r, m->str, sc->nstr, sc->str_bytes))
        goto bad;
    uint32_t nstr = (uint32_t)sc->nstr;
    const struct cache_proc *cp = cr_take_n(r, sc->nprocs, sizeof *cp, "processes");
    const struct cache_lane *cl = cr_take_n(r, sc->nlanes, sizeof *cl, "lanes");
    if (r->bad)
        goto bad;
    m->procs = calloc(sc->nprocs + 1, sizeof *m->procs);
    m->lanes = calloc(sc->nlanes + 1, sizeof *m->lanes);
    if (!m->procs || !m->lanes)
        goto oom;
    m->nprocs = m->procs_cap = (uint32_t)sc->nprocs;
    for (uint32_t i = 0; i < m->nprocs; i++)
        m->procs[i] = (struct proc){ cp[i].key, cp[i].name, cp[i].labels, cp[i].sort_index,
                                     (enum lane_kind)cp[i].kind, cp[i].kind_set != 0, cp[i].first_lane,
                                     cp[i].nlanes };
    m->lanes_cap = (uint32_t)sc->nlanes;
    if (!cr_lanes(r, m, cl, (uint32_t)sc->nlanes))
        goto bad;
    m->lane_order = cr_take_n(r, sc->nlanes, sizeof(uint32_t), "lane order");
    if (!cr_slices(r, m, (size_t)sc->nslices))
        goto bad;
    m->flows = cr_take_n(r, sc->nflows, sizeof(struct flow), "flows");
    m->flows_by_src = cr_take_n(r, sc->nby_src, sizeof(uint32_t), "flows by source");
    m->flows_by_dst = cr_take_n(r, sc->nby_dst, sizeof(uint32_t), "flows by destination");
    if (r->bad)
        goto bad;
    m->nflows = m->flows_cap = (size_t)sc->nflows;
    m->nflows_by_src = (size_t)sc->nby_src;
    m->nflows_by_dst = (size_t)sc->nby_dst;
    m->flows_matched = (size_t)sc->flows_matched;
    m->flows_unmatched = (size_t)sc->flows_unmatched;
    m->counters = calloc(sc->ncounters + 1, sizeof *m->counters);
    if (!m->counters)
        goto oom;
    m->counters_cap = (uint32_t)sc->ncounters;
    if (!cr_counters(r, m, (uint32_t)sc->ncounters))
        goto bad;
    m->files = calloc(sc->nfiles + 1, sizeof *m->files);
    if (!m->files)
        goto oom;
    for (uint32_t i = 0; i < sc->nfiles; i++) {
        const uint64_t *fh = cr_take(r, 2 * sizeof(uint64_t), "a file");
        const char *path = fh ? cr_take(r, fh[1], "a file's path") : NULL;
        if (!path)
            goto bad;
        if (!(m->files[i].path = strndup(path, (size_t)fh[1])))
            goto oom;
        m->files[i].size = fh[0];
        m->nfiles = i + 1;
    }
    m->events = sc->events;
    m->unknown_ph = sc->unknown_ph;
    memcpy(m->events_by_ph, sc->events_by_ph, sizeof m->events_by_ph);
    m->t_min = sc->t_min;
    m->t_max = sc->t_max;
    if (!check_model(r, m, nstr))
        goto bad;
    m->finalized = true;   /* model_new's empty building state goes with model_free */
    return m;
oom:
    cr_fail(r, "out of memory");
bad:
    model_free(m);   /* unmaps too */
    return NULL;
}

