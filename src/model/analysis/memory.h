/* Device memory of one rank: who holds it, when, and what peaks it.
 *
 * Data flow: the memory readers (io/tables/memory_read.c) create a `struct memory`, feed it rows
 * (memory_add_point for the usage curves of memory_record / npu_module_mem / npu_mem and their
 * DB tables; memory_add_op for operator allocations; memory_add_static for static graph
 * memory), then call memory_finish. After that it is read-only and handed to the UI.
 *
 * Units: every size is int64 bytes, converted exactly from the unit the file states (MB and
 * KB are 2^20 and 2^10 bytes); every time is int64 ns in the file's own time base. A value the
 * file leaves empty is MEM_NONE (sizes) or NS_NONE (times) and stays so: negative and empty
 * operator sizes and times (an allocation or release outside the profiling window) are kept
 * as written, never cleaned.
 *
 * Bounded memory: a curve keeps at most MEM_CURVE_MAX points; when more rows come, adjacent
 * points merge (each then stands for `stride` consecutive rows: the time of the first, the
 * largest value of each kind), so a multi-GB memory_record.csv costs a few MB. The peaks are
 * tracked exactly over every row, and operators are kept one by one. */
#ifndef APTOP_MEMORY_H
#define APTOP_MEMORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"
#include "model/index/strtab.h"

#define MEM_NONE INT64_MIN
#define MEM_CURVE_MAX 65536

/* Where a curve comes from (its file family). */
enum mem_family {
    MF_RECORD,      /* memory_record.csv / memory_record_*.csv / MEMORY_RECORD (+ NPU_MEM app as APP) */
    MF_MODULE,      /* npu_module_mem.csv / npu_module_mem_*.csv / NPU_MODULE_MEM */
    MF_NPU_MEM,     /* npu_mem_*.csv / NPU_MEM (app and device ddr+hbm) */
    MF_COUNT
};

enum mem_kind { MK_ALLOCATED, MK_RESERVED, MK_ACTIVE, MK_COUNT };

struct mem_point {
    ns_t t;
    int64_t v[MK_COUNT];        /* bytes, MEM_NONE when the row had none */
};

struct mem_series {
    uint32_t component;         /* name as written in the file ("PTA", "PTA+GE", "APP", "HCCL") */
    enum mem_family family;
    uint64_t rows;              /* rows read */
    /* exact over every row */
    int64_t peak[MK_COUNT];     /* bytes, MEM_NONE when that column was empty throughout */
    ns_t peak_t[MK_COUNT];      /* earliest time the peak is reached */
    ns_t t_first, t_last;       /* smallest and largest time, NS_NONE when no row had one */
    /* the curve, sorted by time after memory_finish */
    struct mem_point *pts;
    size_t npts, cap;
    uint64_t stride;            /* rows per point (a power of two) */
    uint64_t in_last;           /* rows folded into the last point so far */
};

/* One operator allocation (operator_memory.csv, OP_MEMORY, NPU_OP_MEM pairs). */
struct mem_op {
    uint32_t name;              /* string id */
    uint32_t component;         /* string id: "" (operator_memory), "GE" (NPU_OP_MEM), ... */
    int64_t size;               /* bytes as written, may be negative; MEM_NONE: empty */
    ns_t alloc, release, active_release;  /* NS_NONE: empty (outside the window) */
    ns_t duration, active_duration;       /* as written; NS_NONE: empty */
    int64_t at_alloc[MK_COUNT];           /* totals at allocation, bytes */
    int64_t at_release[MK_COUNT];         /* totals at release, bytes */
    uint32_t line;              /* source line (0 for a DB row) */
};

/* One static graph allocation (static_op_mem.csv). */
struct mem_static {
    uint32_t name, model, device; /* string ids: Op Name, Model Name, Device_id as written */
    int64_t graph_id, node_start, node_end;  /* MEM_NONE when empty */
    int64_t size;               /* bytes */
};

struct memory {
    struct strtab *str;
    struct mem_series *series;
    size_t nseries, cap_series;
    struct mem_op *ops;
    size_t nops, cap_ops;
    struct mem_static *statics;
    size_t nstatics, cap_statics;
    uint32_t nfiles;            /* files (or DB tables) that gave rows */
    uint64_t approx_cells;      /* times read from E-notation (rounded by a spreadsheet) */
    bool from_db;
    bool from_events;           /* a Kineto trace's [memory] events (the curves are MF_RECORD's role) */
    bool oom;                   /* memory ran out: some rows are missing */
    /* after memory_finish */
    uint32_t *by_size;          /* op indices: size descending (empty sizes last) */
    uint32_t *by_cost;          /* op indices: size x lifetime descending */
};

struct memory *memory_new(void);
void memory_free(struct memory *m);
/* The series of (component, family), created when new; SIZE_MAX when memory ran out. */
size_t memory_series(struct memory *m, const char *component, size_t len, enum mem_family f);
/* One row of a curve: v[MK_COUNT] in bytes (MEM_NONE where missing), at t (NS_NONE allowed:
 * counted in the peaks without a time, left out of the curve). */
void memory_add_point(struct memory *m, size_t series, ns_t t, const int64_t v[MK_COUNT]);
/* Appends an operator (copied); returns false when memory ran out. */
bool memory_add_op(struct memory *m, const struct mem_op *op);
bool memory_add_static(struct memory *m, const struct mem_static *s);
/* Adds off to every time (not to durations): a clock mapping. Before memory_finish. */
void memory_shift(struct memory *m, ns_t off);
/* Sorts the curves and builds the operator rankings. Idempotent. */
void memory_finish(struct memory *m);

/* Lifetime of an operator allocation: Duration as written, else release - allocation when
 * both are known, else NS_NONE (still alive, or allocated before the window). */
ns_t mem_op_lifetime(const struct mem_op *op);
/* Size x lifetime in byte-ns as a double (a ranking key; NaN when either is unknown). */
double mem_op_cost(const struct mem_op *op);
/* True when the allocation holds memory at t: allocated at or before t (or before the window:
 * empty allocation time) and not released by t (release time, else allocation + Duration;
 * neither: never released within the window). */
bool mem_op_alive_at(const struct mem_op *op, ns_t t);

/* The series whose peak is "the" peak of the rank: the memory_record family series with the
 * largest allocated peak ("PTA+GE" when present; reserved when none has allocated figures).
 * SIZE_MAX when there is none. */
size_t memory_main_series(const struct memory *m);
/* Peak value of a series: allocated when it has one, else reserved, else active; *kind gets
 * which (may be NULL). MEM_NONE when it has no value at all. */
int64_t mem_series_peak(const struct mem_series *s, enum mem_kind *kind);
/* Index of the last curve point at or before t, or SIZE_MAX when t precedes the curve. */
size_t mem_series_at(const struct mem_series *s, ns_t t);
/* Fills idx (capacity cap) with the operators alive at t, largest first; returns how many
 * are alive (may exceed cap). */
size_t memory_alive_at(const struct memory *m, ns_t t, uint32_t *idx, size_t cap);
/* Sum of the static allocations, bytes (0 when none). */
int64_t memory_static_total(const struct memory *m);
/* Time span of every curve and operator: false when nothing has a time. */
bool memory_span(const struct memory *m, ns_t *lo, ns_t *hi);
/* Bytes held (for the bench). */
size_t memory_bytes(const struct memory *m);

static inline const char *memory_str(const struct memory *m, uint32_t id)
{ return strtab_get(m->str, id); }

#endif
