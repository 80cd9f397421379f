/* Comparing captures (model/analysis/diff.h): key normalisation, the sequence alignment, generated
 * pairs with planted changes (every planted change found, nothing else marked changed),
 * rank matching across rank counts, one rank against another, and the report --diff
 * figures against an independent Python computation on generated and real pairs. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/discovery/capture_set.h"
#include "io/load/loader.h"
#include "model/analysis/diff.h"
#include "report/diff.h"
#include "helpers.h"
#include "../runner.h"

TEST(diff_key_normalises_collective_ids)
{
    char b[256];
    CHECK_STR(diff_key("hcom_allReduce__868_0_1", b, sizeof b), "hcom_allReduce__*_0_1");
    CHECK_STR(diff_key("hcom_allReduce__586_0_1@17522688603477080586", b, sizeof b), "hcom_allReduce__*_0_1");
    CHECK_STR(diff_key("hcom_broadcast_", b, sizeof b), "hcom_broadcast_");
    CHECK_STR(diff_key("aclnnMm_MatMulCommon_MatMulV2", b, sizeof b), "aclnnMm_MatMulCommon_MatMulV2");
    CHECK_STR(diff_key("x@y", b, sizeof b), "x@y");              /* only collectives lose the suffix */
    CHECK_STR(diff_key("", b, sizeof b), "");
}

