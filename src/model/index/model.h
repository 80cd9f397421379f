/* The indexed event model of one rank.
 *
 * Data flow: a reader (src/io) creates a model, calls model_add_* for every event it meets
 * (in file order, any order of metadata), then model_finalize() once. Finalize sorts slices
 * per lane, computes nesting depth, busy prefix sums and binds flows to slices. After
 * finalize the model is immutable: every query below may be called from any thread without
 * locks, and costs what its comment says. Nothing here knows file formats or curses.
 *
 * Time is int64 nanoseconds in the capture's own base (time_base): local µs*1000 for JSON
 * and CSV, Unix ns for DB captures. Never mix two bases in one model.
 *
 * Slices are stored columnar, sorted by (lane, depth, start). Within one (lane, depth) row
 * slices never overlap, so a row is searchable by binary search on start and on end.
 * Overlapping slices that do not nest go to the next free depth: none is dropped. (A lane
 * deeper than 1024 rows, which only hostile input makes, puts the rest in its last row.)
 *
 * Finalize renumbers slices (model_build_to_final) and lanes (model_lane_build_to_final):
 * lanes end up in display order, so lane_order is the identity. Process indices stay.
 * Counters belong to a process, not a lane: a counters-only process has kind LANE_COUNTER
 * and lanes only when metadata named threads in it.
 */
#ifndef APTOP_MODEL_H
#define APTOP_MODEL_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/strtab.h"

typedef int64_t ns_t;
#define NS_NONE INT64_MIN
#define SLICE_NONE UINT32_MAX
#define LANE_NONE UINT32_MAX

/* Widens the time range [*lo, *hi] (NS_NONE while empty) to take in a..b (a: NS_NONE, nothing). */
static inline void ns_range_widen(ns_t *lo, ns_t *hi, ns_t a, ns_t b)
{
    if (a == NS_NONE)
        return;
    if (*lo == NS_NONE || a < *lo)
        *lo = a;
    if (*hi == NS_NONE || b > *hi)
        *hi = b;
}

enum time_base { TIME_LOCAL_US, TIME_UNIX_NS };

/* What a process (group of lanes) is, from its process_name (or DB table). */
enum lane_kind {
    LANE_OTHER,
    LANE_PYTHON,    /* "Python": framework ops, python_function frames */
    LANE_CANN,      /* "CANN": ACL/GE/Runtime/Node APIs */
    LANE_DEVICE,    /* "Ascend Hardware": NPU tasks per stream */
    LANE_COMM,      /* "Communication" or "HCCL" */
    LANE_OVERLAP,   /* "Overlap Analysis": Computing / Communication(Not Overlapped) / Free */
    LANE_GC,        /* "Python GC" */
    LANE_MSTX,      /* msproftx marks */
    LANE_COUNTER,   /* a process holding only counters (AI Core Freq, HBM, ...) */
    LANE_STEP_TRACE,/* msprof "Step Trace": Iteration N slices, FP/BP points; gives the steps,
                     * neither a kernel nor device busy time nor host work */
    LANE_DEVICE_ANNOT, /* ranges a profiler marks on a device's timeline (Kineto
                     * gpu_user_annotation): neither kernels, busy time nor host work */
};
const char *lane_kind_name(enum lane_kind k);
enum lane_kind lane_kind_from_process_name(const char *name);
/* A lane's kind from its process's and its thread name (NULL when none): the process's,
 * except msprof's Step Trace thread inside the device process (LANE_STEP_TRACE). */
enum lane_kind lane_kind_of_thread(enum lane_kind proc_kind, const char *thread_name);

struct proc {
    uint32_t key;          /* interned text of the pid as written ("3096504", "HCCL") */
    uint32_t name;         /* interned process_name, or the key when none was given */
    uint32_t labels;       /* interned process_labels, 0 when none */
    int64_t sort_index;    /* process_sort_index, or INT64_MAX when none */
    enum lane_kind kind;
    bool kind_set;         /* kind given by the reader (model_set_process_kind), not by name */
    uint32_t first_lane, nlanes;   /* after finalize: lanes of this proc are contiguous */
};

struct lane {
    uint32_t proc;         /* index into model->procs */
    uint32_t key;          /* interned text of the tid as written */
    uint32_t name;         /* interned thread_name, or "Thread <tid>" / "Stream <tid>" */
    int64_t sort_index;    /* thread_sort_index, or INT64_MAX when none */
    enum lane_kind kind;   /* the proc's kind */
    /* after finalize: */
    uint32_t first, count;         /* slice range [first, first+count) of this lane */
    uint32_t ndepth;               /* depth rows 0..ndepth-1 */
    uint32_t *row_first;           /* ndepth+1 offsets (absolute slice indices) per depth row */
    ns_t *busy_prefix;             /* depth-0 row: busy_prefix[i] = sum of dur of its first i slices */
};

