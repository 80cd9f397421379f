/* The canonical decode steps of two captures aligned kernel by kernel (see diff.h).
 *
 * The alignment is a longest common subsequence of the two name sequences: matched names
 * keep their order, everything else is a gap on one side, so a kernel inserted into the
 * new step shows as "added" at its place and the kernels after it still line up. The
 * common prefix and suffix are matched first (two decode steps of one model mostly agree),
 * and the quadratic table covers only the middle; past ALIGN_MAX_CELLS cells the middle is
 * paired by position instead (said in the caption). */
#include "model/analysis/diff.h"
#include "util/grow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/strtab.h"

#define ALIGN_MAX_CELLS ((size_t)16 << 20)      /* 64 MB of table */

static bool pair_push(struct diff_pair **v, size_t *n, size_t *cap, size_t a, size_t b)
{
    struct diff_pair *nv = grow_array(*v, cap, *n + 1, sizeof *nv);
    if (!nv)
        return false;
    *v = nv;
    (*v)[(*n)++] = (struct diff_pair){ a, b };
    return true;
}

/* LCS table over a[a0..a1) x b[b0..b1), filled from the end: len[i][j] is the LCS of the
 * suffixes, so the walk from (a0, b0) forward emits pairs in order. */
static int align_middle(const char *const *a, size_t a0, size_t a1, const char *const *b, size_t b0,
                        size_t b1, struct diff_pair **v, size_t *n, size_t *cap, bool *by_position)
{
    size_t na = a1 - a0, nb = b1 - b0;
    if ((na + 1) * (nb + 1) > ALIGN_MAX_CELLS) {
        *by_position = true;
        for (size_t k = 0; k < na || k < nb; k++)
            if (!pair_push(v, n, cap, k < na ? a0 + k : SIZE_MAX, k < nb ? b0 + k : SIZE_MAX))
                return -1;
        return 0;
    }
    size_t w = nb + 1;
    uint32_t *len = calloc((na + 1) * w, sizeof *len);
    if (!len)
        return -1;
    for (size_t i = na; i-- > 0; )
        for (size_t j = nb; j-- > 0; ) {
            uint32_t *c = &len[i * w + j];
            if (!strcmp(a[a0 + i], b[b0 + j]))
                *c = len[(i + 1) * w + j + 1] + 1;
            else
                *c = len[(i + 1) * w + j] > len[i * w + j + 1] ? len[(i + 1) * w + j] : len[i * w + j + 1];
        }
    size_t i = 0, j = 0;
    bool ok = true;
    while (ok && (i < na || j < nb)) {
        if (i < na && j < nb && !strcmp(a[a0 + i], b[b0 + j])) {
            ok = pair_push(v, n, cap, a0 + i++, b0 + j++);
        } else if (j < nb && (i == na || len[i * w + j + 1] >= len[(i + 1) * w + j])) {
            ok = pair_push(v, n, cap, SIZE_MAX, b0 + j++);      /* inserted in b */
        } else {
            ok = pair_push(v, n, cap, a0 + i++, SIZE_MAX);      /* removed from a */
        }
    }
    free(len);
    return ok ? 0 : -1;
}

static int align(const char *const *a, size_t na, const char *const *b, size_t nb,
                 struct diff_pair **pair, size_t *npair, bool *by_position)
{
    struct diff_pair *v = NULL;
    size_t n = 0, cap = 0;
    size_t pre = 0;
    while (pre < na && pre < nb && !strcmp(a[pre], b[pre]))
        pre++;
    size_t suf = 0;
    while (suf < na - pre && suf < nb - pre && !strcmp(a[na - 1 - suf], b[nb - 1 - suf]))
        suf++;
    bool ok = true;
    for (size_t k = 0; ok && k < pre; k++)
        ok = pair_push(&v, &n, &cap, k, k);
    if (ok && align_middle(a, pre, na - suf, b, pre, nb - suf, &v, &n, &cap, by_position))
        ok = false;
    for (size_t k = 0; ok && k < suf; k++)
        ok = pair_push(&v, &n, &cap, na - suf + k, nb - suf + k);
    if (!ok) {
        free(v);
        return -1;
    }
    *pair = v;
    *npair = n;
    return 0;
}

