/* What the analyses need from the args of a Kineto trace's slices, read after the load in
 * one pass per file (trace_events_read): the NCCL / RCCL kernels' collective metadata and the
 * [memory] instants' totals. See kineto.h. */
#include "io/trace/kineto.h"
#include "io/trace/trace_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/memory.h"
#include "util/grow.h"

/* The "args" object of one event's text, false when it has none. */
static bool event_args(const char *ev, size_t n, const char **a, size_t *an)
{
    return kineto_obj_value(ev, n, "args", a, an) && *an >= 2 && **a == '{';
}

static void copy_str(char *dst, size_t room, const char *s, size_t n)
{
    n = n < room - 1 ? n : room - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static void comm_event(struct comm_kernel_args *k, const char *ev, size_t n)
{
    const char *a, *s;
    size_t an, sl;
    if (!event_args(ev, n, &a, &an))
        return;
    if (kineto_obj_str(a, an, "Collective name", &s, &sl))
        copy_str(k->coll, sizeof k->coll, s, sl);
    if (kineto_obj_str(a, an, "Process Group Name", &s, &sl))
        copy_str(k->group, sizeof k->group, s, sl);
    if (!kineto_obj_int(a, an, "In msg nelems", &k->nelems))
        k->nelems = -1;
}

/* --- [memory] instants ------------------------------------------------------------------- */

/* c10's device types by number, as the [memory] events' "Device Type" writes them. */
static const char *device_type_name(int64_t t)
{
    switch (t) {
    case 0: return "cpu";
    case 1: return "cuda";
    case 6: return "hip";
    case 12: return "xpu";
    case 13: return "mps";
    case 19: return "mtia";
    case 20: return "privateuseone";
    default: return NULL;
    }
}

static void mem_event(struct memory *mem, ns_t t, size_t *bad, const char *ev, size_t n)
{
    const char *a;
    size_t an;
    int64_t type = -1, dev = -1, alloc, resv;
    if (!event_args(ev, n, &a, &an) || !kineto_obj_int(a, an, "Total Allocated", &alloc)
        || !kineto_obj_int(a, an, "Total Reserved", &resv)) {
        (*bad)++;
        return;
    }
    kineto_obj_int(a, an, "Device Type", &type);
    kineto_obj_int(a, an, "Device Id", &dev);
    /* one curve per device: "cuda:0", "cpu" (Device Id -1), "type 7:0" for a type not named */
    char comp[48];
    const char *tn = device_type_name(type);
    if (dev < 0)
        snprintf(comp, sizeof comp, "%s", tn ? tn : "device");
    else if (tn)
        snprintf(comp, sizeof comp, "%s:%lld", tn, (long long)dev);
    else
        snprintf(comp, sizeof comp, "type %lld:%lld", (long long)type, (long long)dev);
    size_t sr = memory_series(mem, comp, strlen(comp), MF_RECORD);
    if (sr == SIZE_MAX)
        return;
    int64_t v[MK_COUNT] = { [MK_ALLOCATED] = alloc, [MK_RESERVED] = resv, [MK_ACTIVE] = MEM_NONE };
    memory_add_point(mem, sr, t, v);
}

/* The slices named "[memory]" (*n of them), NULL when none or out of memory (said in d). */
static uint32_t *memory_slices(const struct model *m, size_t *n, struct diag *d)
{
    *n = 0;
    uint32_t id = strtab_find(m->str, "[memory]", 8);
    if (id == UINT32_MAX)
        return NULL;
    size_t cap = 0;
    uint32_t *slices = NULL;
    for (uint32_t s = 0; s < m->nslices; s++) {
        if (m->name[s] != id)
            continue;
        if (*n == cap) {
            uint32_t *p = grow_array(slices, &cap, *n + 1, sizeof *p);
            if (!p) {
                diag_out_of_memory(d, m->nfiles ? m->files[0].path : "", "the [memory] events (%zu read)", *n);
                break;
            }
            slices = p;
        }
        slices[(*n)++] = s;
    }
    return slices;
}

/* One pass over the trace for both: the first ncomm slices are kernels, the rest [memory]. */
struct args_read {
    const struct model *m;
    const uint32_t *slices;
    size_t ncomm;
    struct comm_kernel_args *comm;
    struct memory *mem;
    size_t bad;
};

static void args_event(void *ctx, size_t i, const char *ev, size_t n)
{
    struct args_read *r = ctx;
    if (i < r->ncomm)
        comm_event(&r->comm[i], ev, n);
    else if (r->mem)
        mem_event(r->mem, r->m->start[r->slices[i]], &r->bad, ev, n);
}

void kineto_trace_args(const struct model *m, struct diag *d, struct comm_kernel_args **comm, size_t *ncomm,
                       struct memory **memory)
{
    if (comm)
        *comm = NULL, *ncomm = 0;
    if (memory)
        *memory = NULL;
    if (!m || !m->finalized)
        return;
    const char *path = m->nfiles ? m->files[0].path : "";
    size_t nk = 0, nm = 0;
    uint32_t *ks = comm ? comm_kernel_slices(m, &nk) : NULL;
    uint32_t *ms = memory ? memory_slices(m, &nm, d) : NULL;
    uint32_t *all = nk + nm ? malloc((nk + nm) * sizeof *all) : NULL;
    struct args_read r = { .m = m, .slices = all, .ncomm = nk };
    r.comm = all && nk ? calloc(nk, sizeof *r.comm) : NULL;
    r.mem = all && nm ? memory_new() : NULL;
    if (nk + nm && (!all || (nk && !r.comm) || (nm && !r.mem))) {
        diag_out_of_memory(d, path, "the args of %zu NCCL kernels and %zu [memory] events", nk, nm);
    } else if (all) {
        for (size_t i = 0; i < nk; i++) {
            all[i] = ks[i];
            r.comm[i] = (struct comm_kernel_args){ .slice = ks[i], .nelems = -1 };
        }
        if (nm)
            memcpy(all + nk, ms, nm * sizeof *all);
        char err[256];
        if (trace_events_read(m, all, nk + nm, args_event, &r, err, sizeof err))
            diag_add(d, DIAG_WARN, path, "reading the args of NCCL kernels and [memory] events: %s "
                     "(what was read before is kept)", err);
        if (r.bad)
            diag_add(d, DIAG_WARN, path,
                     "%zu of %zu [memory] events without an integer Total Allocated and Total Reserved: left out",
                     r.bad, nm);
    }
    free(ks);
    free(ms);
    free(all);
    if (r.mem && r.mem->nseries) {
        r.mem->nfiles = 1;
        r.mem->from_events = true;
        *memory = r.mem;
    } else {
        memory_free(r.mem);
    }
    if (comm) {
        *comm = r.comm;   /* in lane order, each lane by start: sorted by slice */
        *ncomm = r.comm ? nk : 0;
    }
}
