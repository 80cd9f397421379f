/* Diff sections: the rows of two sides' rowsets folded by key and joined (see diff.h). */
#include "model/analysis/diff.h"
#include "util/grow.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/index/hash.h"
#include "model/analysis/kernels.h"
#include "model/analysis/steps.h"
#include "model/index/timeparse.h"
#include "util/free_all.h"

const char *diff_status_name(enum diff_status st)
{
    static const char *const n[] = { "unchanged", "slower", "faster", "added", "removed" };
    return st < DS_COUNT ? n[st] : "?";
}

static const struct { const char *name, *help; } section_names[DIFF_SECTIONS] = {
    { "kernels_diff", "device kernels by name: count and total, base against new" },
    { "kernel_types_diff", "device kernels by type" },
    { "ops_diff", "host operators by name (host total)" },
    { "phases_diff", "steps per phase: count, total, p50/p90/max" },
    { "comm_diff", "communication ops by name: elapse, wait, transit" },
    { "ranks_diff", "ranks by id: steps, mean step, computing, communication, free" },
};

const char *diff_section_name(enum diff_section sec) { return sec < DIFF_SECTIONS ? section_names[sec].name : "?"; }
const char *diff_section_help(enum diff_section sec) { return sec < DIFF_SECTIONS ? section_names[sec].help : "?"; }

const char *diff_key(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s", name ? name : "");
    if (strncmp(buf, "hcom_", 5) != 0)
        return buf;
    char *at = strchr(buf, '@');
    if (at)
        *at = 0;
    char *us = strstr(buf + 5, "__");
    if (us) {
        char *d = us + 2, *e = d;
        while (*e >= '0' && *e <= '9')
            e++;
        if (e > d && (size_t)(d - buf) + 2 < size) {
            memmove(d + 1, e, strlen(e) + 1);
            *d = '*';
        }
    }
    return buf;
}

const char *diff_key_in(struct diff_keybuf *kb, const char *name)
{
    size_t need = strlen(name ? name : "") + 1;
    if (need > kb->cap) {
        char *np = grow_exact(kb->p, need, 1);
        if (!np)
            return NULL;
        kb->p = np;
        kb->cap = need;
    }
    return diff_key(name, kb->p, kb->cap);
}

bool diff_by_rank(const struct session *base, const struct session *new)
{
    return !(base->nranks == 1 && new->nranks == 1);
}

/* --- noise --------------------------------------------------------------------------- */

static const struct steps *rank_steps(const struct rank_data *rd)
{
    return rd->steps;
}

static uint64_t phase_steps(const struct session *s, enum step_phase p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct steps *st = rank_steps(&s->ranks[i]);
        if (st)
            n += st->phase[p].count;
    }
    return n;
}

/* 3 x max(MAD, 1% of p50) / p50 of phase p, the largest over the ranks of s. */
static double phase_band(const struct session *s, enum step_phase p)
{
    double band = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct steps *st = rank_steps(&s->ranks[i]);
        if (!st || !st->phase[p].count || st->phase[p].p50 <= 0)
            continue;
        const struct phase_stat *ps = &st->phase[p];
        ns_t spread = ps->mad > ps->p50 / 100 ? ps->mad : ps->p50 / 100;
        double b = 3.0 * (double)spread / (double)ps->p50;
        if (b > band)
            band = b;
    }
    return band;
}

void diff_noise(const struct session *base, const struct session *new, struct diff_noise *out)
{
    memset(out, 0, sizeof *out);
    out->phase = PHASE_COUNT;
    if (phase_steps(base, PHASE_DECODE) && phase_steps(new, PHASE_DECODE)) {
        out->phase = PHASE_DECODE;
    } else {
        uint64_t best = 0;
        for (int p = 0; p < PHASE_COUNT; p++) {
            uint64_t nb = phase_steps(base, (enum step_phase)p);
            if (nb > best && phase_steps(new, (enum step_phase)p)) {
                best = nb;
                out->phase = (enum step_phase)p;
            }
        }
    }
    out->rel = 0.03;
    if (out->phase == PHASE_COUNT) {
        snprintf(out->basis, sizeof out->basis, "no phase with steps on both sides: band 3%% (3 x the 1%% floor)");
        return;
    }
    double b = phase_band(base, out->phase), n = phase_band(new, out->phase);
    if (b > out->rel)
        out->rel = b;
    if (n > out->rel)
        out->rel = n;
    snprintf(out->basis, sizeof out->basis,
             "noise band %.1f%% = 3 x step MAD / p50 of %s steps (base %.1f%%, new %.1f%%, floor 3%%)",
             out->rel * 100, step_phase_name(out->phase), b * 100, n * 100);
}

