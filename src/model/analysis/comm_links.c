/* The link matrix (see comm_links.h for what is summed and the slow-link rule). */
#include "model/analysis/comm_links.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/index/rank_filter.h"
#include "model/index/session.h"

__extension__ typedef __int128 wide;

bool comm_link_group_is_sample(const char *group)
{
    const char *at = strchr(group, '@');
    size_t n = at ? (size_t)(at - group) : strlen(group);
    const char *dash = NULL;
    for (size_t i = 0; i < n; i++)
        if (group[i] == '-')
            dash = group + i;
    if (!dash)
        return false;
    const char *tag = dash + 1, *end = group + n;
    size_t tl = (size_t)(end - tag);
    if (tl == 6 && !memcmp(tag, "middle", 6))
        return true;
    for (int w = 0; w < 2; w++) {
        const char *word = w ? "bottom" : "top";
        size_t wl = strlen(word);
        if (tl > wl && !memcmp(tag, word, wl)) {
            const char *p = tag + wl;
            while (p < end && isdigit((unsigned char)*p))
                p++;
            if (p == end)
                return true;
        }
    }
    return false;
}

const char *comm_scaled_text(int64_t v, int digits, char *buf, size_t size)
{
    int64_t p = 1;
    for (int i = 0; i < digits; i++)
        p *= 10;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char frac[24];
    snprintf(frac, sizeof frac, "%0*llu", digits, (unsigned long long)(a % (uint64_t)p));
    size_t fl = strlen(frac);
    while (fl > 1 && frac[fl - 1] == '0')
        frac[--fl] = 0;
    snprintf(buf, size, "%s%llu.%s", v < 0 ? "-" : "", (unsigned long long)(a / (uint64_t)p), frac);
    return buf;
}

/* m * 10^k, false when it would not fit in 126 bits */
static bool mul10(wide *m, int k)
{
    const wide lim = ((wide)1 << 120);
    for (; k > 0; k--) {
        if (*m >= lim || *m <= -lim)
            return false;
        *m *= 10;
    }
    return true;
}

/* size / time in 1e-4 units, rounded half to even; -1 when time is 0 or out of range */
static int64_t quotient_e4(const struct decimal_sum *size, const struct decimal_sum *time)
{
    if (size->inexact || time->inexact || !size->any || !time->any || time->mant <= 0 || size->mant < 0)
        return -1;
    wide num = size->mant, den = time->mant;
    int e = size->exp - time->exp + 4;
    if (e >= 0 ? !mul10(&num, e) : !mul10(&den, -e))
        return -1;
    wide q = num / den, r = num % den;
    if (2 * r > den || (2 * r == den && (q & 1)))
        q++;
    return q > INT64_MAX ? -1 : (int64_t)q;
}

/* One entry of one rank's file, by the keys that place and dedupe it. */
struct entry {
    const struct comm *c;
    const struct comm_link *l;
    const char *transport, *step, *group, *link;
    uint32_t rank;
};

static int cmp_place(const struct entry *a, const struct entry *b)
{
    int c = strcmp(a->transport, b->transport);
    if (!c) c = (a->l->src > b->l->src) - (a->l->src < b->l->src);
    if (!c) c = (a->l->dst > b->l->dst) - (a->l->dst < b->l->dst);
    return c;
}

static int cmp_same(const struct entry *a, const struct entry *b)
{
    int c = cmp_place(a, b);
    if (!c) c = strcmp(a->step, b->step);
    if (!c) c = (a->l->kind > b->l->kind) - (a->l->kind < b->l->kind);
    if (!c) c = strcmp(a->group, b->group);
    if (!c) c = strcmp(a->link, b->link);
    return c;
}