struct counter_track {
    uint32_t proc;         /* index into procs */
    uint32_t name;         /* interned series name, e.g. "AI Core Freq" or "HBM/Read(MB/s)" */
    uint32_t unit;         /* interned unit of the values ("KB", "MHz", "MB/s", "%"); 0: none */
    size_t n, cap;
    ns_t *ts;              /* sorted by time after finalize */
    double *value;
};

enum flow_ph { FLOW_START = 's', FLOW_STEP = 't', FLOW_END = 'f' };

/* One flow (category, id) after pairing. src/dst are SLICE_NONE when that end is missing or
 * its point landed on no slice; the point's own lane and time are kept either way. */
struct flow {
    uint32_t cat;          /* interned category: async_npu, HostToDevice, ... */
    uint32_t name;         /* interned flow name; a name that is the category followed by the
                            * numeric id ("HostToDevice936") is kept as the category alone */
    uint64_t id;           /* exact id (string ids are interned: id = string id, id_is_str) */
    bool id_is_str;
    bool by_correlation;   /* not in the file: joined by a correlation id (model_add_correlation) */
    uint32_t src, dst;     /* slice indices after finalize */
    uint32_t src_lane, dst_lane;
    ns_t src_ts, dst_ts;   /* NS_NONE when that end is absent from the file */
};

struct model_file {
    char *path;
    uint64_t size;
};

struct model {
    struct strtab *str;
    enum time_base time_base;
    bool finalized;

    struct proc *procs;   uint32_t nprocs, procs_cap;
    struct lane *lanes;   uint32_t nlanes, lanes_cap;
    uint32_t *lane_order; /* lanes in display order: procs by sort index, then lanes by sort index */

    /* slices, columnar */
    uint32_t nslices, slices_cap;
    ns_t *start, *dur;
    uint32_t *name, *cat, *lane;
    uint16_t *depth;
    uint8_t *file;        /* index into files: where the event's bytes are (255: the 256th and later) */
    uint64_t *off;        /* byte offset of the event in its file (UINT64_MAX: none) */
    uint32_t *len;        /* byte length of the event (0: no args to load) */

    struct flow *flows;   size_t nflows, flows_cap;
    uint32_t *flows_by_src, *flows_by_dst;   /* flow indices sorted by src / dst slice */
    size_t flows_matched, flows_unmatched;   /* unmatched: one end missing or unbound */
    size_t nflows_by_src, nflows_by_dst;     /* flows with a bound src / dst (array lengths) */
    uint32_t *build_to_final;                /* slice build index -> final index */
    uint32_t *lane_build_to_final;           /* lane index while building -> final lane */

    struct counter_track *counters; uint32_t ncounters, counters_cap;

    struct model_file *files; uint32_t nfiles;

    /* what was read: totals for the report's summary */
    uint64_t events;                 /* every event object seen */
    uint64_t events_by_ph[128];      /* by phase letter */
    uint64_t unknown_ph;
    ns_t t_min, t_max;               /* span over slices, counters and flow points */

    void *build;                     /* private state while building (hash maps, raw points) */
    void *mapped;                    /* a model read from the index cache: the file mapping its
                                      * large arrays point into (model_free unmaps it) */
    size_t mapped_len;
    void (*unmap)(void *mapped, size_t len);   /* lets mapped go (NULL: munmap) */
    bool oom;                        /* memory ran out while building: finalize fails */
    const _Atomic bool *stop;        /* the loader's cancel flag (NULL: none): finalize gives
                                      * up between its steps once it is set */
};

struct model *model_new(enum time_base base);
void model_free(struct model *m);

/* --- building (one thread, before finalize) --- */
uint32_t model_add_file(struct model *m, const char *path, uint64_t size);
/* Process and lane by their pid/tid text as written in the file (numbers as decimal). */
uint32_t model_proc(struct model *m, const char *pid, size_t pid_len);
uint32_t model_lane(struct model *m, const char *pid, size_t pid_len, const char *tid, size_t tid_len);
void model_set_process_name(struct model *m, uint32_t proc, const char *name, size_t len);
/* Names the process only when no process_name was given (counter events' "processName"). */
void model_set_process_name_weak(struct model *m, uint32_t proc, const char *name, size_t len);
void model_set_process_labels(struct model *m, uint32_t proc, const char *labels, size_t len);
/* Moves a lane (before finalize) to another process; model_lane with its old pid and tid
 * still finds it. For readers that learn from content that one pid mixes two kinds. */
