/* Communication ops of an Ascend trace that came without communication.json (msprof's
 * per-device timelines): the slices of its HCCL process. See comm.h, comm_from_hccl. */
#include "model/analysis/comm.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/analysis/steps.h"

/* The HCCL process lays its tasks out on lanes named "Plane N"; its other lanes ("Communication
 * Kernel", "Group 0 Communication") hold the ops. */
static bool plane_lane(const char *name)
{
    return !strncmp(name, "Plane ", 6);
}

/* Point-to-point ops send or receive (hcom_send, hcom_receive, hcom_batchSendRecv); the
 * rest are collectives. */
static enum comm_kind hccl_kind(const char *name)
{
    return strcasestr(name, "send") || strcasestr(name, "recv") || strcasestr(name, "receive") ? COMM_P2P
                                                                                            : COMM_COLLECTIVE;
}

/* ns as decimal text in units of 10^digits ns (3: µs, 6: ms), exact. */
static uint32_t ns_text(struct comm *c, ns_t v, int digits)
{
    char buf[48];
    long long unit = digits == 3 ? 1000 : 1000000;
    snprintf(buf, sizeof buf, "%s%lld.%0*lld", v < 0 ? "-" : "", (long long)(v < 0 ? -v : v) / unit, digits,
             (long long)(v < 0 ? -v : v) % unit);
    uint32_t id = strtab_intern_cstr(c->str, buf);
    if (id == UINT32_MAX)
        c->oom = true;
    return id == UINT32_MAX ? 0 : id;
}

/* Wait (Notify_Wait) and transit (every other task but Notify_Record) of the tasks on the
 * first plane (any depth) lying inside [t0, t1). */
static void plane_times(const struct model *m, uint32_t plane, ns_t t0, ns_t t1, ns_t *wait, ns_t *transit)
{
    *wait = *transit = 0;
    for (uint32_t depth = 0; depth < m->lanes[plane].ndepth; depth++) {
        uint32_t first, last;
        model_row_range(m, plane, depth, t0, t1, &first, &last);
        for (uint32_t s = first; s < last; s++) {
            if (m->start[s] < t0 || model_end(m, s) > t1)
                continue;
            const char *name = model_str(m, m->name[s]);
            ns_t d = m->dur[s] > 0 ? m->dur[s] : 0;
            if (!strcasecmp(name, "Notify_Wait"))
                *wait += d;
            else if (strcasecmp(name, "Notify_Record"))
                *transit += d;
        }
    }
}

/* One op of *cp (made at the first one) for slice s; false when memory ran out. */
static bool add_op(struct comm **cp, const struct model *m, uint32_t s, uint32_t plane, const struct steps *st)
{
    if (!*cp && !(*cp = comm_new()))
        return false;
    struct comm *c = *cp;
    const char *name = model_str(m, m->name[s]);
    struct comm_op op = { .kind = hccl_kind(name), .step_no = -1, .has = CF_START | CF_ELAPSE };
    size_t si = steps_at(st, m->start[s]);
    if (si != SIZE_MAX) {
        char key[32];
        op.step_no = steps_get(st, si)->index;
        snprintf(key, sizeof key, "step%lld", (long long)op.step_no);
        op.step = strtab_intern(c->str, key, strlen(key));
    }
    op.name = strtab_intern_cstr(c->str, name);
    ns_t dur = m->dur[s] > 0 ? m->dur[s] : 0;
    op.start_us = (double)m->start[s] / 1000.0;
    op.elapse_ms = (double)dur / 1e6;
    op.text[comm_bit_index(CF_START)] = ns_text(c, m->start[s], 3);
    op.text[comm_bit_index(CF_ELAPSE)] = ns_text(c, dur, 6);
    if (plane != LANE_NONE) {
        ns_t wait, transit;
        plane_times(m, plane, m->start[s], model_end(m, s), &wait, &transit);
        ns_t idle = dur - wait - transit;
        op.has |= CF_WAIT | CF_TRANSIT | (idle >= 0 ? CF_IDLE : 0);
        op.wait_ms = (double)wait / 1e6;
        op.transit_ms = (double)transit / 1e6;
        op.text[comm_bit_index(CF_WAIT)] = ns_text(c, wait, 6);
        op.text[comm_bit_index(CF_TRANSIT)] = ns_text(c, transit, 6);
        if (idle >= 0) {
            op.idle_ms = (double)idle / 1e6;
            op.text[comm_bit_index(CF_IDLE)] = ns_text(c, idle, 6);
        }
    }
    return comm_add_op(c, &op) != SIZE_MAX;
}

/* The ops of one HCCL process: the depth-0 slices of its lanes that are not planes. */
static bool add_proc_ops(struct comm **cp, const struct model *m, const struct proc *pr, const struct steps *st)
{
    uint32_t plane = LANE_NONE;
    for (uint32_t l = pr->first_lane; l < pr->first_lane + pr->nlanes; l++)
        if (!strcmp(model_str(m, m->lanes[l].name), "Plane 0"))
            plane = l;
    for (uint32_t l = pr->first_lane; l < pr->first_lane + pr->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_COMM || plane_lane(model_str(m, ln->name)) || !ln->ndepth)
            continue;
        for (uint32_t s = ln->row_first[0]; s < ln->row_first[1]; s++)
            if (!add_op(cp, m, s, plane, st))
                return false;
    }
    return true;
}

struct comm *comm_from_hccl(const struct model *m, const struct steps *st)
{
    if (!m || !m->finalized)
        return NULL;
    struct comm *c = NULL;
    for (uint32_t p = 0; p < m->nprocs; p++)
        if (m->procs[p].kind == LANE_COMM && !add_proc_ops(&c, m, &m->procs[p], st)) {
            comm_free(c);
            return NULL;
        }
    if (c)
        c->sources |= CS_HCCL;
    return c;
}