/* --- folding one side ------------------------------------------------------------------ */

#define MAXFIG 5

struct fig_spec {
    const char *col;            /* source column key */
    const char *out;            /* output stem: base_<out>, new_<out>, delta_<out> */
    const char *title;          /* title stem ("mean µs") */
    bool additive;              /* summed when rows share a key; else null then */
};

struct diff_spec {
    const char *what;                  /* caption: "kernels by name" */
    const char *key_cols[3];           /* tried in order */
    const char *count_col;             /* NULL: rows counted */
    const char *total_cols[3];         /* tried in order */
    struct fig_spec figs[MAXFIG];
    int compare;                       /* -1: the total, else a figure index */
    const char *skip_key;              /* rows with this key are aggregates: left out */
};

struct entry {
    int rank;
    uint32_t key;                      /* in the fold's strtab */
    uint32_t rows;
    int64_t count;
    bool has_count, has_total;
    ns_t total;
    ns_t fig[MAXFIG];
    bool has_fig[MAXFIG];
    ns_t band;                         /* phases: the absolute band, NS_NONE otherwise */
};

struct fold {
    struct strtab *str;
    struct entry *v;
    size_t n, cap;
    uint32_t *slot;                    /* open addressing over (key, rank): entry index + 1 */
    size_t nslot;
    struct diff_keybuf kb;             /* the key of the row at hand */
    bool oom;
};

static void fold_done(struct fold *f)
{
    if (f->str)
        strtab_free(f->str);
    FREE_ALL(f->v, f->slot, f->kb.p);
    memset(f, 0, sizeof *f);
}

static uint64_t entry_hash(uint32_t key, int rank)
{
    return hash_mix64(((uint64_t)key << 32) ^ (uint32_t)rank);
}

/* (Re)builds the slot index with ns slots (a power of two). */
static int fold_index(struct fold *f, size_t ns)
{
    uint32_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < f->n; i++) {
        size_t h = entry_hash(f->v[i].key, f->v[i].rank) & (ns - 1);
        while (slot[h])
            h = (h + 1) & (ns - 1);
        slot[h] = (uint32_t)i + 1;
    }
    free(f->slot);
    f->slot = slot;
    f->nslot = ns;
    return 0;
}

/* The entry of (key text, rank), or NULL. */
static const struct entry *fold_find(const struct fold *f, const char *key, size_t len, int rank)
{
    uint32_t id = f->str ? strtab_find(f->str, key, len) : UINT32_MAX;
    if (id == UINT32_MAX || !f->nslot)
        return NULL;
    size_t h = entry_hash(id, rank) & (f->nslot - 1);
    for (; f->slot[h]; h = (h + 1) & (f->nslot - 1)) {
        const struct entry *e = &f->v[f->slot[h] - 1];
        if (e->key == id && e->rank == rank)
            return e;
    }
    return NULL;
}

/* The entry of (key, rank), added when new; NULL when memory ran out. */
static struct entry *fold_entry(struct fold *f, const char *key, int rank)
{
    if (!f->str && !(f->str = strtab_new()))
        return NULL;
    uint32_t id = strtab_intern_cstr(f->str, key);
    if (id == UINT32_MAX)
        return NULL;
    if (2 * (f->n + 1) > f->nslot && fold_index(f, f->nslot ? f->nslot * 2 : 64))
        return NULL;
    size_t h = entry_hash(id, rank) & (f->nslot - 1);
    while (f->slot[h]) {
        struct entry *e = &f->v[f->slot[h] - 1];
        if (e->key == id && e->rank == rank)
            return e;
        h = (h + 1) & (f->nslot - 1);
    }
    struct entry *nv = grow_array(f->v, &f->cap, f->n + 1, sizeof *nv);
    if (!nv)
        return NULL;
    f->v = nv;
    f->v[f->n] = (struct entry){ .rank = rank, .key = id, .band = NS_NONE };
    f->slot[h] = (uint32_t)++f->n;
    return &f->v[f->n - 1];
}

/* The entry of row r under the key name, its rank from column cr when the row has one, else
 * rank; NULL, with f->oom set, when memory ran out. */
