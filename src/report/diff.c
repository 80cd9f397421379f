/* `aptop report --diff BASE NEW` and --fail-if (see report/diff.h). */
#include "report/diff.h"

#include <stdlib.h>
#include <string.h>

#include "model/analysis/diff.h"
#include "model/rowsets/escape.h"

#define DECODE_DIFF DIFF_SECTIONS       /* the alignment, after the joined sections */
#define NDIFF (DIFF_SECTIONS + 1)

static const char *sec_name(int i) { return i == DECODE_DIFF ? "decode_diff" : diff_section_name(i); }
static const char *sec_help(int i)
{
    return i == DECODE_DIFF ? "canonical decode steps aligned kernel by kernel, per-position delta"
                            : diff_section_help(i);
}

void report_diff_list_sections(FILE *out)
{
    for (int i = 0; i < NDIFF; i++)
        fprintf(out, "  %-17s %s\n", sec_name(i), sec_help(i));
}

static int find_sec(const char *p, size_t len)
{
    for (int i = 0; i < NDIFF; i++)
        if (strlen(sec_name(i)) == len && !strncmp(sec_name(i), p, len))
            return i;
    return -1;
}

static struct rowset *build(int i, const struct session *base, const struct session *new, const struct diff_noise *nz)
{
    return i == DECODE_DIFF ? diff_align_decode(base, new) : diff_section((enum diff_section)i, base, new, nz);
}

/* What was compared: paths, ranks, how rows match, the noise band. */
static struct rowset *summary(const struct session *base, const struct session *new, const struct diff_noise *nz)
{
    struct rowset *rs = rowset_new("diff");
    if (!rs)
        return NULL;
    rs->object = true;
    size_t r = rowset_row(rs), c;
    c = rowset_col(rs, "base", "Base", RS_STR, 0);          rowset_str(rs, r, c, base->root ? base->root : "");
    c = rowset_col(rs, "new", "New", RS_STR, 0);            rowset_str(rs, r, c, new->root ? new->root : "");
    c = rowset_col(rs, "base_ranks", "Base ranks", RS_INT, 0); rowset_int(rs, r, c, (int64_t)base->nranks);
    c = rowset_col(rs, "new_ranks", "New ranks", RS_INT, 0);   rowset_int(rs, r, c, (int64_t)new->nranks);
    for (int side = 0; side < 2; side++) {
        const struct session *x = side ? new : base;
        char ids[256] = "";
        size_t o = 0;
        for (size_t i = 0; i < x->nranks && o < sizeof ids - 16; i++)
            o += (size_t)snprintf(ids + o, sizeof ids - o, "%s%d", i ? "," : "", x->ranks[i].rank);
        c = rowset_col(rs, side ? "new_rank_ids" : "base_rank_ids", side ? "New rank ids" : "Base rank ids", RS_STR, 0);
        rowset_str(rs, r, c, ids);
    }
    c = rowset_col(rs, "matched_by_rank", "By rank id", RS_INT, 0); rowset_int(rs, r, c, diff_by_rank(base, new));
    c = rowset_col(rs, "noise_band", "Noise band", RS_PCT, 1); rowset_num(rs, r, c, nz->rel);
    c = rowset_col(rs, "noise_phase", "Noise phase", RS_STR, 0);
    if (nz->phase != PHASE_COUNT)
        rowset_str(rs, r, c, step_phase_name(nz->phase));
    c = rowset_col(rs, "noise_basis", "Noise basis", RS_STR, 0); rowset_str(rs, r, c, nz->basis);
    return rs;
}

static void emit(const struct rowset *rs, const char *name, const struct report_opts *o, bool first, FILE *out)
{
    if (o->format == FMT_JSON)
        fprintf(out, "%s\"%s\": ", first ? "\n" : ",\n", name);
    else if (o->format == FMT_TEXT)
        fprintf(out, "%s== %s\n", first ? "" : "\n", name);
    else
        fprintf(out, "%s# %s\n", first ? "" : "\n", name);
    rowset_write(rs, o->format, out);
}

