/* Memory check before loading: estimates the bytes the index of a capture will take from
 * its file sizes and compares them with the memory this process may use (MemAvailable,
 * RLIMIT_AS, the cgroup's memory.max), so a capture too big for the machine is refused
 * with a clear message instead of the process being killed half way. */
#ifndef APTOP_MEMCHECK_H
#define APTOP_MEMCHECK_H
#include <stdint.h>

#include "io/discovery/capture.h"
#include "model/index/diag.h"

/* Where the limits come from; NULL/0 fields mean the running system's. For tests. */
struct memcheck_env {
    const char *meminfo_path;   /* NULL: /proc/meminfo */
    const char *cgroup_dir;     /* NULL: the process's cgroup v2 dir under /sys/fs/cgroup; "" none */
    uint64_t as_limit;          /* 0: getrlimit(RLIMIT_AS); UINT64_MAX: none */
};

/* Estimated peak bytes to load the loadable files of rank (-1: every rank). Measured per
 * file byte: trace JSON 0.25-0.5, CSV ~0.85, SQLite ~2.2, communication JSON (a DOM) more. */
uint64_t memcheck_estimate(const struct capture *c, int rank);
/* Bytes this process may still allocate (the smallest limit found), UINT64_MAX if none. */
uint64_t memcheck_available(const struct memcheck_env *env);
/* 0: fits (or the check is off: APTOP_NO_MEMCHECK=1 in the environment); 1: refused, with
 * one DIAG_ERROR on c->root saying how much is needed, how much there is, what to do. */
int memcheck_capture_env(const struct capture *c, int rank, const struct memcheck_env *env, struct diag *d);
/* The same for every rank with the system's limits. */
int memcheck_capture(const struct capture *c, struct diag *d);

#endif