static int cmp_entry(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    int c = cmp_same(a, b);
    if (!c) c = (a->rank > b->rank) - (a->rank < b->rank);
    return c;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Medians and the slow verdict per transport (links are grouped by transport). */
static int judge(struct comm_linkmat *m)
{
    int64_t *bw = malloc((m->n ? m->n : 1) * sizeof *bw);
    if (!bw)
        return -1;
    for (size_t i = 0; i < m->n; ) {
        size_t j = i, k = 0;
        while (j < m->n && !strcmp(m->l[j].transport, m->l[i].transport))
            j++;
        for (size_t q = i; q < j; q++)
            if (m->l[q].gbps_e4 >= 0)
                bw[k++] = m->l[q].gbps_e4;
        int64_t med = -1;
        if (k >= 2) {
            qsort(bw, k, sizeof *bw, cmp_i64);
            wide w = k % 2 ? (wide)bw[k / 2] * 10 : ((wide)bw[k / 2 - 1] + bw[k / 2]) * 5;
            med = w <= INT64_MAX ? (int64_t)w : -1;   /* hostile figures: no verdict */
        }
        for (size_t q = i; q < j; q++) {
            m->l[q].median_e5 = med;
            m->l[q].slow = med >= 0 && m->l[q].gbps_e4 >= 0 && (wide)m->l[q].gbps_e4 * 20 < med;
        }
        i = j;
    }
    free(bw);
    return 0;
}

void comm_links_done(struct comm_linkmat *m)
{
    free(m->l);
    memset(m, 0, sizeof *m);
}

int comm_links_build(const struct session *s, struct comm_linkmat *m)
{
    memset(m, 0, sizeof *m);
    size_t total = 0;
    for (size_t r = 0; r < s->nranks; r++)
        total += s->ranks[r].comm ? s->ranks[r].comm->nlinks : 0;
    if (!total)
        return 0;
    struct entry *e = malloc(total * sizeof *e);
    if (!e)
        return -1;
    size_t n = 0;
    for (size_t r = 0; r < s->nranks; r++) {
        const struct comm *c = s->ranks[r].comm;
        for (size_t k = 0; c && k < c->nlinks; k++) {
            const struct comm_link *l = &c->links[k];
            const char *group = l->group ? strtab_get(c->str, l->group) : "";
            if (comm_is_total_key(group) || comm_link_group_is_sample(group))
                continue;
            if (!(l->has & CL_RANKS) || !comm_link_text(c, l, CL_SIZE) || !comm_link_text(c, l, CL_TIME)) {
                m->skipped++;
                continue;
            }
            e[n++] = (struct entry){ c, l, l->transport ? strtab_get(c->str, l->transport) : "",
                                     l->step ? strtab_get(c->str, l->step) : "", group,
                                     l->link ? strtab_get(c->str, l->link) : "", (uint32_t)r };
        }
    }
    qsort(e, n, sizeof *e, cmp_entry);
    m->l = calloc(n ? n : 1, sizeof *m->l);
    if (!m->l) {
        free(e);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (i && !cmp_same(&e[i], &e[i - 1])) {   /* the same entry in another rank's file */
            m->duplicates++;
            continue;
        }
        if (!m->n || cmp_place(&e[i], &e[i - 1]) || strcmp(m->l[m->n - 1].transport, e[i].transport)
            || m->l[m->n - 1].src != e[i].l->src || m->l[m->n - 1].dst != e[i].l->dst)
            m->l[m->n++] = (struct comm_linkagg){ .src = e[i].l->src, .dst = e[i].l->dst, .transport = e[i].transport };
        struct comm_linkagg *a = &m->l[m->n - 1];
        decimal_sum_add(&a->size_mb, comm_link_text(e[i].c, e[i].l, CL_SIZE));
        decimal_sum_add(&a->time_ms, comm_link_text(e[i].c, e[i].l, CL_TIME));
        a->entries++;
    }
    free(e);
    for (size_t i = 0; i < m->n; i++)
        m->l[i].gbps_e4 = quotient_e4(&m->l[i].size_mb, &m->l[i].time_ms);
    if (judge(m)) {
        comm_links_done(m);
        return -1;
    }
    return 0;
}

struct rowset *comm_links_rowset(const struct session *s, int rank)
{
    struct comm_linkmat m;
    struct rowset *rs = NULL;
    if (comm_links_build(s, &m) || !m.n || !(rs = rowset_new("comm_matrix"))) {
        comm_links_done(&m);
        return NULL;
    }
    size_t c_src = rowset_col(rs, "src_rank", "Src", RS_INT, 0);
    size_t c_dst = rowset_col(rs, "dst_rank", "Dst", RS_INT, 0);
    size_t c_tt = rowset_col(rs, "transport", "Transport", RS_STR, 0);
    size_t c_mb = rowset_col(rs, "size_mb", "Size MB", RS_DEC, 0);
    size_t c_ms = rowset_col(rs, "time_ms", "Time ms", RS_DEC, 0);
    size_t c_bw = rowset_col(rs, "bandwidth_gbps", "Bandwidth GB/s", RS_DEC, 0);
    size_t c_slow = rowset_col(rs, "slow", "Slow", RS_RAW, 0);
    size_t c_med = rowset_col(rs, "transport_median_gbps", "Transport median GB/s", RS_DEC, 0);
    size_t c_n = rowset_col(rs, "entries", "Entries", RS_INT, 0);
    size_t slow = 0;
    for (size_t i = 0; i < m.n; i++) {
        const struct comm_linkagg *a = &m.l[i];
        if (!rank_selected(a->src, rank))
            continue;
        size_t row = rowset_linked_row(rs, i);
        if (row == SIZE_MAX)
            break;
        char buf[128];
        rowset_int(rs, row, c_src, a->src);
        rowset_int(rs, row, c_dst, a->dst);
        rowset_str(rs, row, c_tt, a->transport);
        const char *t = decimal_sum_text(&a->size_mb, buf, sizeof buf);
        if (t)
            rowset_dec(rs, row, c_mb, t);
        t = decimal_sum_text(&a->time_ms, buf, sizeof buf);
        if (t)
            rowset_dec(rs, row, c_ms, t);
        if (a->gbps_e4 >= 0)
            rowset_dec(rs, row, c_bw, comm_scaled_text(a->gbps_e4, 4, buf, sizeof buf));
        rowset_raw(rs, row, c_slow, a->slow ? "true" : "false");
        if (a->median_e5 >= 0)
            rowset_dec(rs, row, c_med, comm_scaled_text(a->median_e5, 5, buf, sizeof buf));
        rowset_int(rs, row, c_n, (int64_t)a->entries);
        slow += a->slow;
    }
    rowset_caption(rs, "%zu links, %zu slow (bandwidth below half the median of its transport's links); "
                   "%zu entries without ranks, size or time left out, %zu found in two files counted once",
                   rs->nrows, slow, m.skipped, m.duplicates);
    comm_links_done(&m);
    if (!rs->nrows) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}