/* Pairs as "a:b" text, "-" for a gap, from the alignment of a and b. */
static void aligned(const char *const *a, size_t na, const char *const *b, size_t nb, char *out, size_t size)
{
    struct diff_pair *p = NULL;
    size_t n = 0;
    out[0] = 0;
    CHECK_INT(diff_align_names(a, na, b, nb, &p, &n), 0);
    size_t o = 0;
    for (size_t i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(out + o, size - o, "%s%s:%s", i ? " " : "", p[i].a == SIZE_MAX ? "-" : a[p[i].a],
                              p[i].b == SIZE_MAX ? "-" : b[p[i].b]);
    free(p);
}

TEST(diff_align_inserted_and_removed_kernels)
{
    char out[512];
    const char *a[] = { "norm", "mm", "attn", "cast", "mm", "add" };
    const char *b[] = { "norm", "mm", "attn", "topk", "mm", "add" };
    aligned(a, 6, b, 6, out, sizeof out);
    /* never a rename: cast is removed, topk inserted, the rest lines up */
    CHECK(strstr(out, "norm:norm mm:mm attn:attn") == out);
    CHECK(strstr(out, "cast:-") && strstr(out, "-:topk"));
    CHECK(strstr(out, "mm:mm add:add") != NULL);
    const char *c[] = { "x", "y" };
    aligned(c, 2, NULL, 0, out, sizeof out);
    CHECK_STR(out, "x:- y:-");
    aligned(NULL, 0, c, 2, out, sizeof out);
    CHECK_STR(out, "-:x -:y");
    const char *d[] = { "a", "b", "c", "d" }, *e[] = { "a", "c", "d", "e" };
    aligned(d, 4, e, 4, out, sizeof out);
    CHECK_STR(out, "a:a b:- c:c d:d -:e");
}

/* --- generated pairs -------------------------------------------------------------------- */

static char gen_dir[64];

static const char *generated(void)
{
    if (gen_dir[0])
        return gen_dir;
    snprintf(gen_dir, sizeof gen_dir, "/tmp/aptop_diff_XXXXXX");
    if (!mkdtemp(gen_dir)) {
        gen_dir[0] = 0;
        return NULL;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tools/gen_diff_fixtures.py %s 2>&1", gen_dir);
    int st = -1;
    free(test_run(cmd, &st));
    if (st != 0) {
        rmdir(gen_dir);
        gen_dir[0] = 0;
        return NULL;
    }
    return gen_dir;
}

__attribute__((destructor)) static void remove_generated(void)
{
    if (gen_dir[0]) {
        char cmd[128];
        int st;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
        free(test_run(cmd, &st));
    }
}

struct pair {
    struct capture c;
    struct session *s;
    struct diag *d;
    struct session base, new;
};

static int pair_open(struct pair *p, const char *a, const char *b)
{
    memset(p, 0, sizeof *p);
    p->d = diag_new();
    const char *args[2] = { a, b };
    struct session_group *g = NULL;
    if (capture_set_open(args, 2, &p->c, &g, p->d)) {
        capture_groups_free(g, 2);
        return -1;
    }
    p->s = session_new(&p->c, p->d);
    if (!p->s) {
        capture_groups_free(g, 2);
        return -1;
    }
    session_set_groups(p->s, g, 2);
    struct loader_opts lo = { .rank = -1 };
    loader_run_sync(&p->c, p->s, &lo);
    p->base = session_group_view(p->s, 0);
    p->new = session_group_view(p->s, 1);
    return 0;
}

static void pair_close(struct pair *p)
{
    session_free(p->s);
    capture_free(&p->c);
    diag_free(p->d);
}

static const char *cell_text(const struct rowset *rs, size_t r, const char *key)
{
    size_t c = rowset_find_col(rs, key);
    return c == SIZE_MAX || rowset_is_null(rs, r, c) ? NULL : strtab_get(rs->str, rowset_cell(rs, r, c)->s);
}

/* Every row's status is "unchanged" except those named in changed[] (name, status pairs). */
static void check_statuses(const struct rowset *rs, const char *const changed[][2], size_t nchanged, size_t min_rows)
{
    CHECK(rs != NULL);
    if (!rs)
        return;
    CHECK(rs->nrows >= min_rows);
    size_t found[8] = { 0 };
    for (size_t r = 0; r < rs->nrows; r++) {
        const char *name = cell_text(rs, r, "name"), *st = cell_text(rs, r, "status");
        const char *want = "unchanged";
        for (size_t k = 0; k < nchanged; k++)
            if (name && !strcmp(name, changed[k][0])) {
                want = changed[k][1];
                found[k]++;
            }
        if (!st || strcmp(st, want))
            test_fail(__FILE__, __LINE__, "%s: %s is %s, expected %s", rs->name, name ? name : "?", st ? st : "?", want);
    }
    for (size_t k = 0; k < nchanged; k++)
        if (!found[k])
            test_fail(__FILE__, __LINE__, "%s: planted %s not found", rs->name, changed[k][0]);
}

#define SLOWER "aclnnQuantMatmulV4_QuantBatchMatmulV3_QuantBatchMatmulV3"
#define ADDED "aclnnTopKV2_TopKV2_TopKV2"
#define REMOVED "aclnnCast_CastAiCore_Cast"

TEST(diff_planted_changes_found_nothing_else)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/planted/base", dir);
    snprintf(b, sizeof b, "%s/planted/new", dir);
    struct pair p;
    CHECK_INT(pair_open(&p, a, b), 0);
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    CHECK_INT(nz.phase, PHASE_DECODE);
    CHECK(nz.rel >= 0.03 && nz.rel < 0.1);
    CHECK(diff_by_rank(&p.base, &p.new));

    static const char *const kern[][2] = { { SLOWER, "slower" }, { ADDED, "added" }, { REMOVED, "removed" } };
    struct rowset *rs = diff_section(DIFF_KERNELS, &p.base, &p.new, &nz);
    check_statuses(rs, kern, 3, 20);
    /* both ranks: two rows per kernel, the collective matched across op ids */
    size_t hcom = 0;
    for (size_t r = 0; rs && r < rs->nrows; r++)
        hcom += !strcmp(cell_text(rs, r, "name"), "hcom_allReduce__*_0_1");
    CHECK_INT(hcom, 2);
    /* sorted by the time the change costs: the slower kernel first */
    CHECK(rs && !strcmp(cell_text(rs, 0, "name"), SLOWER));
    rowset_free(rs);

    static const char *const types[][2] = { { "QuantBatchMatmulV3", "slower" }, { "TopKV2", "added" }, { "Cast", "removed" } };
    rs = diff_section(DIFF_KERNEL_TYPES, &p.base, &p.new, &nz);
    check_statuses(rs, types, 3, 20);
    rowset_free(rs);

    static const char *const phase[][2] = { { "decode", "slower" } };
    rs = diff_section(DIFF_PHASES, &p.base, &p.new, &nz);
    check_statuses(rs, phase, 1, 2);
    rowset_free(rs);

    static const char *const ranks[][2] = { { "rank 0", "slower" }, { "rank 1", "slower" } };
    rs = diff_section(DIFF_RANKS, &p.base, &p.new, &nz);
    check_statuses(rs, ranks, 2, 2);
    rowset_free(rs);

    /* the canonical decode steps: inserted and removed at their positions, one slower */
    rs = diff_align_decode(&p.base, &p.new);
    static const char *const pos[][2] = { { SLOWER, "slower" }, { ADDED, "added" }, { REMOVED, "removed" } };
    check_statuses(rs, pos, 3, 11);
    CHECK(rs && rs->nrows == 11);
    for (size_t r = 0; rs && r < rs->nrows; r++)
        if (!strcmp(cell_text(rs, r, "name"), ADDED)) {
            CHECK(r > 0 && !strcmp(cell_text(rs, r - 1, "name"), "aclnnSwiGlu_SwiGlu_SwiGlu"));
        }
    rowset_free(rs);

    /* the instances behind a row come from both captures */
    rs = diff_instances(DIFF_KERNELS, &p.base, &p.new, SLOWER, 0);
    CHECK(rs && rs->nrows == 40);
    size_t nb = 0;
    for (size_t r = 0; rs && r < rs->nrows; r++)
        nb += !strcmp(cell_text(rs, r, "capture"), "base");
    CHECK_INT(nb, 20);
    rowset_free(rs);
    rs = diff_instances(DIFF_KERNELS, &p.base, &p.new, "hcom_allReduce__*_0_1", 1);
    CHECK(rs && rs->nrows == 40);
    rowset_free(rs);
    pair_close(&p);
}

TEST(diff_same_capture_is_unchanged)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128];
    snprintf(a, sizeof a, "%s/planted/base", dir);
    struct pair p;
    CHECK_INT(pair_open(&p, a, a), 0);
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    for (int s = 0; s < DIFF_SECTIONS; s++) {
        struct rowset *rs = diff_section((enum diff_section)s, &p.base, &p.new, &nz);
        for (size_t r = 0; rs && r < rs->nrows; r++) {
            CHECK_STR(cell_text(rs, r, "status"), "unchanged");
            size_t c = rowset_find_col(rs, "delta_total_us");
            CHECK(c != SIZE_MAX && rowset_cell(rs, r, c)->i == 0);
        }
        rowset_free(rs);
    }
    pair_close(&p);
}

