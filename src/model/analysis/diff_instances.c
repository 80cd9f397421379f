/* The rows behind one diff row, from both captures: what `Enter` shows in the comparison
 * view. Each side's rows come from the same builders the section folded (the kernel table's
 * instances, operator_details rows, steps, communication ops, per-rank steps) filtered to
 * the row's key (and rank when rows match by rank), then merged into one rowset with a
 * leading "capture" column (base / new): columns are united by key, so a text export and
 * a DB export of the same kernel sit in one table. */
#include "model/analysis/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/kernels.h"
#include "model/index/rank_filter.h"
#include "model/analysis/steps.h"
#include "model/index/table.h"

/* Column of dst with this key and type, added when absent. */
static size_t dst_col(struct rowset *dst, const struct rs_col *c)
{
    size_t k = rowset_find_col(dst, c->key);
    if (k != SIZE_MAX && dst->cols[k].type == c->type)
        return k;
    if (k != SIZE_MAX) {
        char key[160];
        snprintf(key, sizeof key, "%s_%d", c->key, (int)c->type);
        k = rowset_find_col(dst, key);
        return k != SIZE_MAX ? k : rowset_col(dst, key, c->title, c->type, c->prec);
    }
    return rowset_col(dst, c->key, c->title, c->type, c->prec);
}

/* Appends the rows of src whose column `key_col` normalises to `key` (every row when
 * key_col is NULL) and whose rank matches (rank < 0: any). */
static void append(struct rowset *dst, const struct rowset *src, const char *side, int src_rank,
                   const char *key_col, const char *key, int rank)
{
    if (!src)
        return;
    size_t ck = key_col ? rowset_find_col(src, key_col) : SIZE_MAX;
    if (key_col && (ck == SIZE_MAX || src->cols[ck].type != RS_STR))
        return;
    size_t cr = rowset_find_col(src, "rank");
    size_t *map = malloc((src->ncols ? src->ncols : 1) * sizeof *map);
    if (!map)
        return;
    size_t c_side = rowset_find_col(dst, "capture"), c_rank = rowset_find_col(dst, "rank");
    struct diff_keybuf kb = { 0 };
    for (size_t c = 0; c < src->ncols; c++)
        map[c] = c == cr ? c_rank : dst_col(dst, &src->cols[c]);
    for (size_t r = 0; r < src->nrows; r++) {
        int rk = cr != SIZE_MAX && !rowset_is_null(src, r, cr) ? (int)rowset_cell(src, r, cr)->i : src_rank;
        if (!rank_selected(rk, rank))
            continue;
        if (ck != SIZE_MAX) {
            const char *nk = rowset_is_null(src, r, ck) ? NULL : diff_key_in(&kb, strtab_get(src->str, rowset_cell(src, r, ck)->s));
            if (!nk || strcmp(nk, key))
                continue;
        }
        size_t d = rowset_row(dst);
        if (d == SIZE_MAX)
            break;
        rowset_str(dst, d, c_side, side);
        rowset_int(dst, d, c_rank, rk);
        for (size_t c = 0; c < src->ncols; c++) {
            if (c == cr || map[c] == SIZE_MAX || rowset_is_null(src, r, c))
                continue;
            const union rs_val *v = rowset_cell(src, r, c);
            switch (src->cols[c].type) {
            case RS_STR: rowset_str(dst, d, map[c], strtab_get(src->str, v->s)); break;
            case RS_RAW: rowset_raw(dst, d, map[c], strtab_get(src->str, v->s)); break;
            case RS_DEC: rowset_dec(dst, d, map[c], strtab_get(src->str, v->s)); break;
            case RS_INT: rowset_int(dst, d, map[c], v->i); break;
            case RS_NS: rowset_ns(dst, d, map[c], v->i); break;
            case RS_NUM: case RS_PCT: rowset_num(dst, d, map[c], v->d); break;
            }
        }
        dst->link[d] = src->link[r];
    }
    free(kb.p);
    free(map);
}

/* Names of the aggregate agg (column col) that normalise to key, one call each. */
static void each_name(const struct rowset *agg, const char *col, const char *key, void (*fn)(const char *nm, void *ctx),
                      void *ctx)
{
    size_t ck = agg ? rowset_find_col(agg, col) : SIZE_MAX;
    struct diff_keybuf kb = { 0 };
    for (size_t r = 0; ck != SIZE_MAX && r < agg->nrows; r++) {
        const char *nm = strtab_get(agg->str, rowset_cell(agg, r, ck)->s);
        const char *nk = diff_key_in(&kb, nm);
        if (nk && !strcmp(nk, key))
            fn(nm, ctx);
    }
    free(kb.p);
}

