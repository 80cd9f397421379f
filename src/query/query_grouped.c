/* A grouped read of a table (GROUP BY name, DISTINCT name): the runs of rows that share a
 * name, one per name and rank, with every name's runs together, names in byte order. Each
 * rank groups its own rows (query_internal.h, qtab_grouped_fn); the same text in two ranks
 * has two ids there, so the runs are put together by their text. Byte order is the order
 * SQLite's own GROUP BY gives (BINARY), so a grouped read answers in the same order. */
#include <stdlib.h>
#include <string.h>

#include "query/query_internal.h"

static int run_cmp(const void *pa, const void *pb)
{
    const struct qrun *a = pa, *b = pb;
    int d = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);
    if (d)
        return d;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->ri < b->ri ? -1 : a->ri > b->ri;
}

bool query_grouped_runs(const struct qtab *t, int64_t rank_lo, int64_t rank_hi, struct qrun **out, size_t *n)
{
    const struct session *s = t->s;
    struct qgroups *g = sqlite3_malloc64((s->nranks + 1) * sizeof *g);
    size_t total = 0;
    if (!g)
        return false;
    for (size_t ri = 0; ri < s->nranks; ri++) {
        bool kept = s->ranks[ri].rank >= rank_lo && s->ranks[ri].rank <= rank_hi && t->base[ri + 1] > t->base[ri];
        g[ri] = (struct qgroups){ 0 };
        if (kept && !t->grouped(t, ri, &g[ri])) {
            sqlite3_free(g);
            return false;
        }
        for (uint32_t k = 0; k < g[ri].ngroups; k++)
            total += g[ri].first[k + 1] > g[ri].first[k];
    }
    struct qrun *r = sqlite3_malloc64((total + 1) * sizeof *r);
    if (!r) {
        sqlite3_free(g);
        return false;
    }
    size_t at = 0;
    for (size_t ri = 0; ri < s->nranks; ri++)
        for (uint32_t k = 0; k < g[ri].ngroups; k++)
            if (g[ri].first[k + 1] > g[ri].first[k]) {
                r[at] = (struct qrun){ .order = g[ri].order, .from = g[ri].first[k], .to = g[ri].first[k + 1],
                                       .ri = ri };
                r[at].name = t->group_name(t, ri, k, &r[at].len);
                at++;
            }
    sqlite3_free(g);
    qsort(r, total, sizeof *r, run_cmp);
    *out = r;
    *n = total;
    return true;
}
