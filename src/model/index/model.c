/* The indexed event model: building (processes, lanes, slices, flow points, counters) and
 * moving to another clock. Merging is in model_append.c, finalize in model_finalize.c and
 * model_flows.c, queries in model_query.c. See model.h for the contract. */
#include "model/index/model.h"
#include "util/grow.h"
#include "util/huge_pages.h"
#include "model/index/model_internal.h"
#include "model/index/model_push.h"
#include "util/free_all.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

uint32_t u64map_get(const struct u64map *h, uint64_t key)
{
    if (!h->cap)
        return UINT32_MAX;
    for (uint32_t i = (uint32_t)hash_mix64(key) & (h->cap - 1); h->vals[i]; i = (i + 1) & (h->cap - 1))
        if (h->keys[i] == key)
            return h->vals[i] - 1;
    return UINT32_MAX;
}

int u64map_put(struct u64map *h, uint64_t key, uint32_t val)
{
    if ((h->n + 1) * 2 > h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        uint64_t *k = calloc(cap, sizeof *k);
        uint32_t *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            FREE_ALL(k, v);
            return -1;
        }
        for (uint32_t i = 0; i < h->cap; i++) {
            if (!h->vals[i])
                continue;
            uint32_t j = (uint32_t)hash_mix64(h->keys[i]) & (cap - 1);
            while (v[j])
                j = (j + 1) & (cap - 1);
            k[j] = h->keys[i];
            v[j] = h->vals[i];
        }
        free(h->keys);
        free(h->vals);
        h->keys = k;
        h->vals = v;
        h->cap = cap;
    }
    uint32_t i = (uint32_t)hash_mix64(key) & (h->cap - 1);
    while (h->vals[i] && h->keys[i] != key)
        i = (i + 1) & (h->cap - 1);
    if (!h->vals[i])
        h->n++;
    h->keys[i] = key;
    h->vals[i] = val + 1;
    return 0;
}

void u64map_free(struct u64map *h)
{
    free(h->keys);
    free(h->vals);
    memset(h, 0, sizeof *h);
}

void *model_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    void *np = grow_array(p, cap, need, elem);
    if (np)
        huge_advise(np, *cap * elem);
    return np;
}

void *model_push(struct model *m, void *p, size_t *cap, size_t need, size_t elem)
{
    if (m->oom)
        return NULL;
    void *np = model_grow(p, cap, need, elem);
    if (!np)
        m->oom = true;
    return np;
}

/* realloc for the index's large arrays (columns, points, flows, finalize's scratch): on huge
 * pages (util/huge_pages.h), a new one from its first byte to its last (1 GiB load: 19 K
 * page faults to 6 K), so filling them takes few faults and their random reads (gathers,
 * binding) miss the TLB less. */
void *model_realloc_big(void *p, size_t bytes)
{
    if (!p)
        return huge_alloc(bytes);
    void *np = grow_exact(p, bytes, 1);
    if (np)
        huge_advise(np, bytes);
    return np;
}

/* A zeroed array that is then read and written at random: calloc's fresh pages map the zero
 * page on a read and fault again on the write (flushing the other threads' TLBs); writing
 * the zeros first faults each page once. */
