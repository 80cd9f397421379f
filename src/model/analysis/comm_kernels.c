/* Communication ops of a GPU trace: its NCCL / RCCL kernels. See comm.h. */
#include "model/analysis/comm.h"

#include <stdio.h>
#include <string.h>

#include "model/analysis/steps.h"

bool comm_kernel_name(const char *s)
{
    return !strncmp(s, "nccl", 4) || !strncmp(s, "rccl", 4) || strstr(s, "ncclKernel") || strstr(s, "ncclDevKernel");
}

/* Send / receive kernels are point-to-point, the rest collectives. */
static enum comm_kind kind_of(const char *s)
{
    return strstr(s, "SendRecv") || strstr(s, "_Send") || strstr(s, "_Recv") ? COMM_P2P : COMM_COLLECTIVE;
}

/* The communication kernels of one device lane as ops of *c, made at the first one; false
 * when memory ran out for it. */
static bool add_lane_ops(struct comm **cp, const struct model *m, const struct lane *ln,
                         const struct steps *st)
{
    for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
        const char *name = model_str(m, m->name[s]);
        if (!comm_kernel_name(name))
            continue;
        if (!*cp && !(*cp = comm_new()))
            return false;
        struct comm *c = *cp;
        /* the kernel's name without its argument list, as the op's key */
        const char *paren = strchr(name, '(');
        size_t nl = paren ? (size_t)(paren - name) : strlen(name);
        if (!strncmp(name, "void ", 5) && nl > 5)
            name += 5, nl -= 5;
        struct comm_op op = { .kind = kind_of(name), .step_no = -1 };
        size_t si = steps_at(st, m->start[s]);
        if (si != SIZE_MAX) {
            char key[32];
            op.step_no = steps_get(st, si)->index;
            snprintf(key, sizeof key, "step%lld", (long long)op.step_no);
            op.step = strtab_intern(c->str, key, strlen(key));
        }
        op.name = strtab_intern(c->str, name, nl);
        op.has = CF_START | CF_ELAPSE;
        op.start_us = (double)m->start[s] / 1000.0;
        op.elapse_ms = (double)(m->dur[s] > 0 ? m->dur[s] : 0) / 1e6;
        comm_add_op(c, &op);
    }
    return true;
}

struct comm *comm_from_kernels(const struct model *m, const struct steps *st)
{
    if (!m || !m->finalized)
        return NULL;
    struct comm *c = NULL;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE && !add_lane_ops(&c, m, &m->lanes[l], st))
            return NULL;
    if (c)
        c->sources |= CS_KERNELS;
    return c;
}
