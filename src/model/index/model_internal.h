/* Private to the model's own files (model.c builds, model_append.c merges two models,
 * model_finalize.c sorts and indexes, model_flows.c binds flow points, model_query.c
 * answers): the building state and the helpers they share. Nothing outside src/model/model*.c
 * includes this header. */
#ifndef APTOP_MODEL_INTERNAL_H
#define APTOP_MODEL_INTERNAL_H

#include "model/index/model.h"
#include "model/index/hash.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_DEPTH 1024   /* beyond this, overlapping slices share the deepest row */

/* --- a small open-addressing map from 64-bit keys to 32-bit values ------------------ */

struct u64map {
    uint64_t *keys;
    uint32_t *vals;      /* value + 1; 0 = empty slot */
    uint32_t n, cap;
};

/* --- private building state --------------------------------------------------------- */

/* A flow point as read (32 bytes: millions of them): its place in the points array is its
 * order in the file, the last tie-break when they are grouped. */
struct raw_point {
    ns_t ts;
    uint64_t id;
    uint32_t lane, cat, name;
    uint8_t ph, id_is_str, bp_e;
};
_Static_assert(sizeof(struct raw_point) == 32, "a flow point stays 32 bytes");

struct direct_flow { uint32_t cat, src, dst; };

/* A slice's correlation id as read (model_add_correlation); launch: the runtime call's side. */
struct corr_entry { uint64_t id; uint32_t slice; bool launch; };

enum { RECYCLE_MAX = 16, RECYCLE_MIN = 1u << 20 };   /* smaller arrays: malloc's own reuse */

struct build {
    struct u64map procs;     /* pid key id -> proc */
    struct u64map lanes;     /* proc << 32 | tid key id -> lane */
    struct u64map counters;  /* proc << 32 | series id -> counter track */
    struct raw_point *pts;   size_t npts, pts_cap;
    uint32_t *ord;           /* finalize: pts in key order (group_points) */
    struct direct_flow *direct; size_t ndirect, direct_cap;
    struct corr_entry *corr; size_t ncorr, corr_cap;
    uint8_t *proc_named;     /* P_* flags: which metadata was set (model_append replays them) */
    uint32_t proc_named_cap;
    uint8_t *lane_set;       /* L_* flags, one per lane */
    uint32_t lane_set_cap;
    /* finalize: the time spans of the slices and of the flow points, found on the way by the
     * passes that read them anyway (NS_NONE: empty), when those passes ran */
    ns_t slices_lo, slices_hi, pts_lo, pts_hi;
    bool slices_spanned, pts_spanned;
    /* resident arrays handed on for finalize's scratch (model_recycle.c) */
    struct recycled { void *p; size_t resident, cap; } recycled[RECYCLE_MAX];
    int nrecycled;
    atomic_flag recycle_lock;
};

enum { P_STRONG = 1, P_WEAK = 2, P_LABELS = 4, P_SORT = 8 };
enum { L_NAME = 1, L_SORT = 2 };

static inline struct build *B(const struct model *m) { return m->build; }

/* u64map (model.c): UINT32_MAX when absent; put returns -1 when memory ran out */
uint32_t u64map_get(const struct u64map *h, uint64_t key);
int u64map_put(struct u64map *h, uint64_t key, uint32_t val);
void u64map_free(struct u64map *h);

/* model.c */
void *model_grow(void *p, size_t *cap, size_t need, size_t elem);
void *model_zeroed(size_t bytes);
void *model_realloc_big(void *p, size_t bytes);

/* One write per page of [a, b) bytes from p: its pages faulted in now, while a core would
 * otherwise wait, rather than later on the way of the work that fills them. */
static inline void model_touch_pages(void *p, size_t a, size_t b)
{
    volatile char *c = p;
    for (size_t k = a; k < b; k += 4096)
        c[k] = 0;
}

/* model_recycle.c: p (a malloc'd array of cap bytes, its first resident bytes written) kept
 * for model_scratch instead of freed; model_scratch is malloc, from those arrays when one has
 * room (the one with the most resident bytes of use); model_recycle_clear frees what is left.
 * Safe from two threads at once (finalize groups flow points on one). */
void model_recycle(struct build *b, void *p, size_t resident, size_t cap);
void *model_scratch(struct build *b, size_t bytes);
void model_recycle_clear(struct build *b);

/* model_flows.c: room for every flow of the build's points in m->flows (faulted in later) */
int model_flows_room(struct model *m);
uint32_t model_intern(struct model *m, const char *s, size_t len);
void model_free_build(struct model *m);
void model_free_slices(struct model *m);
uint32_t model_proc_for_key(struct model *m, uint32_t key);
uint32_t model_lane_for_key(struct model *m, uint32_t p, uint32_t key);
uint32_t model_counter_for(struct model *m, uint32_t proc, uint32_t name);
int model_counter_reserve(struct counter_track *c, size_t need);

/* model_append.c: flow points (and flows) fewer than this are grouped, bound, indexed or
 * appended on one thread */
extern size_t model_thread_min;

/* model_corr.c: src's correlation entries after dst's, their slices moved by `first` (src's
 * first slice in dst); the flows joined by correlation, appended to m->flows (room made by
 * model_flows_room) once the file's flows are bound. -1 when memory ran out. */
int model_append_correlations(struct build *dst, const struct build *src, uint32_t first, uint32_t nslices);
int model_correlation_flows(struct model *m);

/* model_flows.c */
int model_group_points(struct build *b);
int model_finalize_flows(struct model *m, bool grouped);

/* model_query.c */
uint32_t model_slice_enclosing(const struct model *m, uint32_t lane, ns_t t);
bool model_slice_contains(const struct model *m, uint32_t s, ns_t t);
uint32_t model_slice_next_at(const struct model *m, uint32_t lane, ns_t t);

#endif