int report_diff_print(const struct session *base, const struct session *new,
                      const struct report_opts *o, FILE *out)
{
    bool want[NDIFF];
    bool explicit = o->sections != NULL;
    for (int i = 0; i < NDIFF; i++)
        want[i] = !explicit;
    bool want_summary = !explicit;
    for (const char *p = explicit ? o->sections : ""; *p; ) {
        size_t len = strcspn(p, ",");
        int i = find_sec(p, len);
        if (len && i < 0 && !(len == 4 && !strncmp(p, "diff", 4))) {
            char e[512];
            text_escape(p, len < 100 ? len : 100, e, sizeof e);
            fprintf(stderr, "aptop: unknown diff section '%s'; sections: diff", e);
            for (int k = 0; k < NDIFF; k++)
                fprintf(stderr, " %s", sec_name(k));
            fputc('\n', stderr);
            return 2;
        }
        if (i >= 0)
            want[i] = true;
        else if (len)
            want_summary = true;
        p += len + (p[len] == ',');
    }
    struct diff_noise nz;
    diff_noise(base, new, &nz);
    bool first = true;
    if (o->format == FMT_JSON)
        fputc('{', out);
    if (want_summary) {
        struct rowset *rs = summary(base, new, &nz);
        if (rs) {
            emit(rs, "diff", o, first, out);
            first = false;
        }
        rowset_free(rs);
    }
    for (int i = 0; i < NDIFF; i++) {
        if (!want[i])
            continue;
        struct rowset *rs = build(i, base, new, &nz);
        if (!rs) {
            if (o->format == FMT_TEXT)
                fprintf(out, "%s== %s: %s\n", first ? "" : "\n", sec_name(i),
                        i == DECODE_DIFF ? "base or new has no decode steps" : "neither capture has these figures");
            first = o->format == FMT_TEXT ? false : first;
            continue;
        }
        if (o->top > 0)
            rowset_truncate(rs, (size_t)o->top);
        emit(rs, sec_name(i), o, first, out);
        first = false;
        rowset_free(rs);
    }
    if (o->format == FMT_JSON)
        fputs("\n}\n", out);
    return 0;
}

/* --- --fail-if ------------------------------------------------------------------------------ */

int diff_fail_parse(const char *text, struct diff_fail *out, char *why, size_t size)
{
    memset(out, 0, sizeof *out);
    const char *gt = strrchr(text, '>');
    if (!gt || gt == text) {
        snprintf(why, size, "expected TARGET>PERCENT (decode_p50>5%% or kernel:NAME>10%%)");
        return -1;
    }
    char *end;
    out->pct = strtod(gt + 1, &end);
    if (end == gt + 1 || (*end && strcmp(end, "%")) || !(out->pct >= 0 && out->pct < 1e9)) {
        snprintf(why, size, "'%s' is not a percentage", gt + 1);
        return -1;
    }
    size_t tl = (size_t)(gt - text);
    if (tl > 7 && !strncmp(text, "kernel:", 7)) {
        out->kind = FAIL_KERNEL;
        if (tl - 7 >= sizeof out->name) {
            snprintf(why, size, "kernel name too long");
            return -1;
        }
        memcpy(out->name, text + 7, tl - 7);
        out->name[tl - 7] = 0;
        return 0;
    }
    for (int p = 0; p < PHASE_COUNT; p++) {
        char want[32];
        snprintf(want, sizeof want, "%s_p50", step_phase_name((enum step_phase)p));
        if (strlen(want) == tl && !strncmp(text, want, tl)) {
            out->kind = FAIL_P50;
            out->phase = (enum step_phase)p;
            snprintf(out->name, sizeof out->name, "%s", want);
            return 0;
        }
    }
    snprintf(why, size, "unknown target '%.*s' (decode_p50, prefill_p50, mixed_p50, other_p50, kernel:NAME)",
             (int)(tl < 200 ? tl : 200), text);
    return -1;
}