int diff_align_names(const char *const *a, size_t na, const char *const *b, size_t nb,
                     struct diff_pair **pair, size_t *npair)
{
    bool by_position = false;
    *pair = NULL;
    *npair = 0;
    return align(a, na, b, nb, pair, npair, &by_position);
}

/* --- the decode alignment rowset ---------------------------------------------------------- */

struct canon {
    struct rowset *rs;          /* steps_canonical_rowset of the chosen rank */
    int rank;
    const char **name;          /* as the capture names them */
    const char **key;           /* normalised (diff_key): what the alignment compares */
    struct strtab *keys;
    size_t n;
    size_t c_med, c_p90;
};

/* The first rank of s with decode steps (the one with id `want` when it has them). */
static int canon_load(struct canon *c, const struct session *s, int want)
{
    memset(c, 0, sizeof *c);
    const struct rank_data *pick = NULL;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rd->steps || !rd->steps->phase[PHASE_DECODE].count)
            continue;
        if (!pick || rd->rank == want)
            pick = rd;
        if (rd->rank == want)
            break;
    }
    if (!pick || !(c->rs = steps_canonical_rowset(pick->steps, SIZE_MAX)))
        return -1;
    c->rank = pick->rank;
    size_t cn = rowset_find_col(c->rs, "name");
    c->c_med = rowset_find_col(c->rs, "median_us");
    c->c_p90 = rowset_find_col(c->rs, "p90_us");
    c->name = malloc((c->rs->nrows ? c->rs->nrows : 1) * sizeof *c->name);
    c->key = malloc((c->rs->nrows ? c->rs->nrows : 1) * sizeof *c->key);
    c->keys = strtab_new();
    if (cn == SIZE_MAX || !c->name || !c->key || !c->keys)
        return -1;
    uint32_t *ids = malloc((c->rs->nrows ? c->rs->nrows : 1) * sizeof *ids);
    if (!ids)
        return -1;
    struct diff_keybuf kb = { 0 };
    for (size_t r = 0; r < c->rs->nrows; r++) {
        c->name[r] = rowset_is_null(c->rs, r, cn) ? "" : strtab_get(c->rs->str, rowset_cell(c->rs, r, cn)->s);
        const char *k = diff_key_in(&kb, c->name[r]);
        ids[r] = k ? strtab_intern_cstr(c->keys, k) : UINT32_MAX;
    }
    free(kb.p);
    /* pointers only after every key is in: the table's blocks do not move, but be plain */
    for (size_t r = 0; r < c->rs->nrows; r++)
        c->key[r] = ids[r] == UINT32_MAX ? c->name[r] : strtab_get(c->keys, ids[r]);
    free(ids);
    c->n = c->rs->nrows;
    return 0;
}

static void canon_done(struct canon *c)
{
    rowset_free(c->rs);
    free(c->name);
    free(c->key);
    if (c->keys)
        strtab_free(c->keys);
}

static bool canon_ns(const struct canon *c, size_t row, size_t col, ns_t *out)
{
    if (row == SIZE_MAX || col == SIZE_MAX || rowset_is_null(c->rs, row, col))
        return false;
    *out = rowset_cell(c->rs, row, col)->i;
    return true;
}