TEST(diff_rank_counts_matched_by_id)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/ranks/base", dir);
    snprintf(b, sizeof b, "%s/ranks/new", dir);
    struct pair p;
    CHECK_INT(pair_open(&p, a, b), 0);
    CHECK_INT(p.base.nranks, 2);
    CHECK_INT(p.new.nranks, 3);
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    static const char *const ranks[][2] = { { "rank 2", "added" } };
    struct rowset *rs = diff_section(DIFF_RANKS, &p.base, &p.new, &nz);
    check_statuses(rs, ranks, 1, 3);
    rowset_free(rs);
    /* every kernel of rank 2 is added, nothing of ranks 0 and 1 changed */
    rs = diff_section(DIFF_KERNELS, &p.base, &p.new, &nz);
    size_t cr = rs ? rowset_find_col(rs, "rank") : SIZE_MAX;
    CHECK(cr != SIZE_MAX);
    for (size_t r = 0; cr != SIZE_MAX && r < rs->nrows; r++)
        CHECK_STR(cell_text(rs, r, "status"), rowset_cell(rs, r, cr)->i == 2 ? "added" : "unchanged");
    rowset_free(rs);
    pair_close(&p);
}

TEST(diff_one_rank_against_another)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/planted/base:rank0", dir);
    snprintf(b, sizeof b, "%s/planted/new:rank1", dir);
    struct pair p;
    CHECK_INT(pair_open(&p, a, b), 0);
    CHECK_INT(p.base.nranks, 1);
    CHECK_INT(p.new.nranks, 1);
    CHECK_INT(p.new.ranks[0].rank, 1);
    CHECK(!diff_by_rank(&p.base, &p.new));
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    static const char *const kern[][2] = { { SLOWER, "slower" }, { ADDED, "added" }, { REMOVED, "removed" } };
    struct rowset *rs = diff_section(DIFF_KERNELS, &p.base, &p.new, &nz);
    check_statuses(rs, kern, 3, 10);
    CHECK(rs && rowset_find_col(rs, "rank") == SIZE_MAX);
    rowset_free(rs);
    rs = diff_section(DIFF_RANKS, &p.base, &p.new, &nz);
    CHECK(rs && rs->nrows == 1 && !strcmp(cell_text(rs, 0, "name"), "rank 0 vs rank 1"));
    rowset_free(rs);
    pair_close(&p);
    /* a rank the capture does not have is an error naming it */
    snprintf(b, sizeof b, "%s/planted/new:rank7", dir);
    struct diag *d = diag_new();
    const char *args[1] = { b };
    struct capture c;
    struct session_group *g = NULL;
    CHECK_INT(capture_set_open(args, 1, &c, &g, d), 1);
    CHECK(test_diag_has(d, "no rank 7", NULL));
    capture_groups_free(g, 1);
    capture_free(&c);
    diag_free(d);
}