void model_move_lane(struct model *m, uint32_t lane, uint32_t proc);
/* The process's kind, whatever its name says (a reader that knows it from content). */
void model_set_process_kind(struct model *m, uint32_t proc, enum lane_kind kind);
void model_set_process_sort(struct model *m, uint32_t proc, int64_t sort_index);
void model_set_thread_name(struct model *m, uint32_t lane, const char *name, size_t len);
void model_set_thread_sort(struct model *m, uint32_t lane, int64_t sort_index);
/* A complete slice. off/len locate the event's bytes in file for lazy args (len 0: none).
 * Returns the slice's build index, or SLICE_NONE when memory ran out. */
uint32_t model_add_slice(struct model *m, uint32_t lane, ns_t start, ns_t dur,
                         const char *name, size_t name_len, const char *cat, size_t cat_len,
                         uint32_t file, uint64_t off, uint32_t len);
/* Same with names already interned in m->str. */
uint32_t model_add_slice_ids(struct model *m, uint32_t lane, ns_t start, ns_t dur,
                             uint32_t name, uint32_t cat, uint32_t file, uint64_t off, uint32_t len);
/* A flow point. bp_enclosing: "bp":"e" (bind to the enclosing slice) rather than the next slice. */
void model_add_flow_point(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts,
                          const char *cat, size_t cat_len, const char *name, size_t name_len,
                          uint64_t id, bool id_is_str, bool bp_enclosing);
/* Same with category and name already interned in m->str. */
void model_add_flow_point_ids(struct model *m, uint32_t lane, enum flow_ph ph, ns_t ts, uint32_t cat,
                              uint32_t name, uint64_t id, bool id_is_str, bool bp_enclosing);
/* A flow already known end to end by slice build indices (DB connectionId): kept as given. */
void model_add_flow_direct(struct model *m, uint32_t cat, uint32_t src_build, uint32_t dst_build);
/* A correlation id carried by slice build index `slice` (Kineto's args.correlation): the
 * launch (a runtime call) or a slice it launched (a kernel, memcpy or memset; every kernel
 * of a graph replay carries its graph launch's id). At finalize each launched slice that no
 * flow of the file binds to a source gets a flow from the launch of its id, marked
 * by_correlation; such flows are never counted as the file's flow records. */
void model_add_correlation(struct model *m, uint32_t slice, uint64_t id, bool launch);
/* Room for this many more slices and flow points, so that a reader that can estimate its
 * input's events (from the file size) does not grow the columns step by step. Untouched
 * room costs address space only. Returns -1 when memory ran out (the model stays usable). */
int model_reserve(struct model *m, size_t slices, size_t points);
/* A counter sample; series is e.g. "AI Core Freq" or "HBM/Read". unit (NUL-terminated, NULL
 * or "": none) is the unit of its values; the first sample that gives one sets it. */
void model_add_counter(struct model *m, uint32_t proc, const char *series, size_t series_len, const char *unit,
                       ns_t ts, double value);
/* B/E pairs are matched by the reader and added as slices. Count what was seen: the
 * model_add_* calls count nothing; each reader calls this once per event it read. */
void model_count_event(struct model *m, char ph);

/* Parallel building: a later part of the same file(s) read into its own model (own string
 * table) is appended to dst as if its model_add_* calls had been made on dst, in order:
 * strings keep first-seen ids, processes and lanes first-seen order, metadata the last value
 * set (a weak process name only while none was given), then slices, flow points, counter
 * samples and event counts. src's slices must name dst's files (src's own files are not
 * carried over); src is left without slices and must only be freed. Returns dst's build
 * index of src's first slice, or SLICE_NONE when memory ran out (dst->oom set). str_map and
 * lane_map (may be NULL) receive malloc'd src -> dst maps of string ids and lanes. */
uint32_t model_append(struct model *dst, struct model *src, uint32_t **str_map, uint32_t **lane_map);
/* Where m's slice columns and flow points are and how much room they have, noted so that
 * the room can be made resident before a model_append into m (model_room_populate), also by
 * another thread while m's builder still fills it. */
struct model_room {
    char *at[9];
    size_t elem[9], cap[9];   /* the slice columns, then the flow points */
};
void model_room_note(const struct model *m, struct model_room *room);
/* Makes the pages of slice rows [a, e) and flow point rows [pa, pe) of the noted room
 * resident without writing them (no byte changes: safe while the building thread fills
 * them, and after the columns moved, where only memory is spent). False when the system
 * cannot (then nothing was done). */
bool model_room_populate(const struct model_room *room, size_t a, size_t e, size_t pa, size_t pe);
/* The flow points m holds while building (0 after finalize). */
size_t model_build_points(const struct model *m);
/* Overwrites slice i (a build index, before finalize) with names already interned. */
void model_set_slice_ids(struct model *m, uint32_t i, ns_t start, ns_t dur, uint32_t name, uint32_t cat,
                         uint32_t file, uint64_t off, uint32_t len);
