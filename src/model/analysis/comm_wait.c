/* A rank's communication wait as wall-clock time (see comm_wait.h). */
#include "model/analysis/comm_wait.h"

#include <stdlib.h>
#include <string.h>

#include "model/index/timeparse.h"

bool comm_op_is_p2p(const struct comm *c, const struct comm_op *op)
{
    if (op->kind == COMM_P2P)
        return true;
    const char *n = strtab_get(c->str, op->name);
    return !strncmp(n, "hcom_send", 9) || !strncmp(n, "hcom_receive", 12) || !strncmp(n, "hcom_batchSendRecv", 18)
        || strstr(n, "SendRecv") != NULL;
}

/* An op's figure of field bit as exact ns, NS_NONE when absent or not a number. */
static ns_t ms_field(const struct comm *c, const struct comm_op *op, unsigned bit)
{
    const char *t = comm_op_text(c, op, bit);
    int64_t v;
    return t && !decimal_ms_to_ns(t, strlen(t), &v) ? v : NS_NONE;
}

struct span { ns_t t0, t1; };

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

int comm_wait_of(const struct comm *c, const ns_t *derived, unsigned kinds, ns_t from, ns_t to,
                 struct comm_wait *out)
{
    memset(out, 0, sizeof *out);
    if (!c || !c->nops)
        return 0;
    struct span *v = malloc(c->nops * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    ns_t loose = 0;                   /* waits of ops without a start */
    for (size_t i = 0; i < c->nops; i++) {
        const struct comm_op *op = &c->ops[i];
        if (op->total || !(kinds & (comm_op_is_p2p(c, op) ? CW_P2P : CW_COLLECTIVE)))
            continue;
        ns_t w = derived && derived[i] != NS_NONE ? derived[i] : ms_field(c, op, CF_WAIT);
        ns_t el = ms_field(c, op, CF_ELAPSE);
        if (w == NS_NONE || el == NS_NONE)
            continue;
        out->nops++;
        out->summed += w;
        out->elapsed += el;
        if (w > el)
            w = el;
        if (w <= 0)
            continue;
        if (op->start_ns == NS_NONE) {
            loose += w;
            continue;
        }
        ns_t t0 = op->start_ns, t1 = op->start_ns + w;
        if (from != NS_NONE) {
            t0 = t0 < from ? from : t0;
            t1 = t1 > to ? to : t1;
        }
        if (t1 > t0)
            v[n++] = (struct span){ t0, t1 };
    }
    qsort(v, n, sizeof *v, cmp_span);
    ns_t end = NS_NONE;
    for (size_t i = 0; i < n; i++) {
        if (end == NS_NONE || v[i].t0 >= end) {
            out->waited += v[i].t1 - v[i].t0;
            end = v[i].t1;
        } else if (v[i].t1 > end) {
            out->waited += v[i].t1 - end;
            end = v[i].t1;
        }
    }
    out->waited += loose;
    free(v);
    return 0;
}