TEST(diff_fail_if_conditions)
{
    struct diff_fail f;
    char why[256];
    CHECK_INT(diff_fail_parse("decode_p50>5%", &f, why, sizeof why), 0);
    CHECK(f.kind == FAIL_P50 && f.phase == PHASE_DECODE && f.pct == 5);
    CHECK_INT(diff_fail_parse("kernel:aclnnMm_X>12.5", &f, why, sizeof why), 0);
    CHECK(f.kind == FAIL_KERNEL && !strcmp(f.name, "aclnnMm_X") && f.pct == 12.5);
    CHECK_INT(diff_fail_parse("decode_p90>5%", &f, why, sizeof why), -1);
    CHECK_INT(diff_fail_parse("decode_p50>five", &f, why, sizeof why), -1);
    CHECK_INT(diff_fail_parse("decode_p50", &f, why, sizeof why), -1);
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    /* exit status: 3 when a guard trips, 0 when it holds, 3 when it cannot be checked */
    int st;
    free(test_aptop(&st, "report --diff --section diff --fail-if 'decode_p50>5%%' '%s/planted/base' '%s/planted/new' 2>/dev/null", dir, dir));
    CHECK_INT(st, 3);
    free(test_aptop(&st, "report --diff --section diff --fail-if 'decode_p50>25%%' --fail-if 'kernel:" SLOWER ">35' '%s/planted/base' '%s/planted/new' 2>/dev/null", dir, dir));
    CHECK_INT(st, 0);
    free(test_aptop(&st, "report --diff --section diff --fail-if 'kernel:" SLOWER ">25' '%s/planted/base' '%s/planted/new' 2>/dev/null", dir, dir));
    CHECK_INT(st, 3);
    free(test_aptop(&st, "report --diff --section diff --fail-if 'kernel:NoSuchKernel>5' '%s/planted/base' '%s/planted/new' 2>/dev/null", dir, dir));
    CHECK_INT(st, 3);
    free(test_aptop(&st, "report --diff --section diff --fail-if 'prefill_p50>5' '%s/planted/base' '%s/planted/new' 2>/dev/null", dir, dir));
    CHECK_INT(st, 3);
    free(test_aptop(&st, "report --fail-if 'decode_p50>5' '%s/planted/base' 2>/dev/null", dir));
    CHECK_INT(st, 2);
    free(test_aptop(&st, "report --diff '%s/planted/base' 2>/dev/null", dir));
    CHECK_INT(st, 2);
}

/* --- figures against an independent computation ----------------------------------------- */

/* tests/unit/diff_check.py recomputes kernels_diff (from kernel_details.csv), comm_diff (from
 * communication.json) and phases_diff (from each side's steps and phases sections) and the
 * statuses by the documented noise rule, and compares them with `report --diff` row by row. */
static void independent(const char *base, const char *new)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 tests/unit/diff_check.py '%s' '%s' '%s' 2>&1", test_bin(), base, new);
    int st;
    char *out = test_run(cmd, &st);
    if (!out || strncmp(out, "OK ", 3))
        test_fail(__FILE__, __LINE__, "%s vs %s: %s", base, new, out ? out : "(no output)");
    free(out);
}

TEST(diff_report_independent_generated)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/planted/base", dir);
    snprintf(b, sizeof b, "%s/planted/new", dir);
    independent(a, b);
    snprintf(a, sizeof a, "%s/ranks/base", dir);
    snprintf(b, sizeof b, "%s/ranks/new", dir);
    independent(a, b);
    snprintf(a, sizeof a, "%s/planted/base:rank1", dir);
    snprintf(b, sizeof b, "%s/planted/new:0", dir);
    independent(a, b);
    snprintf(a, sizeof a, "%s/steps/base", dir);
    snprintf(b, sizeof b, "%s/steps/new", dir);
    independent(a, b);
}

TEST(diff_different_step_counts_judged_per_step)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/steps/base", dir);
    snprintf(b, sizeof b, "%s/steps/new", dir);
    struct pair p;
    CHECK_INT(pair_open(&p, a, b), 0);
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    /* 20 steps against 15: every total is a quarter lower, yet nothing ran faster */
    for (int s = 0; s < DIFF_SECTIONS; s++) {
        struct rowset *rs = diff_section((enum diff_section)s, &p.base, &p.new, &nz);
        for (size_t r = 0; rs && r < rs->nrows; r++)
            CHECK_STR(cell_text(rs, r, "status"), "unchanged");
        if (s == DIFF_KERNELS)
            CHECK(rs && rs->caption && strstr(rs->caption, "judged per step"));
        rowset_free(rs);
    }
    pair_close(&p);
}

