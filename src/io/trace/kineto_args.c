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

struct comm_read { const uint32_t *slices; struct comm_kernel_args *out; };

static void comm_event(void *ctx, size_t i, const char *ev, size_t n)
{
    struct comm_read *r = ctx;
    struct comm_kernel_args *k = &r->out[i];
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

struct comm_kernel_args *kineto_comm_args(const struct model *m, size_t *n, struct diag *d)
{
    *n = 0;
    size_t ns;
    uint32_t *slices = comm_kernel_slices(m, &ns);
    if (!slices)
        return NULL;
    struct comm_kernel_args *out = calloc(ns, sizeof *out);
    if (!out) {
        diag_out_of_memory(d, m->nfiles ? m->files[0].path : "", "the NCCL kernels' args (%zu kernels)", ns);
        free(slices);
        return NULL;
    }
    for (size_t i = 0; i < ns; i++)
        out[i] = (struct comm_kernel_args){ .slice = slices[i], .nelems = -1 };
    struct comm_read r = { slices, out };
    char err[256];
    if (trace_events_read(m, slices, ns, comm_event, &r, err, sizeof err))
        diag_add(d, DIAG_WARN, "", "NCCL kernels' args: %s (collectives matched by stream and order)", err);
    free(slices);
    *n = ns;   /* in lane order, each lane by start: sorted by slice */
    return out;
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

struct mem_read { struct memory *mem; const struct model *m; const uint32_t *slices; size_t bad; };

static void mem_event(void *ctx, size_t i, const char *ev, size_t n)
{
    struct mem_read *r = ctx;
    const char *a;
    size_t an;
    int64_t type = -1, dev = -1, alloc, resv;
    if (!event_args(ev, n, &a, &an) || !kineto_obj_int(a, an, "Total Allocated", &alloc)
        || !kineto_obj_int(a, an, "Total Reserved", &resv)) {
        r->bad++;
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
    size_t sr = memory_series(r->mem, comp, strlen(comp), MF_RECORD);
    if (sr == SIZE_MAX)
        return;
    int64_t v[MK_COUNT] = { [MK_ALLOCATED] = alloc, [MK_RESERVED] = resv, [MK_ACTIVE] = MEM_NONE };
    memory_add_point(r->mem, sr, r->m->start[r->slices[i]], v);
}

struct memory *kineto_memory(const struct model *m, struct diag *d)
{
    if (!m || !m->finalized)
        return NULL;
    uint32_t id = strtab_find(m->str, "[memory]", 8);
    if (id == UINT32_MAX)
        return NULL;
    size_t n = 0, cap = 0;
    uint32_t *slices = NULL;
    for (uint32_t s = 0; s < m->nslices; s++) {
        if (m->name[s] != id)
            continue;
        if (n == cap) {
            uint32_t *p = grow_array(slices, &cap, n + 1, sizeof *p);
            if (!p) {
                diag_out_of_memory(d, m->nfiles ? m->files[0].path : "", "the [memory] events (%zu read)", n);
                break;
            }
            slices = p;
        }
        slices[n++] = s;
    }
    struct memory *mem = n ? memory_new() : NULL;
    if (!mem) {
        free(slices);
        return NULL;
    }
    struct mem_read r = { mem, m, slices, 0 };
    char err[256];
    if (trace_events_read(m, slices, n, mem_event, &r, err, sizeof err))
        diag_add(d, DIAG_WARN, "", "[memory] events: %s (the curve stops there)", err);
    if (r.bad)
        diag_add(d, DIAG_WARN, m->nfiles ? m->files[0].path : "",
                 "%zu of %zu [memory] events without an integer Total Allocated and Total Reserved: left out",
                 r.bad, n);
    free(slices);
    mem->nfiles = 1;
    mem->from_events = true;
    if (!mem->nseries) {
        memory_free(mem);
        return NULL;
    }
    return mem;
}