/* Removes the slices with build indices idx[0..n) (ascending, before finalize); later slices
 * move down, so their build indices change. */
void model_remove_slices(struct model *m, const uint32_t *idx, size_t n);

/* Sorts, computes depth and prefix sums, pairs and binds flows. Returns 0, -1 when memory
 * ran out, or MODEL_STOPPED when m->stop was set before it was done (the model is then empty
 * but valid in both cases). Build indices returned above are remapped:
 * model_build_to_final gives the final index of a build index (valid until model_free). */
#define MODEL_STOPPED 1
int model_finalize(struct model *m);
/* Finalize will watch this flag (a load's cancel flag; NULL: none) and give up once it is set. */
static inline void model_set_stop(struct model *m, const _Atomic bool *stop) { m->stop = stop; }
/* Finalize groups, binds and indexes flows on two threads from this many flow points on
 * (default 100000; tests set 0 to always, SIZE_MAX to never). Not thread-safe: set before. */
void model_set_thread_min(size_t n);
uint32_t model_build_to_final(const struct model *m, uint32_t build_index);
/* Finalize puts lanes in display order (procs by sort index, then lanes by sort index, then
 * first appearance), so lane indices change: this maps a building lane index to its final one. */
uint32_t model_lane_build_to_final(const struct model *m, uint32_t build_lane);

/* --- queries (after finalize; lock-free, any thread) --- */
/* A slice with its start, to sort slices by time (ties by index: the files' order). */
struct slice_start { ns_t start; uint32_t slice; };
/* qsort comparator of struct slice_start: by start, then by slice. */
int slice_start_cmp(const void *a, const void *b);
static inline ns_t model_end(const struct model *m, uint32_t s) { return m->start[s] + (m->dur[s] > 0 ? m->dur[s] : 0); }
static inline const char *model_str(const struct model *m, uint32_t id) { return strtab_get(m->str, id); }
const char *model_lane_label(const struct model *m, uint32_t lane, char *buf, size_t size); /* "Proc ▸ Thread" */
/* Slices of (lane, depth) overlapping [t0, t1): *first..*last (exclusive). O(log n). */
void model_row_range(const struct model *m, uint32_t lane, uint32_t depth, ns_t t0, ns_t t1,
                     uint32_t *first, uint32_t *last);
/* Busy time of the lane's depth-0 row within [t0, t1). O(log n). */
ns_t model_busy(const struct model *m, uint32_t lane, ns_t t0, ns_t t1);
/* The deepest slice of lane containing t, or SLICE_NONE. O(depth log n). */
uint32_t model_slice_at(const struct model *m, uint32_t lane, ns_t t);
/* Next / previous slice on the same lane and depth row; SLICE_NONE at the ends. O(1). */
uint32_t model_next_in_row(const struct model *m, uint32_t s);
uint32_t model_prev_in_row(const struct model *m, uint32_t s);
/* Parent (enclosing slice one depth up), or SLICE_NONE. O(log n). */
uint32_t model_parent(const struct model *m, uint32_t s);
/* Self time: duration minus direct children's durations. O(log n + children). */
ns_t model_self(const struct model *m, uint32_t s);
/* Flows touching slice s: indices into m->flows. O(log n). */
size_t model_flows_from(const struct model *m, uint32_t s, const uint32_t **out);
size_t model_flows_to(const struct model *m, uint32_t s, const uint32_t **out);
/* Distinct (category, id) keys of category cat (interned) having both an s and an f.
 * m->flows holds one flow per f point (sharing its key's s), plus one per s that no f
 * took; the flows of one key are consecutive. O(flows). */
size_t model_flows_matched_cat(const struct model *m, uint32_t cat);
/* Lane by process and thread name, LANE_NONE if absent. */
uint32_t model_find_lane(const struct model *m, const char *proc_name, const char *thread_name);

/* Aggregates by name of slices that start within [t0, t1) on the given lanes (NULL: all
 * lanes of kind `kind`, or every lane when kind is LANE_OTHER and lanes is NULL). */
struct agg_row {
    uint32_t name;
    uint64_t count;
    ns_t total, self, min, max;
};
/* Returns a malloc'd array sorted by total descending, *n rows. */
struct agg_row *model_aggregate(const struct model *m, const uint32_t *lanes, size_t nlanes,
                                enum lane_kind kind, ns_t t0, ns_t t1, size_t *n);
/* Adds off to every time of a finalized model (slices, counters, flow points, span): the
 * capture read on another clock (io/tables/clock_files.h). Order and durations are unchanged. A
 * model read from the index cache gets copies of the arrays it changes; false (nothing
 * shifted) when memory for them ran out. */
bool model_shift(struct model *m, ns_t off);
/* Memory held by the index in bytes (for the bench's bytes per event). */
size_t model_memory(const struct model *m);

#endif