TEST(diff_report_independent_real)
{
    REAL_OR_SKIP(t0, "Ascend-msinsight/test/data/pytorch/text/level0");
    char t1[1024], t2[1024], r0[1100], r1[1100], d0[1100], d1[1100];
    snprintf(t1, sizeof t1, "%s/../level1", t0);
    snprintf(t2, sizeof t2, "%s/../level2", t0);
    snprintf(d0, sizeof d0, "%s/../../db/level0", t0);
    snprintf(d1, sizeof d1, "%s/../../db/level1", t0);
    independent(t0, t1);          /* the level pairs */
    independent(t1, t2);
    independent(t0, t2);
    independent(d0, d1);
    independent(t1, d1);          /* text export against DB export */
    snprintf(r0, sizeof r0, "%s:rank0", t1);
    snprintf(r1, sizeof r1, "%s:rank1", t1);
    independent(r0, r1);          /* ranks of one capture */
    /* a PyTorch profiler before/after pair: kernel names of several kB */
    const char *hta = test_real("HolisticTraceAnalysis/tests/data/trace_diff");
    if (hta) {
        char c[1100], n[1100];
        snprintf(c, sizeof c, "%s/control/control.json.gz", hta);
        snprintf(n, sizeof n, "%s/test/test.json.gz", hta);
        independent(c, n);
    }
}

TEST(diff_key_of_long_names)
{
    /* names longer than any fixed buffer keep their whole text: two that differ only at
     * the end are two keys */
    char a[3000], b[3000];
    memset(a, 'k', sizeof a - 2);
    a[sizeof a - 2] = 'A';
    a[sizeof a - 1] = 0;
    memcpy(b, a, sizeof b);
    b[sizeof b - 2] = 'B';
    struct diff_keybuf kb = { 0 };
    const char *ka = diff_key_in(&kb, a);
    CHECK(ka && strlen(ka) == sizeof a - 1 && ka[sizeof a - 2] == 'A');
    const char *kbb = diff_key_in(&kb, b);
    CHECK(kbb && strcmp(kbb, a) != 0);
    char h[3000] = "hcom_allReduce__123_0_1@";
    memset(h + strlen(h), '7', 2000);
    CHECK_STR(diff_key_in(&kb, h), "hcom_allReduce__*_0_1");
    free(kb.p);
}

TEST(diff_report_formats)
{
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    int st;
    char *out = test_aptop(&st, "report --diff --format json '%s/planted/base' '%s/planted/new'", dir, dir);
    CHECK_INT(st, 0);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CHECK(j != NULL);
    static const char *const secs[] = { "kernels_diff", "kernel_types_diff", "phases_diff", "ranks_diff", "decode_diff" };
    static const char *const keys[] = { "name", "base_count", "new_count", "base_total_us", "new_total_us",
                                        "delta_total_us", "ratio", "status" };
    for (size_t s = 0; j && s < sizeof secs / sizeof secs[0]; s++) {
        cJSON *a = cJSON_GetObjectItem(j, secs[s]);
        CHECK(cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0);
        cJSON *row;
        cJSON_ArrayForEach(row, a) {
            for (size_t k = 0; s < 4 && k < sizeof keys / sizeof keys[0]; k++)
                if (!cJSON_GetObjectItem(row, keys[k]))
                    test_fail(__FILE__, __LINE__, "%s row without %s", secs[s], keys[k]);
            cJSON *stt = cJSON_GetObjectItem(row, "status");
            CHECK(cJSON_IsString(stt));
        }
    }
    cJSON *d = j ? cJSON_GetObjectItem(j, "diff") : NULL;
    CHECK(d && cJSON_IsString(cJSON_GetObjectItem(d, "noise_basis")) && cJSON_GetObjectItem(d, "noise_band"));
    /* ops and comm have nothing in these captures: left out of JSON, named in text */
    CHECK(j && !cJSON_GetObjectItem(j, "ops_diff"));
    cJSON_Delete(j);
    free(out);
    out = test_aptop(&st, "report --diff --format csv --section kernels_diff '%s/planted/base' '%s/planted/new'", dir, dir);
    CHECK(out && strstr(out, "# kernels_diff\nrank,name,base_count,new_count,base_total_us,new_total_us,delta_total_us,ratio,status,"));
    free(out);
    out = test_aptop(&st, "report --diff --section ops_diff,decode_diff '%s/planted/base' '%s/ranks/new'", dir, dir);
    CHECK(out && strstr(out, "== ops_diff: neither capture has these figures"));
    free(out);
    out = test_aptop(&st, "report --diff --section nosuch '%s/planted/base' '%s/planted/new' 2>&1", dir, dir);
    CHECK_INT(st, 2);
    CHECK(out && strstr(out, "unknown diff section 'nosuch'"));
    free(out);
}