static struct entry *row_entry(struct fold *f, const struct rowset *rs, size_t r, size_t cr, const char *name,
                               int rank)
{
    const char *key = diff_key_in(&f->kb, name);
    int rk = cr != SIZE_MAX && !rowset_is_null(rs, r, cr) ? (int)rowset_cell(rs, r, cr)->i : rank;
    struct entry *e = key ? fold_entry(f, key, rk) : NULL;
    if (!e)
        f->oom = true;
    return e;
}

static size_t first_col(const struct rowset *rs, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n && keys[i]; i++) {
        size_t c = rowset_find_col(rs, keys[i]);
        if (c != SIZE_MAX)
            return c;
    }
    return SIZE_MAX;
}

/* A cell as ns: RS_NS and RS_INT as they are, ms figures (RS_NUM, "_ms" keys) rounded to
 * the nearest ns; false when null or not a time. */
static bool cell_ns(const struct rowset *rs, size_t row, size_t col, ns_t *out)
{
    if (col == SIZE_MAX || rowset_is_null(rs, row, col))
        return false;
    const union rs_val *v = rowset_cell(rs, row, col);
    switch (rs->cols[col].type) {
    case RS_NS: case RS_INT:
        *out = v->i;
        return true;
    case RS_NUM: {
        size_t kl = strlen(rs->cols[col].key);
        if (kl < 3 || strcmp(rs->cols[col].key + kl - 3, "_ms") || !(fabs(v->d) < 9e12))
            return false;
        *out = llround(v->d * 1e6);
        return true;
    }
    case RS_DEC: {   /* a file's ms figure as written: exact to the ns from its text */
        size_t kl = strlen(rs->cols[col].key);
        const char *t = strtab_get(rs->str, v->s);
        int64_t ns;
        if (kl < 3 || strcmp(rs->cols[col].key + kl - 3, "_ms") || decimal_ms_to_ns(t, strlen(t), &ns))
            return false;
        *out = ns;
        return true;
    }
    default:
        return false;
    }
}

static ns_t sat_add(ns_t a, ns_t b)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN + 1 - b))
        return b > 0 ? INT64_MAX : INT64_MIN + 1;
    return a + b;
}

/* Folds the rows of rs into f by (key, rank): rank from its "rank" column, else `rank`. */
static void fold_rows(struct fold *f, const struct rowset *rs, const struct diff_spec *sp, int rank)
{
    if (!rs)
        return;
    size_t ck = first_col(rs, sp->key_cols, 3);
    if (ck == SIZE_MAX || rs->cols[ck].type != RS_STR)
        return;
    size_t cr = rowset_find_col(rs, "rank");
    size_t cc = sp->count_col ? rowset_find_col(rs, sp->count_col) : SIZE_MAX;
    size_t ct = first_col(rs, sp->total_cols, 3);
    size_t cf[MAXFIG];
    for (size_t k = 0; k < MAXFIG; k++)
        cf[k] = sp->figs[k].col ? rowset_find_col(rs, sp->figs[k].col) : SIZE_MAX;
    for (size_t r = 0; r < rs->nrows; r++) {
        if (rowset_is_null(rs, r, ck))
            continue;
        const char *name = strtab_get(rs->str, rowset_cell(rs, r, ck)->s);
        if (sp->skip_key && !strcmp(name, sp->skip_key))
            continue;
        struct entry *e = row_entry(f, rs, r, cr, name, rank);
        if (!e)
            return;
        e->rows++;
        ns_t v;
        if (cc != SIZE_MAX && cell_ns(rs, r, cc, &v)) {
            e->count += v;
            e->has_count = true;
        } else if (sp->count_col == NULL) {
            e->count++;
            e->has_count = true;
        }
        if (cell_ns(rs, r, ct, &v)) {
            e->total = sat_add(e->total, v);
            e->has_total = true;
        }
        for (size_t k = 0; k < MAXFIG; k++) {
            if (cell_ns(rs, r, cf[k], &v)) {
                e->fig[k] = e->has_fig[k] ? sat_add(e->fig[k], v) : v;
                e->has_fig[k] = true;
            }
            if (e->rows > 1 && !sp->figs[k].additive)
                e->has_fig[k] = false;        /* a mean or a percentile does not add up */
        }
    }
}

