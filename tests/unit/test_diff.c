/* Comparing captures (model/diff.h): key normalisation, the sequence alignment, generated
 * pairs with planted changes (every planted change found, nothing else marked changed),
 * rank matching across rank counts, one rank against another, and the report --diff
 * figures against an independent Python computation on generated and real pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/capture_set.h"
#include "io/loader.h"
#include "model/diff.h"
#include "model/diff_report.h"
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

/* The Python side: kernels per (rank, name) from each side's kernel_details.csv (exact ns
 * from the decimal text), names normalised, joined, status by the documented rule with the
 * band taken from the step durations of `report --section steps` (median, MAD); compared
 * with `aptop report --diff --format json` row by row. Rows within 0.5% of the band's edge
 * are not judged (the band itself comes from the steps' own definition). */
static const char checker[] =
    "import csv, glob, json, os, re, subprocess, sys\n"
    "b, base, new = sys.argv[1:4]\n"
    "def ns(s):\n"
    "    s = s.strip(); neg = s.startswith('-'); ip, _, fp = s.lstrip('-').partition('.')\n"
    "    v = int(ip or '0') * 1000 + int((fp + '000')[:3]); return -v if neg else v\n"
    "def key(n):\n"
    "    if not n.startswith('hcom_'): return n\n"
    "    n = n.split('@')[0]; return re.sub(r'^(hcom_.*?__)\\d+', r'\\g<1>*', n, count=1)\n"
    "def spec(p):\n"
    "    m = re.match(r'^(.*):(?:rank)?(\\d+)$', p)\n"
    "    return (m.group(1), int(m.group(2))) if m and not os.path.exists(p) else (p, None)\n"
    "def kernels(p):\n"
    "    path, want = spec(p); out = {}\n"
    "    for f in sorted(glob.glob(os.path.join(path, '**', 'kernel_details.csv'), recursive=True)):\n"
    "        m = re.search(r'rank(\\d+)', f); r = int(m.group(1)) if m else 0\n"
    "        if want is not None and r != want: continue\n"
    "        for row in csv.DictReader(open(f, encoding='utf-8-sig')):\n"
    "            d = row.get('Duration(us)', '').strip()\n"
    "            if not d or d == 'N/A': continue\n"
    "            k = (r, key(row['Name'])); c, t = out.get(k, (0, 0)); out[k] = (c + 1, t + ns(d))\n"
    "    return out\n"
    "def steps(p):\n"
    "    o = json.loads(subprocess.run([b, 'report', '--format', 'json', '--section', 'steps', p], capture_output=True).stdout)\n"
    "    return o.get('steps', [])\n"
    "def med(v):\n"
    "    v = sorted(v); n = len(v); return (v[(n - 1) // 2] + v[n // 2]) / 2\n"
    "def band(p):\n"
    "    by = {}\n"
    "    for s in steps(p): by.setdefault((s.get('rank', 0), s['phase']), []).append(ns(str(s['dur_us'])))\n"
    "    out, cnt = {}, {}\n"
    "    for (r, ph), v in by.items():\n"
    "        m = med(v); mad = med([abs(x - m) for x in v]); out.setdefault(ph, 0.0)\n"
    "        out[ph] = max(out[ph], 3 * max(mad, m / 100) / m); cnt[ph] = cnt.get(ph, 0) + len(v)\n"
    "    return out, cnt\n"
    "(bb, cb), (bn, _) = band(base), band(new)\n"
    "common = [p for p in ('prefill', 'decode', 'mixed', 'other') if p in bb and p in bn]\n"
    "ref = 'decode' if 'decode' in common else (max(common, key=lambda p: cb[p]) if common else None)\n"
    "rel = max(0.03, bb.get(ref, 0), bn.get(ref, 0)) if ref else 0.03\n"
    "kb, kn = kernels(base), kernels(new)\n"
    "one = len({r for r, _ in kb}) == 1 and len({r for r, _ in kn}) == 1\n"
    "if one: kb = {(0, n): v for (r, n), v in kb.items()}; kn = {(0, n): v for (r, n), v in kn.items()}\n"
    "o = json.loads(subprocess.run([b, 'report', '--diff', '--format', 'json', '--section', 'kernels_diff', base, new],\n"
    "                              capture_output=True).stdout)\n"
    "got = {(0 if one else r['rank'], r['name']): r for r in o['kernels_diff']}\n"
    "bad = []\n"
    "for k in set(kb) | set(kn):\n"
    "    r = got.get(k)\n"
    "    if r is None: bad.append('missing %r' % (k,)); continue\n"
    "    cb, tb = kb.get(k, (0, 0)); cn, tn = kn.get(k, (0, 0))\n"
    "    if (r['base_count'], r['new_count'], ns(str(r['base_total_us'])), ns(str(r['new_total_us'])), ns(str(r['delta_total_us']))) != (cb, cn, tb, tn, tn - tb):\n"
    "        bad.append('figures %r' % (k,)); continue\n"
    "    if k not in kb: want = 'added'\n"
    "    elif k not in kn: want = 'removed'\n"
    "    else:\n"
    "        d, lim = tn - tb, rel * abs(tb)\n"
    "        if abs(abs(d) - lim) <= 0.005 * abs(tb): continue\n"
    "        want = 'slower' if d > lim else 'faster' if d < -lim else 'unchanged'\n"
    "    if r['status'] != want: bad.append('status %r %s, expected %s' % (k, r['status'], want))\n"
    "if len(got) != len(set(kb) | set(kn)): bad.append('%d rows, expected %d' % (len(got), len(set(kb) | set(kn))))\n"
    "print('OK %d rows' % len(got) if not bad else 'BAD ' + '; '.join(bad[:5]))\n";

static void independent(const char *base, const char *new)
{
    char tmp[] = "/tmp/aptop_diff_check_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_INT(write(fd, checker, sizeof checker - 1), (long long)(sizeof checker - 1));
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 %s '%s' '%s' '%s' 2>&1", tmp, test_bin(), base, new);
    int st;
    char *out = test_run(cmd, &st);
    unlink(tmp);
    if (!out || strncmp(out, "OK ", 3))
        test_fail(__FILE__, __LINE__, "%s vs %s: %s", base, new, out ? out : "(no output)");
    free(out);
}

TEST(diff_report_kernels_independent_generated)
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
}

TEST(diff_report_kernels_independent_real)
{
    REAL_OR_SKIP(t0, "Ascend-msinsight/test/data/pytorch/text/level0");
    char t1[1024], t2[1024], r0[1100], r1[1100];
    snprintf(t1, sizeof t1, "%s/../level1", t0);
    snprintf(t2, sizeof t2, "%s/../level2", t0);
    independent(t0, t1);          /* the level pairs */
    independent(t1, t2);
    independent(t0, t2);
    snprintf(r0, sizeof r0, "%s:rank0", t1);
    snprintf(r1, sizeof r1, "%s:rank1", t1);
    independent(r0, r1);          /* ranks of one capture */
}