/* Rows present on both sides of a diff section. */
static size_t matched_rows(const struct rowset *rs)
{
    size_t cb = rs ? rowset_find_col(rs, "base_count") : SIZE_MAX, cn = rs ? rowset_find_col(rs, "new_count") : SIZE_MAX;
    size_t n = 0;
    for (size_t r = 0; cb != SIZE_MAX && cn != SIZE_MAX && r < rs->nrows; r++)
        n += rowset_cell(rs, r, cb)->i > 0 && rowset_cell(rs, r, cn)->i > 0;
    return n;
}

TEST(diff_across_forms)
{
    /* Class B (msprof PROF_*) against Class A (torch_npu): kernels match by name */
    if (test_is_dir("fixtures/prof_classb") && test_is_dir("fixtures/vllm_decode_2rank")) {
        struct pair p;
        CHECK_INT(pair_open(&p, "fixtures/prof_classb", "fixtures/vllm_decode_2rank"), 0);
        struct diff_noise nz;
        diff_noise(&p.base, &p.new, &nz);
        struct rowset *rs = diff_section(DIFF_KERNELS, &p.base, &p.new, &nz);
        CHECK(matched_rows(rs) >= 5);
        rowset_free(rs);
        rs = diff_align_decode(&p.base, &p.new);
        CHECK(rs && rs->nrows > 0);
        rowset_free(rs);
        pair_close(&p);
    }
    /* the text export against the DB export of the same job */
    REAL_OR_SKIP(t, "Ascend-msinsight/test/data/pytorch/text/level1");
    char d[1100];
    snprintf(d, sizeof d, "%s/../../db/level1", t);
    struct pair p;
    CHECK_INT(pair_open(&p, t, d), 0);
    struct diff_noise nz;
    diff_noise(&p.base, &p.new, &nz);
    struct rowset *rs = diff_section(DIFF_KERNELS, &p.base, &p.new, &nz);
    CHECK(matched_rows(rs) >= 100);
    rowset_free(rs);
    rs = diff_section(DIFF_RANKS, &p.base, &p.new, &nz);
    CHECK_INT(matched_rows(rs), 2);
    rowset_free(rs);
    pair_close(&p);
}

TEST(diff_align_long_sequences)
{
    /* 3000 kernels with one inserted and one removed in the middle: the table covers only
     * the middle after the common prefix and suffix; beyond 16M cells, pairs by position */
    enum { N = 3000 };
    static char bufa[N][16];
    static const char *a[N], *b[N + 1];
    for (int i = 0; i < N; i++) {
        snprintf(bufa[i], sizeof bufa[i], "k%d", i % 37);
        a[i] = bufa[i];
    }
    size_t nb = 0;
    for (int i = 0; i < N; i++) {
        if (i == 1500)
            continue;                            /* removed */
        if (i == 1200)
            b[nb++] = "inserted";
        b[nb++] = a[i];
    }
    b[nb++] = "tail";
    struct diff_pair *p = NULL;
    size_t np = 0;
    CHECK_INT(diff_align_names(a, N, b, nb, &p, &np), 0);
    size_t gaps_a = 0, gaps_b = 0;
    for (size_t k = 0; k < np; k++) {
        gaps_a += p[k].a == SIZE_MAX;
        gaps_b += p[k].b == SIZE_MAX;
    }
    CHECK_INT(gaps_a, 2);          /* "inserted" and "tail" */
    CHECK_INT(gaps_b, 1);          /* the removed one */
    free(p);
    static char bx[5000][16], by[5000][16];
    static const char *x[5000], *y[5000];
    for (int i = 0; i < 5000; i++) {
        snprintf(bx[i], sizeof bx[i], "x%d", i);
        snprintf(by[i], sizeof by[i], "y%d", i);
        x[i] = bx[i];
        y[i] = by[i];
    }
    CHECK_INT(diff_align_names(x, 5000, y, 5000, &p, &np), 0);
    CHECK_INT(np, 5000);
    free(p);
}