/* Adds the totals of rs (summed total_col per key) to entries of f without counting rows. */
static void fold_totals(struct fold *f, const struct rowset *rs, const char *key_col, const char *total_col, int rank)
{
    if (!rs)
        return;
    size_t ck = rowset_find_col(rs, key_col), ct = rowset_find_col(rs, total_col);
    size_t cr = rowset_find_col(rs, "rank");
    if (ck == SIZE_MAX || rs->cols[ck].type != RS_STR)
        return;
    for (size_t r = 0; r < rs->nrows; r++) {
        ns_t v;
        if (rowset_is_null(rs, r, ck) || !cell_ns(rs, r, ct, &v))
            continue;
        struct entry *e = row_entry(f, rs, r, cr, strtab_get(rs->str, rowset_cell(rs, r, ck)->s), rank);
        if (!e)
            return;
        e->total = sat_add(e->total, v);
        e->has_total = true;
    }
}

/* --- joining ---------------------------------------------------------------------------- */

struct joined {
    const struct entry *b, *n;          /* NULL on the side that lacks the key */
    const struct fold *fb, *fn;
    int rank;
    ns_t delta;
};

static const char *joined_key(const struct joined *j)
{
    return j->b ? strtab_get(j->fb->str, j->b->key) : strtab_get(j->fn->str, j->n->key);
}

static int cmp_joined(const void *x, const void *y)
{
    const struct joined *a = x, *b = y;
    if (a->delta != b->delta)
        return a->delta > b->delta ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return strcmp(joined_key(a), joined_key(b));
}

static ns_t entry_total(const struct entry *e) { return e && e->has_total ? e->total : 0; }

/* Steps of the rank (every rank of the side when rows do not match by rank). */
static size_t side_steps(const struct session *s, bool by_rank, int rank)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (!by_rank || s->ranks[i].rank == rank)
            n += steps_count(s->ranks[i].steps);
    return n;
}

/* sb, sn: the row's steps on each side. Totals of sides with different step counts are
 * judged per step: base total x new steps against new total x base steps. */
static enum diff_status judge(const struct diff_spec *sp, const struct joined *j, double rel, size_t sb, size_t sn,
                              bool *per_step)
{
    if (!j->b)
        return DS_ADDED;
    if (!j->n)
        return DS_REMOVED;
    ns_t b, n;
    if (sp->compare < 0) {
        if (!j->b->has_total || !j->n->has_total)
            return DS_UNCHANGED;
        b = j->b->total;
        n = j->n->total;
        if (sb && sn && sb != sn) {
            long double lb = (long double)b * (long double)sn, ln = (long double)n * (long double)sb;
            long double lband = (long double)rel * (lb < 0 ? -lb : lb), d = ln - lb;
            *per_step = true;
            return d > lband ? DS_SLOWER : d < -lband ? DS_FASTER : DS_UNCHANGED;
        }
    } else {
        int k = sp->compare;
        if (!j->b->has_fig[k] || !j->n->has_fig[k])
            return DS_UNCHANGED;
        b = j->b->fig[k];
        n = j->n->fig[k];
    }
    ns_t band = (ns_t)llround(rel * (double)(b < 0 ? -b : b));
    if (j->b->band != NS_NONE || j->n->band != NS_NONE) {
        band = j->b->band > j->n->band ? j->b->band : j->n->band;
        if (band < b / 100 * 3)
            band = b / 100 * 3;
    }
    ns_t d = n - b;
    return d > band ? DS_SLOWER : d < -band ? DS_FASTER : DS_UNCHANGED;
}

static void title_of(char *buf, size_t size, const char *side, const char *stem)
{
    snprintf(buf, size, "%s %s", side, stem);
}

/* Every key of either side, paired with the other side's entry (NULL when it has none),
 * costliest change first; *n of them. NULL when memory ran out. */
static struct joined *join_folds(const struct fold *fb, const struct fold *fn, size_t *nout)
{
    size_t cap = fb->n + fn->n;
    struct joined *all = malloc((cap ? cap : 1) * sizeof *all);
    if (!all)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < fb->n; i++) {
        const struct entry *e = &fb->v[i];
        const struct entry *m = fold_find(fn, strtab_get(fb->str, e->key), strtab_len(fb->str, e->key), e->rank);
        all[n++] = (struct joined){ e, m, fb, fn, e->rank, 0 };
    }
    for (size_t k = 0; k < fn->n; k++) {
        const struct entry *e = &fn->v[k];
        if (!fold_find(fb, strtab_get(fn->str, e->key), strtab_len(fn->str, e->key), e->rank))
            all[n++] = (struct joined){ NULL, e, fb, fn, e->rank, 0 };
    }
    for (size_t i = 0; i < n; i++)
        all[i].delta = entry_total(all[i].n) - entry_total(all[i].b);
    if (n > 1)
        qsort(all, n, sizeof *all, cmp_joined);
    *nout = n;
    return all;
}