struct rowset *diff_align_decode(const struct session *base, const struct session *new)
{
    struct canon cb, cn;
    int rb = canon_load(&cb, base, 0);
    int rn = rb ? -1 : canon_load(&cn, new, cb.rank);
    if (rb || rn) {
        canon_done(&cb);
        if (!rb)
            canon_done(&cn);
        return NULL;
    }
    struct diff_pair *pair = NULL;
    size_t np = 0;
    bool by_position = false;
    struct rowset *rs = NULL;
    if (align(cb.key, cb.n, cn.key, cn.n, &pair, &np, &by_position) == 0 && (rs = rowset_new("decode_diff"))) {
        size_t c_pos = rowset_col(rs, "position", "#", RS_INT, 0);
        size_t c_bp = rowset_col(rs, "base_position", "Base #", RS_INT, 0);
        size_t c_np = rowset_col(rs, "new_position", "New #", RS_INT, 0);
        size_t c_name = rowset_col(rs, "name", "Kernel", RS_STR, 0);
        size_t c_new_name = by_position ? rowset_col(rs, "new_name", "New kernel", RS_STR, 0) : SIZE_MAX;
        size_t c_bm = rowset_col(rs, "base_median_us", "Base median µs", RS_NS, 0);
        size_t c_nm = rowset_col(rs, "new_median_us", "New median µs", RS_NS, 0);
        size_t c_d = rowset_col(rs, "delta_us", "Delta µs", RS_NS, 0);
        size_t c_st = rowset_col(rs, "status", "Status", RS_STR, 0);
        size_t count[DS_COUNT] = { 0 };
        ns_t sum = 0;
        for (size_t k = 0; k < np; k++) {
            size_t row = rowset_row(rs);
            if (row == SIZE_MAX)
                break;
            size_t a = pair[k].a, b = pair[k].b;
            rs->link[row] = k;
            rowset_int(rs, row, c_pos, (int64_t)k + 1);
            if (a != SIZE_MAX)
                rowset_int(rs, row, c_bp, (int64_t)a + 1);
            if (b != SIZE_MAX)
                rowset_int(rs, row, c_np, (int64_t)b + 1);
            rowset_str(rs, row, c_name, a != SIZE_MAX ? cb.key[a] : cn.key[b]);
            if (c_new_name != SIZE_MAX && b != SIZE_MAX)
                rowset_str(rs, row, c_new_name, cn.name[b]);
            ns_t bm = 0, nm = 0, bp, npp;
            bool hb = canon_ns(&cb, a, cb.c_med, &bm), hn = canon_ns(&cn, b, cn.c_med, &nm);
            if (hb)
                rowset_ns(rs, row, c_bm, bm);
            if (hn)
                rowset_ns(rs, row, c_nm, nm);
            ns_t d = (hn ? nm : 0) - (hb ? bm : 0);
            rowset_ns(rs, row, c_d, d);
            sum += d;
            enum diff_status st;
            if (a == SIZE_MAX)
                st = DS_ADDED;
            else if (b == SIZE_MAX)
                st = DS_REMOVED;
            else {
                ns_t band = bm / 100;
                if (canon_ns(&cb, a, cb.c_p90, &bp) && bp - bm > band)
                    band = bp - bm;
                if (canon_ns(&cn, b, cn.c_p90, &npp) && npp - nm > band)
                    band = npp - nm;
                st = d > band ? DS_SLOWER : d < -band ? DS_FASTER : DS_UNCHANGED;
            }
            count[st]++;
            rowset_str(rs, row, c_st, diff_status_name(st));
        }
        char sums[48];
        unsigned long long mag = sum < 0 ? 0ull - (unsigned long long)sum : (unsigned long long)sum;
        snprintf(sums, sizeof sums, "%s%llu.%03llu", sum < 0 ? "-" : "+", mag / 1000, mag % 1000);
        rowset_caption(rs, "canonical decode step, rank %d (%zu kernels) against rank %d (%zu kernels)%s: "
                       "%zu matched (%zu slower, %zu faster), %zu added, %zu removed; sum of deltas %s µs",
                       cb.rank, cb.n, cn.rank, cn.n, by_position ? ", too long to align: paired by position" : "",
                       count[DS_UNCHANGED] + count[DS_SLOWER] + count[DS_FASTER], count[DS_SLOWER],
                       count[DS_FASTER], count[DS_ADDED], count[DS_REMOVED], sums);
    }
    free(pair);
    canon_done(&cb);
    canon_done(&cn);
    return rs;
}
