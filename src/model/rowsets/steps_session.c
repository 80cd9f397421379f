/* The steps and phases of every rank of a session as one rowset each (rows carry "rank" when
 * the session has several ranks; the report's steps and phases sections print them). Steps
 * are taken from rank_data.steps, or detected here when the loader did not. */
#include "model/analysis/steps.h"

#include "model/analysis/comm.h"
#include "model/index/rank_digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/rank_filter.h"
#include "model/index/session.h"

struct rowset *steps_rowset_of_rank(const struct rank_data *rd, const struct steps *s)
{
    struct rowset *rs = steps_rowset(s);
    if (!rs || !rd || !rd->tables[TK_STEP_TRACE])
        return rs;
    size_t c = rowset_col(rs, "file_stage_us", "File stage µs", RS_NS, 0);
    for (size_t r = 0; r < rs->nrows && s->source == STEP_SRC_MARKERS; r++) {
        ns_t v = rank_file_stage(rd, steps_get(s, (size_t)rs->link[r])->index);
        if (v != NS_NONE)
            rowset_ns(rs, r, c, v);
    }
    return rs;
}

typedef struct rowset *(*rows_fn)(const struct rank_data *rd, const struct steps *s);

static struct rowset *phases_of_rank(const struct rank_data *rd, const struct steps *s)
{
    (void)rd;
    return steps_phase_rowset(s);
}

/* Appends the rows of src to dst (same columns, dst may have a leading "rank" column). */
static void append_rows(struct rowset *dst, const struct rowset *src, size_t shift, int rank)
{
    for (size_t r = 0; r < src->nrows; r++) {
        size_t d = rowset_row(dst);
        if (d == SIZE_MAX)
            return;
        if (shift)
            rowset_int(dst, d, 0, rank);
        for (size_t c = 0; c < src->ncols; c++) {
            if (rowset_is_null(src, r, c))
                continue;
            const union rs_val *v = rowset_cell(src, r, c);
            switch (src->cols[c].type) {
            case RS_STR: rowset_str(dst, d, c + shift, strtab_get(src->str, v->s)); break;
            case RS_RAW: rowset_raw(dst, d, c + shift, strtab_get(src->str, v->s)); break;
            case RS_DEC: rowset_dec(dst, d, c + shift, strtab_get(src->str, v->s)); break;
            case RS_INT: rowset_int(dst, d, c + shift, v->i); break;
            case RS_NS: rowset_ns(dst, d, c + shift, v->i); break;
            case RS_NUM: case RS_PCT: rowset_num(dst, d, c + shift, v->d); break;
            }
        }
        dst->link[d] = src->link[r];
    }
}

static struct rowset *per_rank(const struct session *s, int only_rank, rows_fn fn)
{
    struct rowset *out = NULL;
    bool multi = s->nranks > 1;
    size_t shift = multi ? 1 : 0;
    char caption[512] = "";
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(rd->rank, only_rank))
            continue;
        /* a rank read from a summary: the rows its own host printed */
        const struct rank_digest *g = rd->model ? NULL : rd->digest;
        struct rowset *carried = !g ? NULL : fn == steps_rowset_of_rank ? g->steps : g->phases;
        if (!rd->model && !carried)
            continue;
        struct steps *own = NULL;
        const struct steps *st = rd->steps;
        if (!st && !g)
            st = own = steps_detect(rd->model, rd->tables[TK_KERNELS]);
        if (!st && !g)
            continue;
        struct rowset *rs = g ? carried : fn(rd, st);
        const char *note = g ? g->steps_note : st->note;
        if (rs && !out) {
            out = rowset_new(rs->name);
            if (out && multi)
                rowset_col(out, "rank", "Rank", RS_INT, 0);
            for (size_t c = 0; out && c < rs->ncols; c++)
                rowset_col(out, rs->cols[c].key, rs->cols[c].title, rs->cols[c].type, rs->cols[c].prec);
        }
        if (rs && out) {
            append_rows(out, rs, shift, rd->rank);
            size_t used = strlen(caption);
            if (used < sizeof caption - 1 && note[0]) {
                if (multi)
                    snprintf(caption + used, sizeof caption - used, "%srank %d: %s",
                             used ? "; " : "", rd->rank, note);
                else
                    snprintf(caption + used, sizeof caption - used, "%s", note);
            }
        }
        if (!g)
            rowset_free(rs);
        steps_free(own);
    }
    if (out && caption[0])
        rowset_caption(out, "%s", caption);
    return out;
}

struct rowset *steps_session_rowset(const struct session *s, int rank)
{
    return per_rank(s, rank, steps_rowset_of_rank);
}

struct rowset *steps_phases_session_rowset(const struct session *s, int rank)
{
    return per_rank(s, rank, phases_of_rank);
}
