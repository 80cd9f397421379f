/* Communication ops of a GPU trace: its NCCL / RCCL kernels. See comm.h. */
#include "model/analysis/comm.h"

#include <inttypes.h>
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

/* ns as decimal text in units of 10^digits ns (3: µs, 6: ms), interned in c: the op's times
 * are then read back exactly, never through a double (a µs timestamp of 16 digits is not
 * exact as a double of µs). */
static uint32_t exact_text(struct comm *c, int64_t ns, int digits)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, unit = digits == 3 ? 1000 : 1000000;
    char buf[48];
    snprintf(buf, sizeof buf, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", a / unit, digits, a % unit);
    uint32_t id = strtab_intern_cstr(c->str, buf);
    if (id == UINT32_MAX)
        c->oom = true;
    return id == UINT32_MAX ? 0 : id;
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
        op.text[comm_bit_index(CF_START)] = exact_text(c, m->start[s], 3);
        op.text[comm_bit_index(CF_ELAPSE)] = exact_text(c, m->dur[s] > 0 ? m->dur[s] : 0, 6);
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
