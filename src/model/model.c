/* The indexed event model: building, finalize (sort, depth, prefix sums, flow binding) and
 * queries. See model.h for the contract. */
#include "model/model.h"
#include "model/hash.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_DEPTH 1024   /* beyond this, overlapping slices share the deepest row */

/* --- a small open-addressing map from 64-bit keys to 32-bit values ------------------ */

struct u64map {
    uint64_t *keys;
    uint32_t *vals;      /* value + 1; 0 = empty slot */
    uint32_t n, cap;
};

static uint32_t u64map_get(const struct u64map *h, uint64_t key)
{
    if (!h->cap)
        return UINT32_MAX;
    for (uint32_t i = (uint32_t)hash_mix64(key) & (h->cap - 1); h->vals[i]; i = (i + 1) & (h->cap - 1))
        if (h->keys[i] == key)
            return h->vals[i] - 1;
    return UINT32_MAX;
}

static int u64map_put(struct u64map *h, uint64_t key, uint32_t val)
{
    if ((h->n + 1) * 2 > h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        uint64_t *k = calloc(cap, sizeof *k);
        uint32_t *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
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

static void u64map_free(struct u64map *h)
{
    free(h->keys);
    free(h->vals);
    memset(h, 0, sizeof *h);
}

/* --- private building state --------------------------------------------------------- */

struct raw_point {
    ns_t ts;
    uint64_t id;
    uint32_t lane, cat, name, seq;
    uint8_t ph, id_is_str, bp_e;
};

struct direct_flow { uint32_t cat, src, dst; };

struct build {
    struct u64map procs;     /* pid key id -> proc */
    struct u64map lanes;     /* proc << 32 | tid key id -> lane */
    struct u64map counters;  /* proc << 32 | series id -> counter track */
    struct raw_point *pts;   size_t npts, pts_cap;
    uint32_t *ord;           /* finalize: pts in key order (group_points) */
    struct direct_flow *direct; size_t ndirect, direct_cap;
    uint8_t *proc_named;     /* P_* flags: which metadata was set (model_append replays them) */
    uint32_t proc_named_cap;
    uint8_t *lane_set;       /* L_* flags, one per lane */
    uint32_t lane_set_cap;
};

enum { P_STRONG = 1, P_WEAK = 2, P_LABELS = 4, P_SORT = 8 };
enum { L_NAME = 1, L_SORT = 2 };

static struct build *B(const struct model *m) { return m->build; }

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c += c / 2 + 16;
    void *np = realloc(p, c * elem);
    if (!np)
        return NULL;
    *cap = c;
    return np;
}

/* A zeroed array that is then read and written at random: calloc's fresh pages map the zero
 * page on a read and fault again on the write (flushing the other threads' TLBs); writing
 * the zeros first faults each page once. */
static void *zeroed(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* Large arrays: ask for transparent huge pages (fewer page faults on multi-GB captures). */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= (8u << 20)) {
        uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        if (e > a)
            madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
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

static void free_build(struct model *m)
{
    struct build *b = B(m);
    if (!b)
        return;
    u64map_free(&b->procs);
    u64map_free(&b->lanes);
    u64map_free(&b->counters);
    free(b->pts);
    free(b->ord);
    free(b->direct);
    free(b->proc_named);
    free(b->lane_set);
    free(b);
    m->build = NULL;
}

/* Frees an array unless it lies in the cache mapping (model_free unmaps that at once). */
static void release(const struct model *m, void *p)
{
    const char *c = p, *base = m->mapped;
    if (!base || c < base || c >= base + m->mapped_len)
        free(p);
}

static void free_slices(struct model *m)
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

void model_free(struct model *m)
{
    if (!m)
        return;
    free_build(m);
    free_slices(m);
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
        munmap(m->mapped, m->mapped_len);
    free(m);
}

static uint32_t intern(struct model *m, const char *s, size_t len)
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
    struct model_file *f = realloc(m->files, (m->nfiles + 1) * sizeof *f);
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
static uint32_t proc_for_key(struct model *m, uint32_t key)
{
    struct build *b = B(m);
    uint32_t p = u64map_get(&b->procs, key);
    if (p != UINT32_MAX)
        return p;
    if (m->nprocs == m->procs_cap) {
        uint32_t cap = m->procs_cap ? m->procs_cap * 2 : 16;
        struct proc *np = realloc(m->procs, cap * sizeof *np);
        uint8_t *nn = realloc(b->proc_named, cap);
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
    return proc_for_key(m, intern(m, pid, pid_len));
}

/* The lane of process p whose tid text is the interned string key, created when new. */
static uint32_t lane_for_key(struct model *m, uint32_t p, uint32_t key)
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
        struct lane *nl = realloc(m->lanes, cap * sizeof *nl);
        uint8_t *ns = realloc(b->lane_set, cap);
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
    return lane_for_key(m, p, intern(m, tid, tid_len));
}

void model_set_process_name(struct model *m, uint32_t proc, const char *name, size_t len)
{
    if (proc >= m->nprocs || !m->build)
        return;
    m->procs[proc].name = intern(m, name, len);
    B(m)->proc_named[proc] |= P_STRONG;
}

void model_set_process_name_weak(struct model *m, uint32_t proc, const char *name, size_t len)
{
    if (proc >= m->nprocs || !m->build || !len)
        return;
    /* interned even when unused, so that string ids do not depend on what came before */
    uint32_t id = intern(m, name, len);
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

void model_set_process_labels(struct model *m, uint32_t proc, const char *labels, size_t len)
{
    if (proc >= m->nprocs)
        return;
    m->procs[proc].labels = intern(m, labels, len);
    if (m->build)
        B(m)->proc_named[proc] |= P_LABELS;
}

void model_set_process_sort(struct model *m, uint32_t proc, int64_t sort_index)
{
    if (proc >= m->nprocs)
        return;
    m->procs[proc].sort_index = sort_index;
    if (m->build)
        B(m)->proc_named[proc] |= P_SORT;
}

void model_set_thread_name(struct model *m, uint32_t lane, const char *name, size_t len)
{
    if (lane >= m->nlanes)
        return;
    m->lanes[lane].name = intern(m, name, len);
    if (m->build)
        B(m)->lane_set[lane] |= L_NAME;
}

void model_set_thread_sort(struct model *m, uint32_t lane, int64_t sort_index)
{
    if (lane >= m->nlanes)
        return;
    m->lanes[lane].sort_index = sort_index;
    if (m->build)
        B(m)->lane_set[lane] |= L_SORT;
}

static int grow_slices(struct model *m)
{
    uint32_t cap = m->slices_cap < 256 ? 256 : m->slices_cap + m->slices_cap / 2;
    if (cap < m->slices_cap || cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    if (cap <= m->slices_cap)
        return -1;
#define GROW(field) do { void *np_ = realloc(m->field, (size_t)cap * sizeof *m->field); \
        if (!np_) \
            return -1; \
        m->field = np_; \
    } while (0)
    GROW(start); GROW(dur); GROW(name); GROW(cat); GROW(lane); GROW(file); GROW(off); GROW(len);
#undef GROW
    m->slices_cap = cap;
    return 0;
}

int model_reserve(struct model *m, size_t slices, size_t points)
{
    struct build *b = B(m);
    if (!b)
        return -1;
    if (slices > UINT32_MAX - 1 - (size_t)m->nslices)
        slices = UINT32_MAX - 1 - (size_t)m->nslices;
    uint32_t cap = m->nslices + (uint32_t)slices;
    if (cap > m->slices_cap) {
#define GROW(field) do { void *np_ = realloc(m->field, (size_t)cap * sizeof *m->field); \
        if (!np_) \
            return -1; \
        m->field = np_; \
    } while (0)
        GROW(start); GROW(dur); GROW(name); GROW(cat); GROW(lane); GROW(file); GROW(off); GROW(len);
#undef GROW
        m->slices_cap = cap;
    }
    if (points && b->npts + points > b->pts_cap) {
        struct raw_point *np = realloc(b->pts, (b->npts + points) * sizeof *np);
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
    uint32_t n = intern(m, name, name_len), c = intern(m, cat, cat_len);
    return model_add_slice_ids(m, lane, start, dur, n, c, file, off, len);
}

void model_add_flow_point_ids(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts, uint32_t cat,
                              uint32_t name, uint64_t id, bool id_is_str, bool bp_enclosing)
{
    struct build *b = B(m);
    if (!b || m->oom || lane >= m->nlanes)
        return;
    struct raw_point *np = grow(b->pts, &b->pts_cap, b->npts + 1, sizeof *np);
    if (!np || b->npts >= UINT32_MAX - 1) {
        m->oom = true;
        return;
    }
    b->pts = np;
    np[b->npts] = (struct raw_point){ .ts = ts, .id = id, .lane = lane, .cat = cat, .name = name,
        .seq = (uint32_t)b->npts, .ph = (uint8_t)ph, .id_is_str = id_is_str, .bp_e = bp_enclosing };
    b->npts++;
}

void model_add_flow_point(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts,
                          const char *cat, size_t cat_len, const char *name, size_t name_len,
                          uint64_t id, bool id_is_str, bool bp_enclosing)
{
    uint32_t c = intern(m, cat, cat_len), n = intern(m, name, name_len);
    model_add_flow_point_ids(m, lane, ph, ts, c, n, id, id_is_str, bp_enclosing);
}

void model_add_flow_direct(struct model *m, uint32_t cat, uint32_t src_build, uint32_t dst_build)
{
    struct build *b = B(m);
    if (!b || m->oom)
        return;
    struct direct_flow *nd = grow(b->direct, &b->direct_cap, b->ndirect + 1, sizeof *nd);
    if (!nd) {
        m->oom = true;
        return;
    }
    b->direct = nd;
    nd[b->ndirect++] = (struct direct_flow){ cat, src_build, dst_build };
}

/* The counter track of (proc, interned series name), created when new; UINT32_MAX when
 * memory ran out. */
static uint32_t counter_for(struct model *m, uint32_t proc, uint32_t name)
{
    struct build *b = B(m);
    uint64_t hk = (uint64_t)proc << 32 | name;
    uint32_t t = u64map_get(&b->counters, hk);
    if (t != UINT32_MAX)
        return t;
    if (m->ncounters == m->counters_cap) {
        uint32_t cap = m->counters_cap ? m->counters_cap * 2 : 16;
        struct counter_track *nc = realloc(m->counters, cap * sizeof *nc);
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
static int counter_reserve(struct counter_track *c, size_t need)
{
    if (need <= c->cap)
        return 0;
    size_t cap = c->cap ? c->cap : 64;
    while (cap < need)
        cap *= 2;
    ns_t *nt = realloc(c->ts, cap * sizeof *nt);
    if (nt)
        c->ts = nt;
    double *nv = realloc(c->value, cap * sizeof *nv);
    if (nv)
        c->value = nv;
    if (!nt || !nv)
        return -1;
    c->cap = cap;
    return 0;
}

void model_add_counter(struct model *m, uint32_t proc, const char *series, size_t series_len,
                       ns_t ts, double value)
{
    struct build *b = B(m);
    if (!b || m->oom || proc >= m->nprocs)
        return;
    uint32_t t = counter_for(m, proc, intern(m, series, series_len));
    if (t == UINT32_MAX)
        return;
    struct counter_track *c = &m->counters[t];
    if (c->n == c->cap && counter_reserve(c, c->n + 1) < 0) {
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

/* Grows one slice column of dst to cap and appends src's column (through map for ids), then
 * frees src's: one column at a time keeps the peak near the sum of both models. */
#define GROW_COL(col) do { void *np_ = realloc(dst->col, (size_t)cap * sizeof *dst->col); \
        if (!np_) \
            goto oom; \
        dst->col = np_; \
    } while (0)
#define APPEND_COL(col) do { GROW_COL(col); \
        memcpy(dst->col + first, src->col, (size_t)n2 * sizeof *dst->col); \
        free(src->col); \
        src->col = NULL; \
    } while (0)
#define APPEND_MAP(col, map) do { GROW_COL(col); \
        for (uint32_t i_ = 0; i_ < n2; i_++) \
            dst->col[first + i_] = (map)[src->col[i_]]; \
        free(src->col); \
        src->col = NULL; \
    } while (0)

/* flow points (and flows): fewer are grouped, bound, indexed or appended in a few ms on one
 * thread */
static size_t thread_min = 100000;

void model_set_thread_min(size_t n)
{
    thread_min = n;
}

struct pts_job {
    struct build *b, *sb;
    const uint32_t *smap, *lmap;
    uint32_t nstr, nlanes;
    int rc;
};

/* Appends src's flow points (pj->sb) to dst's with ids remapped and sequence numbers that
 * continue dst's, and frees src's. */
static void append_points(struct pts_job *pj)
{
    struct build *b = pj->b, *sb = pj->sb;
    if (!sb->npts)
        return;
    struct raw_point *np = grow(b->pts, &b->pts_cap, b->npts + sb->npts, sizeof *np);
    if (!np || b->npts + sb->npts >= UINT32_MAX - 1) {
        pj->rc = -1;
        return;
    }
    b->pts = np;
    for (size_t i = 0; i < sb->npts; i++) {
        struct raw_point q = sb->pts[i];
        q.lane = q.lane < pj->nlanes ? pj->lmap[q.lane] : LANE_NONE;
        q.cat = pj->smap[q.cat];
        q.name = pj->smap[q.name];
        if (q.id_is_str && q.id < pj->nstr)
            q.id = pj->smap[q.id];
        q.seq = (uint32_t)b->npts;
        np[b->npts++] = q;
    }
    free(sb->pts);
    sb->pts = NULL;
    sb->npts = sb->pts_cap = 0;
}

static void *append_points_main(void *arg)
{
    append_points(arg);
    return NULL;
}

uint32_t model_append(struct model *dst, struct model *src, uint32_t **str_map, uint32_t **lane_map)
{
    struct build *b = B(dst), *sb = B(src);
    uint32_t *smap = NULL, *pmap = NULL, *lmap = NULL;
    pthread_t th;
    bool threaded = false;
    if (str_map)
        *str_map = NULL;
    if (lane_map)
        *lane_map = NULL;
    if (!b || !sb) {
        dst->oom = true;
        return SLICE_NONE;
    }
    if (src->oom)
        dst->oom = true;
    uint32_t nstr = strtab_count(src->str);
    smap = malloc(((size_t)nstr + 1) * sizeof *smap);
    pmap = malloc(((size_t)src->nprocs + 1) * sizeof *pmap);
    lmap = malloc(((size_t)src->nlanes + 1) * sizeof *lmap);
    if (!smap || !pmap || !lmap)
        goto oom;
    /* strings in src's order: new ones get the ids they would have had */
    for (uint32_t id = 0; id < nstr; id++)
        smap[id] = intern(dst, strtab_get(src->str, id), strtab_len(src->str, id));
    for (uint32_t p2 = 0; p2 < src->nprocs; p2++) {
        const struct proc *sp = &src->procs[p2];
        uint32_t p = proc_for_key(dst, smap[sp->key]);
        if (dst->oom || p >= dst->nprocs)
            goto oom;
        pmap[p2] = p;
        uint8_t f = sb->proc_named[p2], *df = &b->proc_named[p];
        /* the last process_name wins; a weak name only counts while none was given */
        if ((f & P_STRONG) || ((f & P_WEAK) && !(*df & P_STRONG)))
            dst->procs[p].name = smap[sp->name];
        if (f & P_LABELS)
            dst->procs[p].labels = smap[sp->labels];
        if (f & P_SORT)
            dst->procs[p].sort_index = sp->sort_index;
        *df |= f;
    }
    for (uint32_t l2 = 0; l2 < src->nlanes; l2++) {
        const struct lane *sl = &src->lanes[l2];
        uint32_t l = lane_for_key(dst, pmap[sl->proc], smap[sl->key]);
        if (dst->oom || l >= dst->nlanes)
            goto oom;
        lmap[l2] = l;
        uint8_t f = sb->lane_set[l2];
        if (f & L_NAME)
            dst->lanes[l].name = smap[sl->name];
        if (f & L_SORT)
            dst->lanes[l].sort_index = sl->sort_index;
        b->lane_set[l] |= f;
    }
    /* flow points on a second thread while the slice columns are copied */
    struct pts_job pj = { b, sb, smap, lmap, nstr, src->nlanes, 0 };
    threaded = sb->npts >= thread_min && pthread_create(&th, NULL, append_points_main, &pj) == 0;
    if (!threaded)
        append_points(&pj);
    uint32_t first = dst->nslices, n2 = src->nslices;
    if ((uint64_t)first + n2 > UINT32_MAX - 1)
        goto oom;
    if (n2) {
        uint32_t cap = first + n2 > dst->slices_cap ? first + n2 : dst->slices_cap;
        APPEND_COL(start);
        APPEND_COL(dur);
        APPEND_MAP(name, smap);
        APPEND_MAP(cat, smap);
        APPEND_MAP(lane, lmap);
        APPEND_COL(file);
        APPEND_COL(off);
        APPEND_COL(len);
        dst->slices_cap = cap;
        dst->nslices = first + n2;
        src->nslices = src->slices_cap = 0;
    }
    if (threaded) {
        pthread_join(th, NULL);
        threaded = false;
    }
    if (pj.rc < 0)
        goto oom;
    for (size_t i = 0; i < sb->ndirect; i++) {
        struct direct_flow d = sb->direct[i];
        struct direct_flow *nd = grow(b->direct, &b->direct_cap, b->ndirect + 1, sizeof *nd);
        if (!nd)
            goto oom;
        b->direct = nd;
        nd[b->ndirect++] = (struct direct_flow){ smap[d.cat], d.src < n2 ? first + d.src : SLICE_NONE,
                                                 d.dst < n2 ? first + d.dst : SLICE_NONE };
    }
    for (uint32_t t2 = 0; t2 < src->ncounters; t2++) {
        struct counter_track *sc = &src->counters[t2];
        uint32_t t = counter_for(dst, pmap[sc->proc], smap[sc->name]);
        if (t == UINT32_MAX)
            goto oom;
        struct counter_track *c = &dst->counters[t];
        if (counter_reserve(c, c->n + sc->n) < 0)
            goto oom;
        memcpy(c->ts + c->n, sc->ts, sc->n * sizeof *c->ts);
        memcpy(c->value + c->n, sc->value, sc->n * sizeof *c->value);
        c->n += sc->n;
    }
    dst->events += src->events;
    for (int k = 0; k < 128; k++)
        dst->events_by_ph[k] += src->events_by_ph[k];
    dst->unknown_ph += src->unknown_ph;
    free(pmap);
    if (str_map)
        *str_map = smap;
    else
        free(smap);
    if (lane_map)
        *lane_map = lmap;
    else
        free(lmap);
    return first;
oom:
    if (threaded)
        pthread_join(th, NULL);
    dst->oom = true;
    free(smap);
    free(pmap);
    free(lmap);
    return SLICE_NONE;
}
#undef APPEND_COL
#undef APPEND_MAP
#undef GROW_COL

/* --- finalize ------------------------------------------------------------------------- */

struct skey { ns_t start; uint32_t idx; };

/* (start asc, dur desc, build order): parents come before the children they enclose. */
static inline bool skey_less(const struct model *m, struct skey a, struct skey b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (m->dur[a.idx] != m->dur[b.idx])
        return m->dur[a.idx] > m->dur[b.idx];
    return a.idx < b.idx;
}

static void merge_sort(const struct model *m, struct skey *a, struct skey *tmp, size_t n)
{
    if (n < 24) {
        for (size_t i = 1; i < n; i++) {
            struct skey k = a[i];
            size_t j = i;
            while (j > 0 && skey_less(m, k, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    size_t h = n / 2;
    merge_sort(m, a, tmp, h);
    merge_sort(m, a + h, tmp, n - h);
    if (!skey_less(m, a[h], a[h - 1]))
        return;   /* already in order: common for traces written in time order */
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = skey_less(m, a[j], tmp[i]) ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

struct lorder { int64_t psort, lsort; uint32_t pidx, lidx; };

static int cmp_lorder(const void *x, const void *y)
{
    const struct lorder *a = x, *b = y;
    if (a->psort != b->psort) return a->psort < b->psort ? -1 : 1;
    if (a->pidx != b->pidx) return a->pidx < b->pidx ? -1 : 1;
    if (a->lsort != b->lsort) return a->lsort < b->lsort ? -1 : 1;
    return a->lidx < b->lidx ? -1 : a->lidx > b->lidx;
}

static void empty_model(struct model *m)
{
    free_slices(m);
    for (uint32_t i = 0; i < m->nlanes; i++) {
        free(m->lanes[i].row_first);
        free(m->lanes[i].busy_prefix);
        m->lanes[i].row_first = NULL;
        m->lanes[i].busy_prefix = NULL;
        m->lanes[i].first = m->lanes[i].count = m->lanes[i].ndepth = 0;
    }
    free(m->flows); m->flows = NULL; m->nflows = m->flows_cap = 0;
    free(m->flows_by_src); m->flows_by_src = NULL; m->nflows_by_src = 0;
    free(m->flows_by_dst); m->flows_by_dst = NULL; m->nflows_by_dst = 0;
    free(m->build_to_final); m->build_to_final = NULL;
    for (uint32_t i = 0; i < m->ncounters; i++) {
        free(m->counters[i].ts);
        free(m->counters[i].value);
    }
    free(m->counters); m->counters = NULL; m->ncounters = m->counters_cap = 0;
    m->flows_matched = m->flows_unmatched = 0;
}

/* Puts lanes in display order and fills kinds and default names. */
static int order_lanes(struct model *m, const uint32_t *slices_per_lane)
{
    uint32_t n = m->nlanes;
    struct lorder *o = malloc((n ? n : 1) * sizeof *o);
    struct lane *nl = malloc((n ? n : 1) * sizeof *nl);
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    bool *has_slices = calloc(m->nprocs ? m->nprocs : 1, sizeof *has_slices);
    bool *has_counters = calloc(m->nprocs ? m->nprocs : 1, sizeof *has_counters);
    if (!o || !nl || !map || !ord || !has_slices || !has_counters) {
        free(o); free(nl); free(map); free(ord); free(has_slices); free(has_counters);
        return -1;
    }
    for (uint32_t i = 0; i < m->ncounters; i++)
        has_counters[m->counters[i].proc] = true;
    for (uint32_t i = 0; i < n; i++)
        if (slices_per_lane[i])
            has_slices[m->lanes[i].proc] = true;
    for (uint32_t p = 0; p < m->nprocs; p++) {
        struct proc *pr = &m->procs[p];
        if (!pr->kind_set)
            pr->kind = lane_kind_from_process_name(strtab_get(m->str, pr->name));
        if (pr->kind == LANE_OTHER && has_counters[p] && !has_slices[p])
            pr->kind = LANE_COUNTER;
        pr->first_lane = 0;
        pr->nlanes = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        o[i] = (struct lorder){ m->procs[m->lanes[i].proc].sort_index, m->lanes[i].sort_index,
                                m->lanes[i].proc, i };
    qsort(o, n, sizeof *o, cmp_lorder);
    for (uint32_t k = 0; k < n; k++) {
        struct lane l = m->lanes[o[k].lidx];
        struct proc *pr = &m->procs[l.proc];
        l.kind = pr->kind;
        if (!l.name) {
            char buf[300];
            const char *tid = strtab_get(m->str, l.key);
            snprintf(buf, sizeof buf, "%s %.280s", l.kind == LANE_DEVICE ? "Stream" : "Thread", tid);
            l.name = intern(m, buf, strlen(buf));
        }
        if (!pr->nlanes)
            pr->first_lane = k;
        pr->nlanes++;
        nl[k] = l;
        map[o[k].lidx] = k;
        ord[k] = k;
    }
    free(m->lanes);
    m->lanes = nl;
    m->lanes_cap = n;
    free(m->lane_build_to_final);
    m->lane_build_to_final = map;
    free(m->lane_order);
    m->lane_order = ord;
    free(o);
    free(has_slices);
    free(has_counters);
    return 0;
}

/* Applies perm (final -> build) to one 8/4/2/1-byte column through tmp. */
#define PERMUTE(col, type) do { type *t_ = (type *)tmp; \
        for (uint32_t k_ = 0; k_ < n; k_++) t_[k_] = m->col[perm[k_]]; \
        memcpy(m->col, t_, (size_t)n * sizeof(type)); } while (0)

static int finalize_slices(struct model *m)
{
    uint32_t n = m->nslices, nl = m->nlanes;
    uint32_t *cnt = calloc((size_t)nl + 1, sizeof *cnt);
    if (!cnt)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        cnt[m->lane[i]]++;
    if (order_lanes(m, cnt) < 0) {
        free(cnt);
        return -1;
    }
    /* counting sort by final lane */
    uint32_t *first = calloc((size_t)nl + 1, sizeof *first);
    uint32_t *perm = malloc(((size_t)n + 1) * sizeof *perm);
    uint16_t *depth = malloc(((size_t)n + 1) * sizeof *depth);
    void *tmp = malloc(((size_t)n + 1) * sizeof(ns_t));
    if (!first || !perm || !depth || !tmp)
        goto fail;
    advise_huge(tmp, (size_t)n * sizeof(ns_t));
    for (uint32_t b = 0; b < nl; b++)
        first[m->lane_build_to_final[b] + 1] = cnt[b];
    for (uint32_t l = 0; l < nl; l++)
        first[l + 1] += first[l];
    memcpy(cnt, first, (size_t)nl * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fl = m->lane_build_to_final[m->lane[i]];
        m->lane[i] = fl;
        perm[cnt[fl]++] = i;
    }
    /* per lane: sort by (start, -dur), depth with a stack, then stable order by depth */
    ns_t row_end[MAX_DEPTH];
    uint32_t stack[MAX_DEPTH];
    uint32_t dcount[MAX_DEPTH + 1];
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t a = first[l], e = first[l + 1], c = e - a;
        struct lane *ln = &m->lanes[l];
        ln->first = a;
        ln->count = c;
        if (!c) {
            ln->ndepth = 0;
            ln->row_first = calloc(1, sizeof *ln->row_first);
            if (!ln->row_first)
                goto fail;
            ln->row_first[0] = a;
            continue;
        }
        bool sorted = true;
        for (uint32_t k = a + 1; k < e && sorted; k++) {
            struct skey x = { m->start[perm[k - 1]], perm[k - 1] }, y = { m->start[perm[k]], perm[k] };
            sorted = skey_less(m, x, y);
        }
        if (!sorted) {
            struct skey *keys = malloc((size_t)c * sizeof *keys);
            struct skey *ktmp = malloc(((size_t)c / 2 + 1) * sizeof *ktmp);
            if (!keys || !ktmp) {
                free(keys);
                free(ktmp);
                goto fail;
            }
            for (uint32_t k = 0; k < c; k++)
                keys[k] = (struct skey){ m->start[perm[a + k]], perm[a + k] };
            merge_sort(m, keys, ktmp, c);
            for (uint32_t k = 0; k < c; k++)
                perm[a + k] = keys[k].idx;
            free(keys);
            free(ktmp);
        }
        uint32_t sp = 0, nd = 0;
        for (uint32_t k = a; k < e; k++) {
            uint32_t s = perm[k];
            ns_t st = m->start[s], en = st + m->dur[s];
            while (sp && model_end(m, stack[sp - 1]) <= st)
                sp--;
            uint32_t d = sp ? depth[stack[sp - 1]] + 1u : 0;
            while (d < nd && row_end[d] > st)
                d++;
            if (d >= MAX_DEPTH)
                d = MAX_DEPTH - 1;
            if (d >= nd) {
                for (uint32_t x = nd; x <= d; x++)
                    row_end[x] = INT64_MIN;
                nd = d + 1;
            }
            if (row_end[d] < en)
                row_end[d] = en;
            depth[s] = (uint16_t)d;
            if (sp < MAX_DEPTH && (!sp || depth[stack[sp - 1]] < d))
                stack[sp++] = s;
        }
        ln->ndepth = nd;
        ln->row_first = malloc(((size_t)nd + 1) * sizeof *ln->row_first);
        if (!ln->row_first)
            goto fail;
        memset(dcount, 0, ((size_t)nd + 1) * sizeof *dcount);
        for (uint32_t k = a; k < e; k++)
            dcount[depth[perm[k]] + 1]++;
        ln->row_first[0] = a;
        for (uint32_t d = 0; d < nd; d++)
            ln->row_first[d + 1] = ln->row_first[d] + dcount[d + 1];
        /* stable scatter by depth into tmp (as uint32), then back into perm */
        uint32_t *t32 = tmp;
        for (uint32_t d = 0; d < nd; d++)
            dcount[d] = ln->row_first[d] - a;
        for (uint32_t k = a; k < e; k++)
            t32[dcount[depth[perm[k]]]++] = perm[k];
        memcpy(perm + a, t32, (size_t)c * sizeof *perm);
    }
    /* build -> final map, then permute every column */
    free(m->build_to_final);
    m->build_to_final = malloc(((size_t)n + 1) * sizeof *m->build_to_final);
    if (!m->build_to_final)
        goto fail;
    for (uint32_t k = 0; k < n; k++)
        m->build_to_final[perm[k]] = k;
    {
        uint16_t *t16 = tmp;
        for (uint32_t k = 0; k < n; k++)
            t16[k] = depth[perm[k]];
        free(depth);
        depth = NULL;
        free(m->depth);
        m->depth = malloc(((size_t)n + 1) * sizeof *m->depth);
        if (!m->depth)
            goto fail;
        memcpy(m->depth, t16, (size_t)n * sizeof *m->depth);
    }
    PERMUTE(start, ns_t);
    PERMUTE(dur, ns_t);
    PERMUTE(name, uint32_t);
    PERMUTE(cat, uint32_t);
    PERMUTE(lane, uint32_t);
    PERMUTE(off, uint64_t);
    PERMUTE(len, uint32_t);
    PERMUTE(file, uint8_t);
    free(tmp);
    tmp = NULL;
    free(perm);
    perm = NULL;
    /* busy prefix sums on depth-0 rows */
    for (uint32_t l = 0; l < nl; l++) {
        struct lane *ln = &m->lanes[l];
        uint32_t r0 = ln->ndepth ? ln->row_first[1] - ln->row_first[0] : 0;
        ln->busy_prefix = malloc(((size_t)r0 + 1) * sizeof *ln->busy_prefix);
        if (!ln->busy_prefix)
            goto fail;
        ln->busy_prefix[0] = 0;
        /* unsigned: hostile spans may exceed int64 in sum; differences stay exact */
        for (uint32_t i = 0; i < r0; i++)
            ln->busy_prefix[i + 1] = (ns_t)((uint64_t)ln->busy_prefix[i] + (uint64_t)m->dur[ln->first + i]);
    }
    free(first);
    free(cnt);
    return 0;
fail:
    free(cnt);
    free(first);
    free(perm);
    free(depth);
    free(tmp);
    return -1;
}
#undef PERMUTE

static uint32_t slice_enclosing(const struct model *m, uint32_t lane, ns_t t);
static bool contains(const struct model *m, uint32_t s, ns_t t);
static uint32_t slice_next_at(const struct model *m, uint32_t lane, ns_t t);

static int ph_rank(uint8_t ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; }

static int cmp_point(const void *x, const void *y)
{
    const struct raw_point *a = x, *b = y;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    if (a->id_is_str != b->id_is_str) return a->id_is_str < b->id_is_str ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (ph_rank(a->ph) != ph_rank(b->ph)) return ph_rank(a->ph) - ph_rank(b->ph);
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* First i in [a, b) with start[i] > t, searched outward from a hint (the previous answer in
 * this row): flow points come in nearly increasing time, so this touches few cache lines
 * where a plain binary search over a million-slice row would miss on every step. */
static uint32_t gallop_after(const struct model *m, uint32_t a, uint32_t b, ns_t t, uint32_t h)
{
    uint32_t lo = a, hi = b, step = 1;   /* the answer is in [lo, hi] */
    if (h < a || h > b)
        h = a;
    if (h < b && m->start[h] <= t) {
        lo = h + 1;   /* forward: everything before lo is <= t */
        for (;;) {
            uint32_t p = b - lo >= step ? lo + step - 1 : b;
            if (p >= b) {
                hi = b;
                break;
            }
            if (m->start[p] > t) {
                hi = p;
                break;
            }
            lo = p + 1;
            step *= 2;
        }
    } else {
        hi = h;       /* backward: start[hi] > t or hi == b */
        lo = a;
        while (hi > a) {
            uint32_t p = hi - a > step ? hi - step : a;
            if (m->start[p] > t) {
                hi = p;
                step *= 2;
            } else {
                lo = p + 1;
                break;
            }
        }
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

struct binder { uint32_t *row_base, *hint; };

static uint32_t slice_enclosing_hint(const struct model *m, uint32_t lane, ns_t t, const struct binder *bd)
{
    const struct lane *l = &m->lanes[lane];
    uint32_t *hint = bd->hint + bd->row_base[lane];
    for (uint32_t d = l->ndepth; d-- > 0;) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = gallop_after(m, a, b, t, hint[d]);
        hint[d] = i;
        if (i > a && contains(m, i - 1, t))
            return i - 1;
    }
    return SLICE_NONE;
}

static uint32_t bind_point(const struct model *m, const struct raw_point *p, const struct binder *bd)
{
    if (p->lane >= m->nlanes || !m->lanes[p->lane].row_first)
        return SLICE_NONE;
    if (p->ph == 'f' && !p->bp_e)
        return slice_next_at(m, p->lane, p->ts);
    if (bd)
        return slice_enclosing_hint(m, p->lane, p->ts, bd);
    return slice_enclosing(m, p->lane, p->ts);
}

static struct flow make_flow(const struct model *m, const struct raw_point *s, const struct raw_point *f,
                             const struct binder *bd)
{
    const struct raw_point *any = s ? s : f;
    struct flow fl = { .cat = any->cat, .name = any->name, .id = any->id, .id_is_str = any->id_is_str,
                       .src = SLICE_NONE, .dst = SLICE_NONE, .src_lane = LANE_NONE, .dst_lane = LANE_NONE,
                       .src_ts = NS_NONE, .dst_ts = NS_NONE };
    if (s) {
        fl.src = bind_point(m, s, bd);
        fl.src_lane = s->lane;
        fl.src_ts = s->ts;
    }
    if (f) {
        fl.dst = bind_point(m, f, bd);
        fl.dst_lane = f->lane;
        fl.dst_ts = f->ts;
    }
    return fl;
}

static uint64_t point_hash(const struct raw_point *p)
{
    return hash_mix64(p->id ^ ((uint64_t)p->cat << 32) ^ ((uint64_t)p->id_is_str << 31));
}

static bool same_key(const struct raw_point *a, const struct raw_point *b)
{
    return a->cat == b->cat && a->id == b->id && a->id_is_str == b->id_is_str;
}

static int cmp_point_at(const void *x, const void *y, void *ctx)
{
    const struct raw_point *pts = ctx;
    return cmp_point(&pts[*(const uint32_t *)x], &pts[*(const uint32_t *)y]);
}

/* Orders the flow points (b->ord, an index into b->pts) so that each (cat, id) key's points
 * are contiguous (keys in order of first appearance) and, within a key, in (ts, s/t/f, file)
 * order. A hash grouping and a counting sort: linear, where sorting all points by key was the
 * slowest part of finalize; indices rather than moved points keep the memory touched small. */
static int group_points(struct build *b)
{
    size_t np = b->npts, nslots = 64;
    while (nslots < np * 2)
        nslots *= 2;
    uint32_t *slot = zeroed(nslots * sizeof *slot);      /* first point of a key + 1 */
    uint32_t *grp = malloc(np * sizeof *grp);
    uint32_t *gfirst = malloc((np + 1) * sizeof *gfirst);  /* per group: count, then offset */
    uint32_t *ord = malloc(np * sizeof *ord);
    if (!slot || !grp || !gfirst || !ord) {
        free(slot); free(grp); free(gfirst); free(ord);
        return -1;
    }
    uint32_t ng = 0;
    /* hashes first, so the probe loop can prefetch slots a few points ahead (the table is
     * far larger than the caches on big captures) */
    for (size_t i = 0; i < np; i++)
        grp[i] = (uint32_t)point_hash(&b->pts[i]);
    for (size_t i = 0; i < np; i++) {
#if defined(__GNUC__)
        if (i + 16 < np)
            __builtin_prefetch(&slot[grp[i + 16] & (nslots - 1)]);
#endif
        size_t h = grp[i] & (nslots - 1);
        while (slot[h] && !same_key(&b->pts[slot[h] - 1], &b->pts[i]))
            h = (h + 1) & (nslots - 1);
        if (!slot[h]) {
            slot[h] = (uint32_t)i + 1;
            grp[i] = ng;
            gfirst[ng++] = 0;
        } else {
            grp[i] = grp[slot[h] - 1];
        }
        gfirst[grp[i]]++;
    }
    free(slot);
    uint32_t off = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t c = gfirst[g];
        gfirst[g] = off;
        off += c;
    }
    gfirst[ng] = off;
    for (size_t i = 0; i < np; i++)
        ord[gfirst[grp[i]]++] = (uint32_t)i;
    free(grp);
    /* gfirst[g] is now the end of group g; sort each small group in place */
    uint32_t start = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t end = gfirst[g];
        if (end - start > 16) {
            qsort_r(ord + start, end - start, sizeof *ord, cmp_point_at, b->pts);
        } else {
            for (uint32_t i = start + 1; i < end; i++) {
                uint32_t k = ord[i], j = i;
                while (j > start && cmp_point(&b->pts[k], &b->pts[ord[j - 1]]) < 0) {
                    ord[j] = ord[j - 1];
                    j--;
                }
                ord[j] = k;
            }
        }
        start = end;
    }
    free(gfirst);
    free(b->ord);
    b->ord = ord;
    return 0;
}

/* idx[k] = indices of flows with a bound end, ordered by that end's slice (counting sort). */
static int index_flows(struct model *m, bool dst, uint32_t **idx, size_t *n)
{
    uint32_t *cnt = zeroed(((size_t)m->nslices + 1) * sizeof *cnt);
    size_t total = 0;
    if (!cnt)
        return -1;
    for (size_t i = 0; i < m->nflows; i++) {
        uint32_t s = dst ? m->flows[i].dst : m->flows[i].src;
        if (s < m->nslices) {
            cnt[s + 1]++;
            total++;
        }
    }
    uint32_t *out = malloc(total * sizeof *out + 4);
    if (!out) {
        free(cnt);
        return -1;
    }
    for (uint32_t s = 0; s < m->nslices; s++)
        cnt[s + 1] += cnt[s];
    for (size_t i = 0; i < m->nflows; i++) {
        uint32_t s = dst ? m->flows[i].dst : m->flows[i].src;
        if (s < m->nslices)
            out[cnt[s]++] = (uint32_t)i;
    }
    free(cnt);
    *idx = out;
    *n = total;
    return 0;
}

/* Pairs and binds the flows of the key groups starting in points [g0, g1) (of b->ord order),
 * writing them from out on: one per f point (with its key's s) and one per s no f took. */
struct bind_job {
    const struct model *m;
    struct build *b;
    size_t g0, g1;
    struct flow *out;
    size_t nout, matched;
    int rc;
};

static void bind_groups(struct bind_job *j)
{
    const struct model *m = j->m;
    struct build *b = j->b;
    const uint32_t *ord = b->ord;
    /* per-row hints: each job its own (flow points come in nearly increasing time) */
    struct binder binder = { calloc((size_t)m->nlanes + 1, sizeof(uint32_t)), NULL };
    const struct binder *bd = NULL;
    if (binder.row_base) {
        uint32_t rows = 0;
        for (uint32_t l = 0; l < m->nlanes; l++) {
            binder.row_base[l] = rows;
            rows += m->lanes[l].ndepth;
        }
        binder.hint = calloc((size_t)rows + 1, sizeof(uint32_t));
        for (uint32_t l = 0; binder.hint && l < m->nlanes; l++)
            for (uint32_t d = 0; d < m->lanes[l].ndepth; d++)
                binder.hint[binder.row_base[l] + d] = m->lanes[l].row_first[d];
        if (binder.hint)
            bd = &binder;
    }
#define PT(k) (&b->pts[ord ? ord[k] : (k)])
    for (size_t g = j->g0; g < j->g1;) {
        size_t e = g + 1;
        while (e < j->g1 && same_key(PT(e), PT(g)))
            e++;
        for (size_t i = g; i < e; i++)   /* lanes as finalized (here: on this job's thread) */
            PT(i)->lane = PT(i)->lane < m->nlanes ? m->lane_build_to_final[PT(i)->lane] : LANE_NONE;
        /* within the key: time order, s before t before f at equal times */
        /* a step point (ph "t") binds like an end (the slice enclosing it) and starts the
         * chain's next segment: s -> t -> ... -> f is one flow per segment */
        size_t first_s = SIZE_MAX, ns = 0, nf = 0;
        for (size_t i = g; i < e; i++) {
            if (PT(i)->ph == 's') {
                ns++;
                if (first_s == SIZE_MAX)
                    first_s = i;
            } else if (PT(i)->ph == 'f' || PT(i)->ph == 't') {
                nf++;
            }
        }
        if (ns && nf)
            j->matched++;
        size_t last_s = SIZE_MAX;
        for (size_t i = g; i < e; i++) {
            const struct raw_point *p = PT(i);
            if (p->ph == 's') {
                last_s = i;
            } else if (p->ph == 'f' || p->ph == 't') {
                size_t si = last_s != SIZE_MAX ? last_s : first_s;
                j->out[j->nout++] = make_flow(m, si != SIZE_MAX ? PT(si) : NULL, p, bd);
                if (si != SIZE_MAX)
                    PT(si)->bp_e |= 2;   /* mark the s as used */
                if (p->ph == 't') {
                    PT(i)->bp_e |= 2;    /* a step is never an unpaired start */
                    last_s = i;
                }
            }
        }
        for (size_t i = g; i < e; i++)
            if (PT(i)->ph == 's' && !(PT(i)->bp_e & 2))
                j->out[j->nout++] = make_flow(m, PT(i), NULL, bd);
        g = e;
    }
#undef PT
    free(binder.row_base);
    free(binder.hint);
}

static void *bind_main(void *arg)
{
    bind_groups(arg);
    return NULL;
}

struct index_job { struct model *m; bool dst; uint32_t **idx; size_t *n; int rc; };

static void *index_main(void *arg)
{
    struct index_job *j = arg;
    j->rc = index_flows(j->m, j->dst, j->idx, j->n);
    return NULL;
}

/* grouped: group_points already ran (on another thread, while the slices were sorted) */
static int finalize_flows(struct model *m, bool grouped)
{
    struct build *b = B(m);
    size_t np = b->npts;
    if (!grouped && np > 1 && group_points(b) < 0)
        return -1;
    /* at most one flow per point plus one per direct flow */
    size_t cap = np + b->ndirect + 1;
    m->flows = malloc(cap * sizeof *m->flows);
    if (!m->flows)
        return -1;
    m->flows_cap = cap;
    /* two halves at a key boundary; the second writes from its first point's index on, where
     * the first half's flows (at most one per point) cannot reach, and is moved down after */
    struct bind_job job[2] = { { m, b, 0, np, m->flows, 0, 0, 0 }, { m, b, np, np, NULL, 0, 0, 0 } };
    pthread_t th;
    bool threaded = false;
    if (np >= thread_min && np > 1 && b->ord) {
        size_t h = np / 2;
        while (h < np && same_key(&b->pts[b->ord[h]], &b->pts[b->ord[h - 1]]))
            h++;
        job[0].g1 = job[1].g0 = h;
        job[1].out = m->flows + h;
        threaded = pthread_create(&th, NULL, bind_main, &job[1]) == 0;
        if (!threaded)
            job[0].g1 = np;
    }
    bind_groups(&job[0]);
    if (threaded) {
        pthread_join(th, NULL);
        memmove(m->flows + job[0].nout, job[1].out, job[1].nout * sizeof *m->flows);
    }
    m->nflows = job[0].nout + job[1].nout;
    m->flows_matched = job[0].matched + job[1].matched;
    for (size_t j = 0; j < b->ndirect; j++) {
        struct direct_flow *d = &b->direct[j];
        uint32_t s = d->src < m->nslices ? m->build_to_final[d->src] : SLICE_NONE;
        uint32_t t = d->dst < m->nslices ? m->build_to_final[d->dst] : SLICE_NONE;
        m->flows[m->nflows++] = (struct flow){ .cat = d->cat, .id = j, .src = s, .dst = t,
            .src_lane = s != SLICE_NONE ? m->lane[s] : LANE_NONE, .dst_lane = t != SLICE_NONE ? m->lane[t] : LANE_NONE,
            .src_ts = s != SLICE_NONE ? m->start[s] : NS_NONE, .dst_ts = t != SLICE_NONE ? m->start[t] : NS_NONE };
        if (s != SLICE_NONE && t != SLICE_NONE)
            m->flows_matched++;
    }
    struct flow *fit = realloc(m->flows, (m->nflows + 1) * sizeof *m->flows);
    if (fit) {
        m->flows = fit;
        m->flows_cap = m->nflows;
    }
    m->flows_unmatched = 0;
    for (size_t i = 0; i < m->nflows; i++)
        m->flows_unmatched += m->flows[i].src == SLICE_NONE || m->flows[i].dst == SLICE_NONE;
    /* the two indexes are independent: the second on a thread when large */
    struct index_job ij = { m, true, &m->flows_by_dst, &m->nflows_by_dst, 0 };
    threaded = m->nflows >= thread_min && pthread_create(&th, NULL, index_main, &ij) == 0;
    int rc = index_flows(m, false, &m->flows_by_src, &m->nflows_by_src);
    if (threaded)
        pthread_join(th, NULL);
    else
        ij.rc = index_flows(m, true, &m->flows_by_dst, &m->nflows_by_dst);
    return rc < 0 || ij.rc < 0 ? -1 : 0;
}

struct cpair { ns_t ts; double v; size_t seq; };

static int cmp_cpair(const void *x, const void *y)
{
    const struct cpair *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int finalize_counters(struct model *m)
{
    for (uint32_t i = 0; i < m->ncounters; i++) {
        struct counter_track *c = &m->counters[i];
        bool sorted = true;
        for (size_t k = 1; k < c->n && sorted; k++)
            sorted = c->ts[k - 1] <= c->ts[k];
        if (sorted)
            continue;
        struct cpair *p = malloc(c->n * sizeof *p);
        if (!p)
            return -1;
        for (size_t k = 0; k < c->n; k++)
            p[k] = (struct cpair){ c->ts[k], c->value[k], k };
        qsort(p, c->n, sizeof *p, cmp_cpair);
        for (size_t k = 0; k < c->n; k++) {
            c->ts[k] = p[k].ts;
            c->value[k] = p[k].v;
        }
        free(p);
    }
    return 0;
}

static void span(struct model *m, ns_t a, ns_t b)
{
    if (a == NS_NONE)
        return;
    if (m->t_min == NS_NONE || a < m->t_min)
        m->t_min = a;
    if (m->t_max == NS_NONE || b > m->t_max)
        m->t_max = b;
}

static void shrink_columns(struct model *m)
{
    size_t n = m->nslices ? m->nslices : 1;
#define SHRINK(f) do { void *p_ = realloc(m->f, n * sizeof *m->f); if (p_) m->f = p_; } while (0)
    SHRINK(start); SHRINK(dur); SHRINK(name); SHRINK(cat); SHRINK(lane); SHRINK(file); SHRINK(off); SHRINK(len);
#undef SHRINK
    m->slices_cap = m->nslices;
}

struct group_job { struct build *b; int rc; };

static void *group_main(void *arg)
{
    struct group_job *job = arg;
    job->rc = job->b->npts > 1 ? group_points(job->b) : 0;
    return NULL;
}

int model_finalize(struct model *m)
{
    if (m->finalized)
        return 0;
    int rc = 0;
    if (!m->build || m->oom) {
        rc = -1;
    } else {
        shrink_columns(m);
        /* grouping flow points needs nothing from the slices: on a second thread when large */
        struct group_job job = { B(m), 0 };
        pthread_t th;
        bool threaded = job.b->npts >= thread_min && pthread_create(&th, NULL, group_main, &job) == 0;
        if (finalize_slices(m) < 0)
            rc = -1;
        if (threaded) {
            pthread_join(th, NULL);
            if (job.rc < 0)
                rc = -1;
        }
        if (rc == 0 && (finalize_flows(m, threaded) < 0 || finalize_counters(m) < 0))
            rc = -1;
    }
    if (rc < 0) {
        empty_model(m);
        if (!m->lane_build_to_final || !m->lane_order) {
            /* lanes were not reordered: keep them as they are, each with no slices */
            free(m->lane_build_to_final);
            free(m->lane_order);
            m->lane_build_to_final = calloc(m->nlanes + 1, sizeof(uint32_t));
            m->lane_order = calloc(m->nlanes + 1, sizeof(uint32_t));
            for (uint32_t i = 0; m->lane_order && m->lane_build_to_final && i < m->nlanes; i++)
                m->lane_order[i] = m->lane_build_to_final[i] = i;
        }
        for (uint32_t i = 0; i < m->nlanes; i++) {
            m->lanes[i].row_first = calloc(1, sizeof(uint32_t));
            m->lanes[i].busy_prefix = calloc(1, sizeof(ns_t));
        }
        for (uint32_t p = 0; p < m->nprocs; p++)
            m->procs[p].first_lane = m->procs[p].nlanes = 0;
        for (uint32_t i = 0; i < m->nlanes; i++) {
            struct proc *pr = &m->procs[m->lanes[i].proc];
            if (!pr->nlanes)
                pr->first_lane = i;
            pr->nlanes++;
        }
    }
    m->t_min = m->t_max = NS_NONE;
    for (uint32_t i = 0; i < m->nslices; i++)
        span(m, m->start[i], model_end(m, i));
    for (uint32_t i = 0; i < m->ncounters; i++)
        if (m->counters[i].n)
            span(m, m->counters[i].ts[0], m->counters[i].ts[m->counters[i].n - 1]);
    for (size_t i = 0; i < m->nflows; i++) {
        span(m, m->flows[i].src_ts, m->flows[i].src_ts);
        span(m, m->flows[i].dst_ts, m->flows[i].dst_ts);
    }
    free_build(m);
    m->finalized = true;
    return rc;
}

uint32_t model_build_to_final(const struct model *m, uint32_t build_index)
{
    if (!m->build_to_final || build_index >= m->nslices)
        return SLICE_NONE;
    return m->build_to_final[build_index];
}

uint32_t model_lane_build_to_final(const struct model *m, uint32_t build_lane)
{
    if (!m->lane_build_to_final || build_lane >= m->nlanes)
        return LANE_NONE;
    return m->lane_build_to_final[build_lane];
}

/* --- queries ---------------------------------------------------------------------------- */

/* First i in [a, b) with start[i] >= t (rows are sorted by start). */
static uint32_t lb_start(const struct model *m, uint32_t a, uint32_t b, ns_t t)
{
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (m->start[mid] < t)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* First i in [a, b) that reaches into [t, ...): end > t, or starts at or after t (zero-length). */
static uint32_t lb_end(const struct model *m, uint32_t a, uint32_t b, ns_t t)
{
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (model_end(m, mid) > t || m->start[mid] >= t)
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}

static bool contains(const struct model *m, uint32_t s, ns_t t)
{
    return m->start[s] <= t && (t < model_end(m, s) || (m->dur[s] == 0 && m->start[s] == t));
}

static uint32_t slice_enclosing(const struct model *m, uint32_t lane, ns_t t)
{
    if (lane >= m->nlanes || !m->lanes[lane].row_first)
        return SLICE_NONE;
    const struct lane *l = &m->lanes[lane];
    for (uint32_t d = l->ndepth; d-- > 0;) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = lb_start(m, a, b, t == INT64_MAX ? t : t + 1);   /* first start > t */
        if (i > a && contains(m, i - 1, t))
            return i - 1;
    }
    return SLICE_NONE;
}

static uint32_t slice_next_at(const struct model *m, uint32_t lane, ns_t t)
{
    if (lane >= m->nlanes || !m->lanes[lane].row_first)
        return SLICE_NONE;
    const struct lane *l = &m->lanes[lane];
    uint32_t best = SLICE_NONE;
    for (uint32_t d = 0; d < l->ndepth; d++) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = lb_start(m, a, b, t);
        if (i < b && (best == SLICE_NONE || m->start[i] < m->start[best]))
            best = i;
    }
    return best;
}

const char *model_lane_label(const struct model *m, uint32_t lane, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (lane >= m->nlanes) {
        buf[0] = 0;
        return buf;
    }
    const struct lane *l = &m->lanes[lane];
    snprintf(buf, size, "%s \xe2\x96\xb8 %s", model_str(m, m->procs[l->proc].name), model_str(m, l->name));
    return buf;
}

void model_row_range(const struct model *m, uint32_t lane, uint32_t depth, ns_t t0, ns_t t1,
                     uint32_t *first, uint32_t *last)
{
    *first = *last = 0;
    if (lane >= m->nlanes || !m->lanes[lane].row_first || depth >= m->lanes[lane].ndepth || t0 >= t1)
        return;
    const struct lane *l = &m->lanes[lane];
    uint32_t a = l->row_first[depth], b = l->row_first[depth + 1];
    uint32_t lo = lb_end(m, a, b, t0);
    uint32_t hi = lb_start(m, lo, b, t1);
    *first = lo;
    *last = hi;
}

ns_t model_busy(const struct model *m, uint32_t lane, ns_t t0, ns_t t1)
{
    if (lane >= m->nlanes || !m->lanes[lane].ndepth || t0 >= t1)
        return 0;
    const struct lane *l = &m->lanes[lane];
    uint32_t a = l->row_first[0], b = l->row_first[1];
    uint32_t lo = lb_end(m, a, b, t0), hi = lb_start(m, lo, b, t1);
    if (lo >= hi)
        return 0;
    uint64_t busy = (uint64_t)l->busy_prefix[hi - a] - (uint64_t)l->busy_prefix[lo - a];
    if (m->start[lo] < t0)
        busy -= (uint64_t)t0 - (uint64_t)m->start[lo];
    ns_t e = model_end(m, hi - 1);
    if (e > t1)
        busy -= (uint64_t)e - (uint64_t)t1;
    return busy > (uint64_t)INT64_MAX ? INT64_MAX : (ns_t)busy;
}

uint32_t model_slice_at(const struct model *m, uint32_t lane, ns_t t)
{
    return slice_enclosing(m, lane, t);
}

static void row_of(const struct model *m, uint32_t s, uint32_t *a, uint32_t *b)
{
    const struct lane *l = &m->lanes[m->lane[s]];
    *a = l->row_first[m->depth[s]];
    *b = l->row_first[m->depth[s] + 1];
}

uint32_t model_next_in_row(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return SLICE_NONE;
    uint32_t a, b;
    row_of(m, s, &a, &b);
    return s + 1 < b ? s + 1 : SLICE_NONE;
}

uint32_t model_prev_in_row(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return SLICE_NONE;
    uint32_t a, b;
    row_of(m, s, &a, &b);
    return s > a ? s - 1 : SLICE_NONE;
}

uint32_t model_parent(const struct model *m, uint32_t s)
{
    if (s >= m->nslices || !m->depth[s])
        return SLICE_NONE;
    const struct lane *l = &m->lanes[m->lane[s]];
    uint32_t d = m->depth[s] - 1u;
    uint32_t a = l->row_first[d], b = l->row_first[d + 1];
    ns_t st = m->start[s];
    uint32_t i = lb_start(m, a, b, st == INT64_MAX ? st : st + 1);
    if (i > a && m->start[i - 1] <= st && model_end(m, i - 1) >= model_end(m, s))
        return i - 1;
    return SLICE_NONE;
}

ns_t model_self(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return 0;
    const struct lane *l = &m->lanes[m->lane[s]];
    uint32_t d = m->depth[s] + 1u;
    ns_t self = m->dur[s];
    if (d >= l->ndepth)
        return self;
    ns_t st = m->start[s], en = model_end(m, s);
    uint32_t a = l->row_first[d], b = l->row_first[d + 1];
    for (uint32_t i = lb_end(m, a, b, st); i < b && m->start[i] < en; i++) {
        ns_t cs = m->start[i] > st ? m->start[i] : st;
        ns_t ce = model_end(m, i) < en ? model_end(m, i) : en;
        if (ce > cs)
            self -= ce - cs;
    }
    return self > 0 ? self : 0;
}

static size_t flows_touching(const struct model *m, const uint32_t *idx, size_t n, bool dst,
                             uint32_t s, const uint32_t **out)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        uint32_t v = dst ? m->flows[idx[mid]].dst : m->flows[idx[mid]].src;
        if (v < s)
            a = mid + 1;
        else
            b = mid;
    }
    size_t e = a;
    while (e < n && (dst ? m->flows[idx[e]].dst : m->flows[idx[e]].src) == s)
        e++;
    *out = idx ? idx + a : NULL;
    return e - a;
}

size_t model_flows_from(const struct model *m, uint32_t s, const uint32_t **out)
{
    return flows_touching(m, m->flows_by_src, m->nflows_by_src, false, s, out);
}

size_t model_flows_to(const struct model *m, uint32_t s, const uint32_t **out)
{
    return flows_touching(m, m->flows_by_dst, m->nflows_by_dst, true, s, out);
}

size_t model_flows_matched_cat(const struct model *m, uint32_t cat)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nflows;) {
        size_t e = i + 1;
        while (e < m->nflows && m->flows[e].cat == m->flows[i].cat && m->flows[e].id == m->flows[i].id &&
               m->flows[e].id_is_str == m->flows[i].id_is_str)
            e++;
        if (m->flows[i].cat == cat) {
            bool both = false;
            for (size_t k = i; k < e; k++)
                both |= m->flows[k].src_ts != NS_NONE && m->flows[k].dst_ts != NS_NONE;
            n += both;
        }
        i = e;
    }
    return n;
}

uint32_t model_find_lane(const struct model *m, const char *proc_name, const char *thread_name)
{
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        if (!strcmp(model_str(m, m->procs[l->proc].name), proc_name) &&
            !strcmp(model_str(m, l->name), thread_name))
            return i;
    }
    return LANE_NONE;
}

/* by total descending, then name id for a stable order */
static int cmp_agg(const void *x, const void *y)
{
    const struct agg_row *a = x, *b = y;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

struct agg_row *model_aggregate(const struct model *m, const uint32_t *lanes, size_t nlanes,
                                enum lane_kind kind, ns_t t0, ns_t t1, size_t *n)
{
    struct u64map idx = { 0 };
    struct agg_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    *n = 0;
    size_t nl = lanes ? nlanes : m->nlanes;
    for (size_t li = 0; li < nl; li++) {
        uint32_t lane = lanes ? lanes[li] : (uint32_t)li;
        if (lane >= m->nlanes || !m->lanes[lane].row_first)
            continue;
        const struct lane *l = &m->lanes[lane];
        if (!lanes && kind != LANE_OTHER && l->kind != kind)
            continue;
        for (uint32_t d = 0; d < l->ndepth; d++) {
            uint32_t a = l->row_first[d], b = l->row_first[d + 1];
            for (uint32_t s = lb_start(m, a, b, t0); s < b && m->start[s] < t1; s++) {
                uint32_t r = u64map_get(&idx, m->name[s]);
                if (r == UINT32_MAX) {
                    struct agg_row *nr = grow(rows, &cap, nrows + 1, sizeof *rows);
                    if (!nr || u64map_put(&idx, m->name[s], (uint32_t)nrows) < 0) {
                        free(nr ? nr : rows);
                        u64map_free(&idx);
                        return NULL;
                    }
                    rows = nr;
                    r = (uint32_t)nrows++;
                    rows[r] = (struct agg_row){ .name = m->name[s], .min = INT64_MAX, .max = INT64_MIN };
                }
                struct agg_row *row = &rows[r];
                row->count++;
                row->total = (ns_t)((uint64_t)row->total + (uint64_t)m->dur[s]);
                row->self = (ns_t)((uint64_t)row->self + (uint64_t)model_self(m, s));
                if (m->dur[s] < row->min) row->min = m->dur[s];
                if (m->dur[s] > row->max) row->max = m->dur[s];
            }
        }
    }
    u64map_free(&idx);
    if (nrows > 1)
        qsort(rows, nrows, sizeof *rows, cmp_agg);
    *n = nrows;
    if (!rows)
        rows = calloc(1, sizeof *rows);
    return rows;
}

size_t model_memory(const struct model *m)
{
    size_t per = 2 * sizeof(ns_t) + 3 * sizeof(uint32_t) + sizeof(uint16_t) + 1 + sizeof(uint64_t) + sizeof(uint32_t);
    size_t b = (size_t)m->slices_cap * per + (m->build_to_final ? (size_t)m->nslices * 4 : 0);
    b += sizeof *m + (size_t)m->procs_cap * sizeof(struct proc) + (size_t)m->lanes_cap * sizeof(struct lane);
    b += (size_t)m->nlanes * 2 * sizeof(uint32_t);
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        b += ((size_t)l->ndepth + 1) * sizeof(uint32_t);
        if (l->ndepth)
            b += ((size_t)l->row_first[1] - l->row_first[0] + 1) * sizeof(ns_t);
    }
    b += m->flows_cap * sizeof(struct flow) + (m->nflows_by_src + m->nflows_by_dst) * sizeof(uint32_t);
    for (uint32_t i = 0; i < m->ncounters; i++)
        b += m->counters[i].cap * (sizeof(ns_t) + sizeof(double));
    b += (size_t)m->counters_cap * sizeof(struct counter_track);
    b += strtab_bytes(m->str);
    return b;
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