static bool row_ns(const struct rowset *rs, size_t r, const char *key, ns_t *out)
{
    size_t c = rowset_find_col(rs, key);
    if (c == SIZE_MAX || rowset_is_null(rs, r, c))
        return false;
    *out = rowset_cell(rs, r, c)->i;
    return true;
}

/* Exact µs text of ns. */
static const char *us_text(ns_t v, char *buf, size_t size)
{
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    snprintf(buf, size, "%s%llu.%03llu", v < 0 ? "-" : "", m / 1000, m % 1000);
    return buf;
}

/* One condition against its diff rows; 1 when it fails. */
static int check_one(const struct rowset *rs, const struct diff_fail *f, FILE *err)
{
    char key[1024], e[1100];
    if (f->kind == FAIL_KERNEL)
        diff_key(f->name, key, sizeof key);
    else
        snprintf(key, sizeof key, "%s", step_phase_name(f->phase));
    text_escape(f->name, strlen(f->name), e, sizeof e);
    const char *fig = f->kind == FAIL_KERNEL ? "total_us" : "p50_us";
    char bk[32], nk[32];
    snprintf(bk, sizeof bk, "base_%s", fig);
    snprintf(nk, sizeof nk, "new_%s", fig);
    size_t cn = rs ? rowset_find_col(rs, "name") : SIZE_MAX, cr = rs ? rowset_find_col(rs, "rank") : SIZE_MAX;
    int failed = 0, checked = 0;
    for (size_t r = 0; cn != SIZE_MAX && r < rs->nrows; r++) {
        if (rowset_is_null(rs, r, cn) || strcmp(strtab_get(rs->str, rowset_cell(rs, r, cn)->s), key))
            continue;
        char where[48] = "";
        if (cr != SIZE_MAX && !rowset_is_null(rs, r, cr))
            snprintf(where, sizeof where, " (rank %lld)", (long long)rowset_cell(rs, r, cr)->i);
        ns_t b, n;
        bool hb = row_ns(rs, r, bk, &b), hn = row_ns(rs, r, nk, &n);
        if (!hb && hn && f->kind == FAIL_KERNEL && n > 0) {
            fprintf(err, "aptop: fail-if %s: kernel added in new%s\n", e, where);
            failed = 1;
            checked++;
            continue;
        }
        if (!hb || !hn)
            continue;
        checked++;
        /* grew more than pct percent: new > base * (1 + pct/100), compared in long double */
        long double limit = (long double)b * (1.0L + (long double)f->pct / 100.0L);
        if (b >= 0 && (long double)n > limit) {
            char t1[32], t2[32];
            fprintf(err, "aptop: fail-if %s: %s µs -> %s µs (%+.2f%%, limit %g%%)%s\n", e, us_text(b, t1, sizeof t1),
                    us_text(n, t2, sizeof t2), b ? ((double)n - (double)b) * 100.0 / (double)b : 100.0, f->pct, where);
            failed = 1;
        }
    }
    if (!checked) {
        fprintf(err, "aptop: fail-if %s: cannot be checked (%s)\n", e,
                f->kind == FAIL_KERNEL ? "no such kernel in base or new" : "a side has no steps of that phase");
        return 1;
    }
    return failed;
}

int diff_fail_check(const struct session *base, const struct session *new,
                    const struct diff_fail *conds, size_t n, FILE *err)
{
    if (!n)
        return 0;
    struct diff_noise nz;
    diff_noise(base, new, &nz);
    struct rowset *kern = NULL, *ph = NULL;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        const struct diff_fail *f = &conds[i];
        if (f->kind == FAIL_KERNEL && !kern)
            kern = diff_section(DIFF_KERNELS, base, new, &nz);
        if (f->kind == FAIL_P50 && !ph)
            ph = diff_section(DIFF_PHASES, base, new, &nz);
        failed += check_one(f->kind == FAIL_KERNEL ? kern : ph, f, err);
    }
    rowset_free(kern);
    rowset_free(ph);
    return failed;
}