struct kernel_ctx { struct rowset *dst; const struct rank_data *rd; const char *side; bool by_type; };

static void table_instances(const char *nm, void *ctx)
{
    struct kernel_ctx *k = ctx;
    struct rowset *inst = kernels_instances_of(k->rd->tables[TK_KERNELS], k->by_type ? KG_TYPE : KG_NAME, nm);
    append(k->dst, inst, k->side, k->rd->rank, NULL, NULL, -1);
    rowset_free(inst);
}

static void model_instances(const char *nm, void *ctx)
{
    struct kernel_ctx *k = ctx;
    struct rowset *inst = kernels_instances_model(k->rd->model, nm);
    append(k->dst, inst, k->side, k->rd->rank, NULL, NULL, -1);
    rowset_free(inst);
}

/* Kernel instances of one rank whose name (or type) normalises to key. */
static void kernel_rows(struct rowset *dst, const struct rank_data *rd, const char *side, bool by_type, const char *key)
{
    const struct table *t = rd->tables[TK_KERNELS];
    struct kernel_ctx k = { dst, rd, side, by_type };
    if (t && t->nrows) {
        /* the names of the aggregate that normalise to key, then their instances */
        struct rowset *agg = kernels_aggregate(t, by_type ? KG_TYPE : KG_NAME);
        each_name(agg, by_type ? "type" : "name", key, table_instances, &k);
        rowset_free(agg);
    } else if (rd->model && !by_type) {
        struct rowset *agg = kernels_aggregate_model(rd->model);
        each_name(agg, "name", key, model_instances, &k);
        rowset_free(agg);
    }
}

static void side_rows(struct rowset *dst, enum diff_section sec, const struct session *s, const char *side,
                      const char *key, int rank)
{
    int one = s->nranks ? s->ranks[0].rank : 0;
    switch (sec) {
    case DIFF_KERNELS:
    case DIFF_KERNEL_TYPES:
        for (size_t i = 0; i < s->nranks; i++)
            if (rank_selected(s->ranks[i].rank, rank))
                kernel_rows(dst, &s->ranks[i], side, sec == DIFF_KERNEL_TYPES, key);
        break;
    case DIFF_OPS:
        for (size_t i = 0; i < s->nranks; i++) {
            const struct table *t = s->ranks[i].tables[TK_OPERATOR_DETAILS];
            if (!t || !rank_selected(s->ranks[i].rank, rank))
                continue;
            struct rowset *rs = table_to_rowset(t, "operator_details");
            append(dst, rs, side, s->ranks[i].rank, "name", key, -1);
            rowset_free(rs);
        }
        break;
    case DIFF_PHASES: {
        struct rowset *rs = steps_session_rowset(s, -1);
        append(dst, rs, side, one, "phase", key, rank);
        rowset_free(rs);
        break;
    }
    case DIFF_COMM: {
        struct rowset *rs = comm_ops_rowset(s, -1);
        append(dst, rs, side, one, "name", key, rank);
        rowset_free(rs);
        break;
    }
    case DIFF_RANKS: {
        struct rowset *rs = comm_rank_steps_rowset(s, -1);
        append(dst, rs, side, one, NULL, NULL, rank);
        rowset_free(rs);
        break;
    }
    default:
        break;
    }
}

struct rowset *diff_instances(enum diff_section sec, const struct session *base, const struct session *new,
                              const char *key, int rank)
{
    struct rowset *rs = rowset_new("diff_instances");
    if (!rs)
        return NULL;
    rowset_col(rs, "capture", "Capture", RS_STR, 0);
    rowset_col(rs, "rank", "Rank", RS_INT, 0);
    side_rows(rs, sec, base, "base", key, rank);
    side_rows(rs, sec, new, "new", key, rank);
    size_t nb = 0, cs = rowset_find_col(rs, "capture");
    for (size_t r = 0; r < rs->nrows; r++)
        nb += !strcmp(strtab_get(rs->str, rowset_cell(rs, r, cs)->s), "base");
    char e[200];
    snprintf(e, sizeof e, "%s", key);
    rowset_caption(rs, "%s: %zu rows in base, %zu in new", e, nb, rs->nrows - nb);
    return rs;
}