/* The joined table's columns, after the rank column when rows match by rank; the figure
 * columns follow. */
enum { J_NAME, J_BASE_COUNT, J_NEW_COUNT, J_BASE_TOTAL, J_NEW_TOTAL, J_DELTA_TOTAL, J_RATIO,
       J_STATUS, J_NCOLS };
static const struct rs_coldef join_cols[J_NCOLS] = {
    [J_NAME] = { "name", "Name", RS_STR, 0 },
    [J_BASE_COUNT] = { "base_count", "Base n", RS_INT, 0 },
    [J_NEW_COUNT] = { "new_count", "New n", RS_INT, 0 },
    [J_BASE_TOTAL] = { "base_total_us", "Base total µs", RS_NS, 0 },
    [J_NEW_TOTAL] = { "new_total_us", "New total µs", RS_NS, 0 },
    [J_DELTA_TOTAL] = { "delta_total_us", "Delta total µs", RS_NS, 0 },
    [J_RATIO] = { "ratio", "Ratio", RS_NUM, 3 },
    [J_STATUS] = { "status", "Status", RS_STR, 0 },
};

static struct rowset *join(const char *name, const struct diff_spec *sp, const struct fold *fb,
                           const struct fold *fn, bool by_rank, const struct diff_noise *noise,
                           const struct session *base, const struct session *new)
{
    int base_rank = base->nranks ? base->ranks[0].rank : 0, new_rank = new->nranks ? new->ranks[0].rank : 0;
    bool per_step = false;
    size_t n = 0;
    struct joined *all = join_folds(fb, fn, &n);
    if (!all)
        return NULL;
    struct rowset *rs = rowset_new(name);
    if (!rs) {
        free(all);
        return NULL;
    }
    size_t c_rank = by_rank ? rowset_col(rs, "rank", "Rank", RS_INT, 0) : SIZE_MAX;
    size_t jc = rs->ncols;   /* where the join_cols columns start */
    rowset_cols(rs, join_cols, J_NCOLS);
    size_t c_fig[MAXFIG][3];
    for (size_t k = 0; k < MAXFIG; k++) {
        const struct fig_spec *f = &sp->figs[k];
        for (int s = 0; s < 3; s++)
            c_fig[k][s] = SIZE_MAX;
        if (!f->col)
            continue;
        static const char *const side_key[] = { "base_", "new_", "delta_" };
        static const char *const side_title[] = { "Base", "New", "Delta" };
        for (int s = 0; s < 3; s++) {
            char key[96], title[96];
            snprintf(key, sizeof key, "%s%s", side_key[s], f->out);
            title_of(title, sizeof title, side_title[s], f->title);
            c_fig[k][s] = rowset_col(rs, key, title, RS_NS, 0);
        }
    }
    size_t count[DS_COUNT] = { 0 };
    for (size_t i = 0; i < n; i++) {
        const struct joined *j = &all[i];
        size_t row = rowset_linked_row(rs, i);
        if (row == SIZE_MAX)
            break;
        if (c_rank != SIZE_MAX)
            rowset_int(rs, row, c_rank, j->rank);
        rowset_str(rs, row, jc + J_NAME, joined_key(j));
        if (!by_rank && !strcmp(sp->key_cols[0], "rank_name") && base_rank != new_rank) {
            char nm[64];
            snprintf(nm, sizeof nm, "rank %d vs rank %d", base_rank, new_rank);
            rowset_str(rs, row, jc + J_NAME, nm);
        }
        rowset_int(rs, row, jc + J_BASE_COUNT, j->b && j->b->has_count ? j->b->count : 0);
        rowset_int(rs, row, jc + J_NEW_COUNT, j->n && j->n->has_count ? j->n->count : 0);
        if (!j->b || j->b->has_total)
            rowset_ns(rs, row, jc + J_BASE_TOTAL, entry_total(j->b));
        if (!j->n || j->n->has_total)
            rowset_ns(rs, row, jc + J_NEW_TOTAL, entry_total(j->n));
        rowset_ns(rs, row, jc + J_DELTA_TOTAL, j->delta);
        if (j->b && j->n && j->b->has_total && j->n->has_total && j->b->total != 0)
            rowset_num(rs, row, jc + J_RATIO, (double)j->n->total / (double)j->b->total);
        enum diff_status st = judge(sp, j, noise->rel, side_steps(base, by_rank, j->rank),
                                    side_steps(new, by_rank, j->rank), &per_step);
        count[st]++;
        rowset_str(rs, row, jc + J_STATUS, diff_status_name(st));
        for (size_t k = 0; k < MAXFIG; k++) {
            if (c_fig[k][0] == SIZE_MAX)
                continue;
            bool hb = j->b && j->b->has_fig[k], hn = j->n && j->n->has_fig[k];
            if (hb)
                rowset_ns(rs, row, c_fig[k][0], j->b->fig[k]);
            if (hn)
                rowset_ns(rs, row, c_fig[k][1], j->n->fig[k]);
            if (hb && hn)
                rowset_ns(rs, row, c_fig[k][2], j->n->fig[k] - j->b->fig[k]);
        }
    }
    char ranks[64] = "";
    if (!by_rank)
        snprintf(ranks, sizeof ranks, "rank %d against rank %d; ", base_rank, new_rank);
    rowset_caption(rs, "%s: %s%zu slower, %zu faster, %zu added, %zu removed, %zu unchanged%s; %s",
                   sp->what, ranks, count[DS_SLOWER], count[DS_FASTER], count[DS_ADDED],
                   count[DS_REMOVED], count[DS_UNCHANGED],
                   per_step ? " (totals judged per step: the step counts differ)" : "", noise->basis);
    free(all);
    return rs;
}

