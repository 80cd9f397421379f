/* PyTorch profiler (Kineto) traces: what the generic trace reader (trace_json.c) hands over
 * beyond the events. A Kineto trace is the object form {"schemaVersion", "deviceProperties",
 * "distributedInfo", "traceEvents", "baseTimeNanoseconds", ...}; its host process holds
 * python_function, cpu_op, user_annotation and cuda_runtime / cuda_driver (or HIP) slices,
 * each GPU is a process (pid = device id, labels "GPU N") whose threads are streams holding
 * kernel, gpu_memcpy, gpu_memset and gpu_user_annotation slices, and ac2g /
 * async_cpu_to_gpu flows join a runtime launch to its kernel.
 *
 * The reader passes the top-level values it meets (kineto_top_*); once every event is read,
 * kineto_finish gives the model what it needs to treat the trace like any other: the GPU
 * processes become device processes named from deviceProperties ("GPU 0 (NVIDIA H100 80GB
 * HBM3)"), the host processes host processes, and the GPU-side annotations (which the
 * reader puts on lanes of their own, so that they do not count as kernels) are named after
 * their GPU. Whether a trace is Kineto is decided by this content, never by the file name. */
#ifndef APTOP_KINETO_H
#define APTOP_KINETO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/index/model.h"

/* The pid prefix of the lanes the reader gives gpu_user_annotation slices. */
#define KINETO_ANNOT_PREFIX "gpu_user_annotation "

#define KINETO_MAX_DEVICES 64

struct kineto_meta {
    bool seen;                  /* a Kineto top-level key was met */
    bool has_schema, has_base, has_rank;
    int64_t schema;
    int64_t base_ns;            /* baseTimeNanoseconds, exact */
    int64_t rank, world_size;   /* distributedInfo */
    char backend[16];
    char dev_name[KINETO_MAX_DEVICES][96];   /* deviceProperties name by id ("" unknown) */
};

enum kineto_key { KK_NONE, KK_SCHEMA, KK_DEVICES, KK_DIST, KK_BASE };
/* The top-level key at key[0..n) (quotes included, as scanned) as a kineto_key. */
enum kineto_key kineto_top_key(const char *key, size_t n);
/* Its value's text (a JSON value, complete). */
void kineto_top_value(struct kineto_meta *k, enum kineto_key key, const char *v, size_t n);
/* Fills what src has and dst lacks (a trace read in two parts). */
void kineto_merge(struct kineto_meta *dst, const struct kineto_meta *src);

/* True for the GPU-side slice categories that are not GPU work (gpu_user_annotation,
 * cuda_sync): the reader keeps them on lanes of their own. */
bool kineto_is_gpu_annotation(const char *cat, size_t n);
bool kineto_is_instant_slice(const char *cat, size_t n);

/* Which side of a launch the slice categories of a correlation id are: KINETO_LAUNCHED for
 * device work (kernel, gpu_memcpy, gpu_memset and the 2021 writer's Kernel, Memcpy, Memset),
 * KINETO_LAUNCH for the runtime and driver calls (cuda_runtime, cuda_driver, the 2021
 * Runtime and Driver, and any other "<device>_runtime" / "<device>_driver"), else
 * KINETO_NO_LAUNCH. */
enum kineto_launch_side { KINETO_NO_LAUNCH, KINETO_LAUNCH, KINETO_LAUNCHED };
enum kineto_launch_side kineto_launch_side(const char *cat, size_t n);
/* The value of args' first-level "correlation" key (args: an object's text) as an exact
 * unsigned integer; false when absent or not one. */
bool kineto_args_correlation(const char *args, size_t n, uint64_t *id);
/* A first-level key of a JSON object's text obj[0..n) (the braces included): its value's
 * text (*v, *vlen: a string keeps its quotes), false when absent. kineto_obj_int reads an
 * integer exactly from its digits (false for a fraction, an exponent or another type);
 * kineto_obj_str a string's bytes between its quotes, escapes left as written. */
bool kineto_obj_value(const char *obj, size_t n, const char *key, const char **v, size_t *vlen);
bool kineto_obj_int(const char *obj, size_t n, const char *key, int64_t *out);
bool kineto_obj_str(const char *obj, size_t n, const char *key, const char **s, size_t *len);

/* Before finalize: device and host process kinds and names (see above); says in d what
 * the trace is (devices, rank). Does nothing to a model without Kineto content. */
void kineto_finish(const struct kineto_meta *k, struct model *m, struct diag *d, const char *path);

/* The device a rank's trace ran on: N of its one GPU process ("GPU N", the device process
 * named at kineto_finish from its label, pid and deviceProperties), or -1 when the model has
 * no such process or several. */
int kineto_gpu_of(const struct model *m);

/* After the load, from the args of m's slices, read again from the trace in one pass per
 * file (trace_events_read): *comm (comm NULL: not wanted) the collective metadata of each NCCL / RCCL kernel of the
 * device lanes (comm.h's struct comm_kernel_args, sorted by slice; *ncomm of them; NULL when
 * none), and *memory (memory NULL: not wanted) the [memory] instants as memory curves, one per
 * device ("cuda:0", "cpu", "mtia:0", ...; Device Type and Device Id of each event): Total
 * Allocated and Total Reserved in bytes, exact from their digits, at the event's time; NULL
 * when the trace has none. Problems (a file that changed, events without totals) go to d. */
struct comm_kernel_args;
struct memory;
void kineto_trace_args(const struct model *m, struct diag *d, struct comm_kernel_args **comm, size_t *ncomm,
                       struct memory **memory);

/* The rank a Kineto trace's head names in distributedInfo, or -1: for discovery, from the
 * first bytes of the (decompressed) file. */
int kineto_rank_from_head(const char *buf, size_t n);

#endif