void *model_zeroed(size_t bytes)
{
    void *p = model_realloc_big(NULL, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* --- lane kinds ------------------------------------------------------------------------ */

const char *lane_kind_name(enum lane_kind k)
{
    switch (k) {
    case LANE_PYTHON: return "python";
    case LANE_CANN: return "cann";
    case LANE_DEVICE: return "device";
    case LANE_COMM: return "communication";
    case LANE_OVERLAP: return "overlap";
    case LANE_GC: return "gc";
    case LANE_MSTX: return "mstx";
    case LANE_COUNTER: return "counter";
    case LANE_STEP_TRACE: return "step_trace";
    case LANE_DEVICE_ANNOT: return "device_annotation";
    case LANE_OTHER: break;
    }
    return "other";
}

enum lane_kind lane_kind_from_process_name(const char *name)
{
    if (!name)
        return LANE_OTHER;
    if (!strcmp(name, "Python"))
        return LANE_PYTHON;
    if (!strcmp(name, "Python GC"))
        return LANE_GC;
    if (!strcmp(name, "CANN"))
        return LANE_CANN;
    if (!strcmp(name, "Ascend Hardware") || !strcmp(name, "Task Scheduler"))   /* older msprof name */
        return LANE_DEVICE;
    if (!strcmp(name, "Step Trace"))
        return LANE_STEP_TRACE;
    if (!strcmp(name, "Communication") || !strcmp(name, "HCCL"))
        return LANE_COMM;
    if (!strcmp(name, "Overlap Analysis"))
        return LANE_OVERLAP;
    if (!strcasecmp(name, "msproftx") || !strcasecmp(name, "mstx"))
        return LANE_MSTX;
    return LANE_OTHER;
}

/* msprof's merged timeline puts its step trace in the device process as a thread named
 * "Step Trace(Model ID:N)": its Iteration, FP_BP Time, Iteration Refresh and Reduce slices
 * are the lane of steps, not device tasks. */
enum lane_kind lane_kind_of_thread(enum lane_kind proc_kind, const char *thread_name)
{
    if (proc_kind == LANE_DEVICE && thread_name && !strncmp(thread_name, "Step Trace", 10))
        return LANE_STEP_TRACE;
    return proc_kind;
}

/* --- building ----------------------------------------------------------------------- */

struct model *model_new(enum time_base base)
{
    struct model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->str = strtab_new();
    m->build = calloc(1, sizeof(struct build));
    if (!m->str || !m->build) {
        model_free(m);
        return NULL;
    }
    m->time_base = base;
    m->t_min = NS_NONE;
    m->t_max = NS_NONE;
    return m;
}

void model_free_build(struct model *m)
{
    struct build *b = B(m);
    if (!b)
        return;
    u64map_free(&b->procs);
    u64map_free(&b->lanes);
    u64map_free(&b->counters);
    model_recycle_clear(b);
    FREE_ALL(b->pts, b->ord, b->direct, b->corr, b->proc_named, b->lane_set, b);
    m->build = NULL;
}

/* Frees an array unless it lies in the cache mapping (model_free unmaps that at once). */
static void release(const struct model *m, void *p)
{
    const char *c = p, *base = m->mapped;
    if (!base || c < base || c >= base + m->mapped_len)
        free(p);
}

void model_free_slices(struct model *m)
{
    release(m, m->start); release(m, m->dur); release(m, m->name); release(m, m->cat);
    release(m, m->lane); release(m, m->depth); release(m, m->file); release(m, m->off);
    release(m, m->len);
    m->start = m->dur = NULL;
    m->name = m->cat = m->lane = NULL;
    m->depth = NULL;
    m->file = NULL;
    m->off = NULL;
    m->len = NULL;
    m->nslices = m->slices_cap = 0;
}

static void unmap_plain(void *mapped, size_t len)
{
    munmap(mapped, len);
}

void model_free(struct model *m)
{
    if (!m)
        return;
    model_free_build(m);
    model_free_slices(m);
    for (uint32_t i = 0; i < m->nlanes; i++) {
        release(m, m->lanes[i].row_first);
        release(m, m->lanes[i].busy_prefix);
    }
    free(m->lanes);
    free(m->procs);
    release(m, m->lane_order);
    release(m, m->flows);
    release(m, m->flows_by_src);
    release(m, m->flows_by_dst);
    free(m->build_to_final);
    free(m->lane_build_to_final);
    for (uint32_t i = 0; i < m->ncounters; i++) {
        release(m, m->counters[i].ts);
        release(m, m->counters[i].value);
    }
    free(m->counters);
    for (uint32_t i = 0; i < m->nfiles; i++)
        free(m->files[i].path);
    free(m->files);
    strtab_free(m->str);
    if (m->mapped)
        (m->unmap ? m->unmap : unmap_plain)(m->mapped, m->mapped_len);
    free(m);
}

uint32_t model_intern(struct model *m, const char *s, size_t len)
{
    uint32_t id = strtab_intern(m->str, s ? s : "", s ? len : 0);
    if (id == UINT32_MAX) {
        m->oom = true;
        return 0;
    }
    return id;
}

uint32_t model_add_file(struct model *m, const char *path, uint64_t size)
{
    struct model_file *f = grow_exact(m->files, (size_t)m->nfiles + 1, sizeof *f);
    if (!f) {
        m->oom = true;
        return 0;
    }
    m->files = f;
    f[m->nfiles].path = strdup(path ? path : "");
    f[m->nfiles].size = size;
    if (!f[m->nfiles].path)
        m->oom = true;
    return m->nfiles++;
}

/* The process whose pid text is the interned string key, created when new. */
uint32_t model_proc_for_key(struct model *m, uint32_t key)
{
    struct build *b = B(m);
    uint32_t p = u64map_get(&b->procs, key);
    if (p != UINT32_MAX)
        return p;
    if (m->nprocs == m->procs_cap) {
        uint32_t cap = m->procs_cap ? m->procs_cap * 2 : 16;
        struct proc *np = grow_exact(m->procs, cap, sizeof *np);
        uint8_t *nn = grow_exact(b->proc_named, cap, 1);
        if (nn)
            b->proc_named = nn;
        if (!np || !nn) {
            if (np)
                m->procs = np;
            m->oom = true;
            return 0;   /* callers' indices are bounds-checked; finalize will fail */
        }
        m->procs = np;
        m->procs_cap = cap;
    }
    p = m->nprocs++;
    m->procs[p] = (struct proc){ .key = key, .name = key, .sort_index = INT64_MAX };
    b->proc_named[p] = 0;
    if (u64map_put(&b->procs, key, p) < 0)
        m->oom = true;
    return p;
}

uint32_t model_proc(struct model *m, const char *pid, size_t pid_len)
{
    if (!B(m))
        return 0;
    return model_proc_for_key(m, model_intern(m, pid, pid_len));
}

/* The lane of process p whose tid text is the interned string key, created when new. */
uint32_t model_lane_for_key(struct model *m, uint32_t p, uint32_t key)
{
    struct build *b = B(m);
    uint64_t hk = (uint64_t)p << 32 | key;
    uint32_t l = u64map_get(&b->lanes, hk);
    if (l != UINT32_MAX)
        return l;
    if (m->oom || p >= m->nprocs)
        return 0;
    if (m->nlanes == m->lanes_cap) {
        uint32_t cap = m->lanes_cap ? m->lanes_cap * 2 : 16;
        struct lane *nl = grow_exact(m->lanes, cap, sizeof *nl);
        uint8_t *ns = grow_exact(b->lane_set, cap, 1);
        if (nl)
            m->lanes = nl;
        if (ns)
            b->lane_set = ns;
        if (!nl || !ns) {
            m->oom = true;
            return 0;
        }
        m->lanes_cap = cap;
    }
    l = m->nlanes++;
    m->lanes[l] = (struct lane){ .proc = p, .key = key, .name = 0, .sort_index = INT64_MAX };
    b->lane_set[l] = 0;
    if (u64map_put(&b->lanes, hk, l) < 0)
        m->oom = true;
    return l;
}

uint32_t model_lane(struct model *m, const char *pid, size_t pid_len, const char *tid, size_t tid_len)
{
    if (!B(m))
        return 0;
    uint32_t p = model_proc(m, pid, pid_len);
    return model_lane_for_key(m, p, model_intern(m, tid, tid_len));
}

void model_set_process_name(struct model *m, uint32_t proc, const char *name, size_t len)
{
    if (proc >= m->nprocs || !m->build)
        return;
    m->procs[proc].name = model_intern(m, name, len);
    B(m)->proc_named[proc] |= P_STRONG;
}

void model_set_process_name_weak(struct model *m, uint32_t proc, const char *name, size_t len)
{
    if (proc >= m->nprocs || !m->build || !len)
        return;
    /* interned even when unused, so that string ids do not depend on what came before */
    uint32_t id = model_intern(m, name, len);
    if (B(m)->proc_named[proc] & P_STRONG)
        return;
    m->procs[proc].name = id;
    B(m)->proc_named[proc] |= P_WEAK;
}

void model_move_lane(struct model *m, uint32_t lane, uint32_t proc)
{
    if (lane < m->nlanes && proc < m->nprocs && !m->finalized)
        m->lanes[lane].proc = proc;
}

void model_set_process_kind(struct model *m, uint32_t proc, enum lane_kind kind)
{
    if (proc >= m->nprocs)
        return;
    m->procs[proc].kind = kind;
    m->procs[proc].kind_set = true;
}

/* The process to change, NULL when out of range; while the model is being built, marked as
 * set by `what` (P_LABELS, P_SORT: model_append replays what was set). */
static struct proc *proc_setting(struct model *m, uint32_t proc, uint8_t what)
{
    if (proc >= m->nprocs)
        return NULL;
    if (m->build)
        B(m)->proc_named[proc] |= what;
    return &m->procs[proc];
}

/* The same for a lane (L_NAME, L_SORT). */
static struct lane *lane_setting(struct model *m, uint32_t lane, uint8_t what)
{
    if (lane >= m->nlanes)
        return NULL;
    if (m->build)
        B(m)->lane_set[lane] |= what;
    return &m->lanes[lane];
}

void model_set_process_labels(struct model *m, uint32_t proc, const char *labels, size_t len)
{
    struct proc *p = proc_setting(m, proc, P_LABELS);
    if (p)
        p->labels = model_intern(m, labels, len);
}

void model_set_process_sort(struct model *m, uint32_t proc, int64_t sort_index)
{
    struct proc *p = proc_setting(m, proc, P_SORT);
    if (p)
        p->sort_index = sort_index;
}

void model_set_thread_name(struct model *m, uint32_t lane, const char *name, size_t len)
{
    struct lane *l = lane_setting(m, lane, L_NAME);
    if (l)
        l->name = model_intern(m, name, len);
}

void model_set_thread_sort(struct model *m, uint32_t lane, int64_t sort_index)
{
    struct lane *l = lane_setting(m, lane, L_SORT);
    if (l)
        l->sort_index = sort_index;
}

/* Every slice column with room for cap slices; -1 when memory ran out (the columns already
 * moved stay valid, the capacity is unchanged). */
static int slices_resize(struct model *m, uint32_t cap)
{
#define RESIZE(field) do { void *np_ = model_realloc_big(m->field, (size_t)cap * sizeof *m->field); \
        if (!np_) \
            return -1; \
        m->field = np_; \
    } while (0)
    RESIZE(start); RESIZE(dur); RESIZE(name); RESIZE(cat); RESIZE(lane); RESIZE(file); RESIZE(off); RESIZE(len);
#undef RESIZE
    m->slices_cap = cap;
    return 0;
}

static int grow_slices(struct model *m)
{
    uint32_t cap = m->slices_cap < 256 ? 256 : m->slices_cap + m->slices_cap / 2;
    if (cap < m->slices_cap || cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    if (cap <= m->slices_cap)
        return -1;
    return slices_resize(m, cap);
}

int model_reserve(struct model *m, size_t slices, size_t points)
{
    struct build *b = B(m);
    if (!b)
        return -1;
    if (slices > UINT32_MAX - 1 - (size_t)m->nslices)
        slices = UINT32_MAX - 1 - (size_t)m->nslices;
    uint32_t cap = m->nslices + (uint32_t)slices;
    if (cap > m->slices_cap && slices_resize(m, cap) < 0)
        return -1;
    if (points && b->npts + points > b->pts_cap) {
        struct raw_point *np = model_realloc_big(b->pts, (b->npts + points) * sizeof *np);
        if (!np)
            return -1;
        b->pts = np;
        b->pts_cap = b->npts + points;
    }
    return 0;
}

uint32_t model_add_slice_ids(struct model *m, uint32_t lane, ns_t start, ns_t dur,
                             uint32_t name, uint32_t cat, uint32_t file, uint64_t off, uint32_t len)
{
    if (!m->build || m->oom || lane >= m->nlanes)
        return SLICE_NONE;
    if (m->nslices == m->slices_cap && grow_slices(m) < 0) {
        m->oom = true;
        return SLICE_NONE;
    }
    uint32_t i = m->nslices++;
    if (dur < 0)
        dur = 0;
    if (start > INT64_MAX - dur)   /* keep start + dur representable */
        dur = INT64_MAX - start;
    m->start[i] = start;
    m->dur[i] = dur;
    m->name[i] = name;
    m->cat[i] = cat;
    m->lane[i] = lane;
    m->file[i] = (uint8_t)(file > 255 ? 255 : file);
    m->off[i] = off;
    m->len[i] = len;
    return i;
}

uint32_t model_add_slice(struct model *m, uint32_t lane, ns_t start, ns_t dur,
                         const char *name, size_t name_len, const char *cat, size_t cat_len,
                         uint32_t file, uint64_t off, uint32_t len)
{
    uint32_t n = model_intern(m, name, name_len), c = model_intern(m, cat, cat_len);
    return model_add_slice_ids(m, lane, start, dur, n, c, file, off, len);
}

void model_add_flow_point_ids(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts, uint32_t cat,
                              uint32_t name, uint64_t id, bool id_is_str, bool bp_enclosing)
{
    struct build *b = B(m);
    if (!b || m->oom || lane >= m->nlanes)
        return;
    struct raw_point *np = model_grow(b->pts, &b->pts_cap, b->npts + 1, sizeof *np);
    if (!np || b->npts >= UINT32_MAX - 1) {
        m->oom = true;
        return;
    }
    b->pts = np;
    np[b->npts] = (struct raw_point){ .ts = ts, .id = id, .lane = lane, .cat = cat, .name = name,
        .ph = (uint8_t)ph, .id_is_str = id_is_str, .bp_e = bp_enclosing };
    b->npts++;
}

void model_add_flow_point(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts,
                          const char *cat, size_t cat_len, const char *name, size_t name_len,
                          uint64_t id, bool id_is_str, bool bp_enclosing)
{
    uint32_t c = model_intern(m, cat, cat_len), n = model_intern(m, name, name_len);
    model_add_flow_point_ids(m, lane, ph, ts, c, n, id, id_is_str, bp_enclosing);
}

void model_add_flow_direct(struct model *m, uint32_t cat, uint32_t src_build, uint32_t dst_build)
{
    struct build *b = B(m);
    struct direct_flow *nd = b ? model_push(m, b->direct, &b->direct_cap, b->ndirect + 1, sizeof *nd) : NULL;
    if (nd) {
        b->direct = nd;
        nd[b->ndirect++] = (struct direct_flow){ cat, src_build, dst_build };
    }
}

/* The counter track of (proc, interned series name), created when new; UINT32_MAX when
 * memory ran out. */
uint32_t model_counter_for(struct model *m, uint32_t proc, uint32_t name)
{
    struct build *b = B(m);
    uint64_t hk = (uint64_t)proc << 32 | name;
    uint32_t t = u64map_get(&b->counters, hk);
    if (t != UINT32_MAX)
        return t;
    if (m->ncounters == m->counters_cap) {
        uint32_t cap = m->counters_cap ? m->counters_cap * 2 : 16;
        struct counter_track *nc = grow_exact(m->counters, cap, sizeof *nc);
        if (!nc) {
            m->oom = true;
            return UINT32_MAX;
        }
        m->counters = nc;
        m->counters_cap = cap;
    }
    t = m->ncounters++;
    m->counters[t] = (struct counter_track){ .proc = proc, .name = name };
    if (u64map_put(&b->counters, hk, t) < 0) {
        m->oom = true;
        return UINT32_MAX;
    }
    return t;
}

/* Room for need samples, growing by doubling from 64 as single appends do. */
int model_counter_reserve(struct counter_track *c, size_t need)
{
    if (need <= c->cap)
        return 0;
    size_t cap = c->cap ? c->cap : 64;
    while (cap < need)
        cap *= 2;
    ns_t *nt = grow_exact(c->ts, cap, sizeof *nt);
    if (nt)
        c->ts = nt;
    double *nv = grow_exact(c->value, cap, sizeof *nv);
    if (nv)
        c->value = nv;
    if (!nt || !nv)
        return -1;
    c->cap = cap;
    return 0;
}

void model_add_counter(struct model *m, uint32_t proc, const char *series, size_t series_len, const char *unit,
                       ns_t ts, double value)
{
    struct build *b = B(m);
    if (!b || m->oom || proc >= m->nprocs)
        return;
    uint32_t t = model_counter_for(m, proc, model_intern(m, series, series_len));
    if (t == UINT32_MAX)
        return;
    struct counter_track *c = &m->counters[t];
    if (!c->unit && unit && *unit)
        c->unit = model_intern(m, unit, strlen(unit));
    if (c->n == c->cap && model_counter_reserve(c, c->n + 1) < 0) {
        m->oom = true;
        return;
    }
    c->ts[c->n] = ts;
    c->value[c->n] = value;
    c->n++;
}

void model_count_event(struct model *m, char ph)
{
    m->events++;
    m->events_by_ph[(unsigned char)ph & 127]++;
}

void model_set_slice_ids(struct model *m, uint32_t i, ns_t start, ns_t dur, uint32_t name, uint32_t cat,
                         uint32_t file, uint64_t off, uint32_t len)
{
    if (!m->build || i >= m->nslices)
        return;
    if (dur < 0)
        dur = 0;
    if (start > INT64_MAX - dur)
        dur = INT64_MAX - start;
    m->start[i] = start;
    m->dur[i] = dur;
    m->name[i] = name;
    m->cat[i] = cat;
    m->file[i] = (uint8_t)(file > 255 ? 255 : file);
    m->off[i] = off;
    m->len[i] = len;
}

void model_remove_slices(struct model *m, const uint32_t *idx, size_t n)
{
    if (!m->build || !n)
        return;
    uint32_t w = idx[0];
    size_t k = 0;
    for (uint32_t i = idx[0]; i < m->nslices; i++) {
        if (k < n && idx[k] == i) {
            k++;
            continue;
        }
        m->start[w] = m->start[i]; m->dur[w] = m->dur[i]; m->name[w] = m->name[i]; m->cat[w] = m->cat[i];
        m->lane[w] = m->lane[i]; m->file[w] = m->file[i]; m->off[w] = m->off[i]; m->len[w] = m->len[i];
        w++;
    }
    m->nslices = w;
}
/* --- moving to another clock ----------------------------------------------------------------- */

/* *p, an array of bytes bytes, made the model's own (a copy) when it lies in the cache
 * mapping, which is read-only; false when memory ran out. */
static bool own_array(struct model *m, void **p, size_t bytes)
{
    const char *c = *p, *base = m->mapped;
    if (!base || !c || c < base || c >= base + m->mapped_len)
        return true;
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return false;
    memcpy(copy, *p, bytes);
    *p = copy;
    return true;
}

bool model_shift(struct model *m, ns_t off)
{
    if (!m || !off)
        return true;
    /* a model read from the index cache is mapped read-only: the arrays written are copied */
    bool ok = own_array(m, (void **)&m->start, (size_t)m->nslices * sizeof *m->start)
              && own_array(m, (void **)&m->flows, m->nflows * sizeof *m->flows);
    for (uint32_t c = 0; ok && c < m->ncounters; c++)
        ok = own_array(m, (void **)&m->counters[c].ts, m->counters[c].n * sizeof(ns_t));
    if (!ok)
        return false;   /* times stay as they were */
    for (uint32_t i = 0; i < m->nslices; i++)
        m->start[i] += off;
    for (uint32_t c = 0; c < m->ncounters; c++)
        for (size_t i = 0; i < m->counters[c].n; i++)
            m->counters[c].ts[i] += off;
    for (size_t i = 0; i < m->nflows; i++) {
        if (m->flows[i].src_ts != NS_NONE)
            m->flows[i].src_ts += off;
        if (m->flows[i].dst_ts != NS_NONE)
            m->flows[i].dst_ts += off;
    }
    if (m->t_min != NS_NONE)
        m->t_min += off;
    if (m->t_max != NS_NONE)
        m->t_max += off;
    return true;
}