/* --- sections -------------------------------------------------------------------------- */

static const struct diff_spec specs[DIFF_SECTIONS] = {
    [DIFF_KERNELS] = {
        "kernels by name", { "name" }, "count", { "total_us" },
        { { "mean_us", "mean_us", "mean µs", false }, { "max_us", "max_us", "max µs", false } }, -1, NULL },
    [DIFF_KERNEL_TYPES] = {
        "kernels by type", { "type" }, "count", { "total_us" },
        { { "mean_us", "mean_us", "mean µs", false } }, -1, NULL },
    [DIFF_OPS] = {
        "host operators by name (host total)", { "name", "type" }, "count", { "host_total_us", "total_us" },
        { { "host_self_us", "host_self_us", "host self µs", true },
          { "device_total_us", "device_total_us", "device total µs", true } }, -1, NULL },
    [DIFF_PHASES] = {
        "steps per phase (status on the p50)", { "phase" }, "count", { NULL },
        { { "p50_us", "p50_us", "p50 µs", false }, { "p90_us", "p90_us", "p90 µs", false },
          { "max_us", "max_us", "max µs", false } }, 0, NULL },
    [DIFF_COMM] = {
        "communication ops by name (elapse)", { "name" }, NULL, { "elapse_ms" },
        { { "wait_ms", "wait_us", "wait µs", true }, { "transit_ms", "transit_us", "transit µs", true } },
        -1, "Total Op Info" },
    [DIFF_RANKS] = {
        "ranks by id (status on the mean step)", { "rank_name" }, "steps", { NULL },
        { { "step_us_mean", "step_mean_us", "step mean µs", false },
          { "computing_us", "computing_us", "computing µs/step", false },
          { "comm_not_overlapped_us", "comm_not_overlapped_us", "comm not ovl µs/step", false },
          { "free_us", "free_us", "free µs/step", false },
          { "wait_ms", "wait_us", "wait µs", true } }, 0, NULL },
};

static int single_rank(const struct session *s)
{
    return s->nranks ? s->ranks[0].rank : 0;
}

/* A copy of rs with a "rank_name" text column ("rank N") from its "rank" column, so ranks
 * fold and join like any other key. */
static struct rowset *with_rank_name(struct rowset *rs, int rank)
{
    if (!rs)
        return NULL;
    size_t cr = rowset_find_col(rs, "rank");
    size_t cn = rowset_col(rs, "rank_name", "Rank", RS_STR, 0);
    for (size_t r = 0; cn != SIZE_MAX && r < rs->nrows; r++) {
        char nm[32];
        int rk = cr != SIZE_MAX && !rowset_is_null(rs, r, cr) ? (int)rowset_cell(rs, r, cr)->i : rank;
        snprintf(nm, sizeof nm, "rank %d", rk);
        rowset_str(rs, r, cn, nm);
    }
    return rs;
}

/* Folds rs, built for the fold alone, and frees it. */
static void fold_rowset(struct fold *f, struct rowset *rs, const struct diff_spec *sp, int rank)
{
    fold_rows(f, rs, sp, rank);
    rowset_free(rs);
}

/* The rowsets of one side for a section, folded. */
static void fold_side(struct fold *f, enum diff_section sec, const struct session *s, bool by_rank)
{
    const struct diff_spec *sp = &specs[sec];
    int rank = single_rank(s);
    switch (sec) {
    case DIFF_KERNELS:
        fold_rowset(f, kernels_session_rowset(s, -1), sp, rank);
        break;
    case DIFF_KERNEL_TYPES:
        for (size_t i = 0; i < s->nranks; i++) {
            const struct table *t = s->ranks[i].tables[TK_KERNELS];
            fold_rowset(f, t && t->nrows ? kernels_aggregate(t, KG_TYPE) : NULL, sp, s->ranks[i].rank);
        }
        break;
    case DIFF_OPS:
        fold_rowset(f, kernels_ops_session_rowset(s, -1), sp, rank);
        break;
    case DIFF_PHASES: {
        fold_rowset(f, steps_phases_session_rowset(s, -1), sp, rank);
        struct rowset *st = steps_session_rowset(s, -1);
        fold_totals(f, st, "phase", "dur_us", rank);
        rowset_free(st);
        /* each phase's own band: 3 x max(MAD, 1% of p50) */
        for (size_t i = 0; i < f->n; i++) {
            struct entry *e = &f->v[i];
            const char *pn = strtab_get(f->str, e->key);
            for (size_t r = 0; r < s->nranks; r++) {
                const struct steps *ss = rank_steps(&s->ranks[r]);
                if (!ss || (by_rank && s->ranks[r].rank != e->rank))
                    continue;
                for (int p = 0; p < PHASE_COUNT; p++) {
                    if (strcmp(step_phase_name((enum step_phase)p), pn) || !ss->phase[p].count)
                        continue;
                    const struct phase_stat *ps = &ss->phase[p];
                    ns_t spread = ps->mad > ps->p50 / 100 ? ps->mad : ps->p50 / 100;
                    if (e->band == NS_NONE || 3 * spread > e->band)
                        e->band = 3 * spread;
                }
            }
        }
        break;
    }
    case DIFF_COMM:
        fold_rowset(f, comm_ops_rowset(s, -1), sp, rank);
        break;
    case DIFF_RANKS: {
        fold_rowset(f, with_rank_name(comm_ranks_rowset(s, -1), rank), sp, rank);
        struct rowset *st = with_rank_name(comm_rank_steps_rowset(s, -1), rank);
        fold_totals(f, st, "rank_name", "step_us", rank);
        rowset_free(st);
        break;
    }
    default:
        break;
    }
}

/* Without rank matching every entry of a side carries the side's one rank: make the key
 * alone decide (rank 0 on both sides); ranks_diff keys by "rank N", renamed to one key. */
static void unrank(struct fold *f, enum diff_section sec)
{
    for (size_t i = 0; i < f->n; i++) {
        f->v[i].rank = 0;
        if (sec == DIFF_RANKS)
            f->v[i].key = strtab_intern_cstr(f->str, "rank");
    }
    if (f->nslot && fold_index(f, f->nslot))
        f->oom = true;
}

struct rowset *diff_section(enum diff_section sec, const struct session *base,
                            const struct session *new, const struct diff_noise *noise)
{
    if (sec >= DIFF_SECTIONS)
        return NULL;
    bool by_rank = diff_by_rank(base, new);
    struct fold fb = { 0 }, fn = { 0 };
    fold_side(&fb, sec, base, by_rank);
    fold_side(&fn, sec, new, by_rank);
    struct rowset *rs = NULL;
    if ((fb.n || fn.n) && !fb.oom && !fn.oom) {
        if (!by_rank) {
            unrank(&fb, sec);
            unrank(&fn, sec);
        }
        rs = join(diff_section_name(sec), &specs[sec], &fb, &fn, by_rank, noise, base, new);
    }
    fold_done(&fb);
    fold_done(&fn);
    return rs;
}
