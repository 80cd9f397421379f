/* The query engine (query/query.h): what SQLite answers through the virtual tables equals
 * loops over the model's own columns, with and without the constraints pushed down; the
 * command's formats and errors; and `aptop query` against the real captures (query_check.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"
#include "../runner.h"
#include "helpers.h"

/* Two ranks of nested slices on a few lanes, drawn from a fixed pseudo-random sequence. */
static struct model *random_model(unsigned seed, uint32_t n)
{
    static const char *const names[] = { "MatMul", "Add", "aten::mm", "hcom_allReduce_", "Cast" };
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lanes[3] = { test_lane(m, "1", "Python", "1"), test_lane(m, "1", "Python", "2"),
                          test_lane(m, "2", "Ascend Hardware", "7") };
    uint64_t x = seed;
    ns_t t = 1000;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t l = lanes[(x >> 33) % 3];
        ns_t dur = (ns_t)((x >> 40) % 5000);
        test_slice(m, l, t, dur, names[(x >> 20) % 5]);
        if ((x >> 50) % 3 == 0)   /* a child inside it */
            test_slice(m, l, t + dur / 4, dur / 2, names[(x >> 24) % 5]);
        t += (ns_t)((x >> 45) % 3000) + 1;
    }
    model_add_counter(m, model_proc(m, "2", 1), "AI Core Freq", 12, "MHz", 2000, 1800.0);
    model_add_counter(m, model_proc(m, "2", 1), "AI Core Freq", 12, "MHz", 9000, 1650.5);
    CHECK_INT(model_finalize(m), 0);
    return m;
}

struct two_ranks {
    struct rank_data ranks[2];
    struct session s;
};

static void two_ranks_init(struct two_ranks *tr)
{
    memset(tr, 0, sizeof *tr);
    for (int i = 0; i < 2; i++) {
        tr->ranks[i].rank = i + 4;   /* rank ids are not indexes */
        tr->ranks[i].device = i;
        tr->ranks[i].model = random_model(11u + (unsigned)i, 3000);
    }
    tr->s.ranks = tr->ranks;
    tr->s.nranks = 2;
}

static void two_ranks_done(struct two_ranks *tr)
{
    for (int i = 0; i < 2; i++)
        model_free(tr->ranks[i].model);
}

static int64_t cell_int(const struct rowset *rs, size_t row, const char *key)
{
    size_t c = rs ? rowset_find_col(rs, key) : SIZE_MAX;
    if (c == SIZE_MAX || row >= rs->nrows || rowset_is_null(rs, row, c))
        return INT64_MIN;
    return rowset_cell(rs, row, c)->i;
}

/* A cell as text (strings, decimals, integers), or NULL when null or absent. */
static const char *cell_text(const struct rowset *rs, size_t row, const char *key)
{
    static char buf[256];
    size_t c = rs ? rowset_find_col(rs, key) : SIZE_MAX;
    if (c == SIZE_MAX || row >= rs->nrows || rowset_is_null(rs, row, c))
        return NULL;
    return rowset_format(rs, row, c, buf, sizeof buf);
}

/* count(*) and sum(dur) of one statement's single row. */
static void count_sum(struct query *q, const char *sql, int64_t *n, int64_t *sum)
{
    char err[256] = "";
    struct rowset *rs = query_run(q, sql, 0, err, sizeof err);
    if (!rs)
        test_fail(__FILE__, __LINE__, "%s: %s", sql, err);
    *n = cell_int(rs, 0, "n");
    *sum = cell_int(rs, 0, "total");
    rowset_free(rs);
}

/* Whether SQLite sorts or keeps a temporary table for sql (EXPLAIN shows a sorter or an
 * ephemeral table): false where the slice table delivers the rows grouped. */
static bool plan_sorts(struct query *q, const char *sql)
{
    char err[256] = "", explain[512];
    snprintf(explain, sizeof explain, "EXPLAIN %s", sql);
    struct rowset *rs = query_run(q, explain, 0, err, sizeof err);
    bool sorts = !rs;
    size_t c = rs ? rowset_find_col(rs, "opcode") : SIZE_MAX;
    CHECK(c != SIZE_MAX);
    for (size_t r = 0; rs && c != SIZE_MAX && r < rs->nrows; r++) {
        char buf[64];
        const char *op = rowset_format(rs, r, c, buf, sizeof buf);
        sorts |= !strcmp(op, "SorterOpen") || !strcmp(op, "OpenEphemeral");
    }
    rowset_free(rs);
    return sorts;
}

/* Whether some name has another id in a than in b (the grouped read must then join runs of
 * the same text, not of the same id). */
static bool names_differ_in_id(const struct model *a, const struct model *b)
{
    for (uint32_t i = 1; i < strtab_count(a->str) && i < strtab_count(b->str); i++)
        if (strcmp(strtab_get(a->str, i), strtab_get(b->str, i)))
            return true;
    return false;
}

/* sql's rows (name, n, total) equal a count and a duration sum by name over rank index only
 * of tr (-1: both), want_rows of them, in byte order of the names. */
static void check_by_name(struct query *q, const char *sql, const struct two_ranks *tr, int only, size_t want_rows)
{
    char err[256] = "";
    struct rowset *rs = query_run(q, sql, 0, err, sizeof err);
    CHECK(rs && rs->nrows == want_rows);
    char prev[256] = "";
    for (size_t r = 0; rs && r < rs->nrows; r++) {
        const char *name = cell_text(rs, r, "name");
        CHECK(name && (r == 0 || strcmp(prev, name) < 0));
        snprintf(prev, sizeof prev, "%s", name ? name : "");
        int64_t n = 0, sum = 0;
        for (int k = 0; k < 2; k++) {
            const struct model *m = tr->ranks[k].model;
            for (uint32_t s = 0; (only < 0 || only == k) && s < m->nslices; s++)
                if (!strcmp(model_str(m, m->name[s]), prev))
                    n++, sum += m->dur[s];
        }
        CHECK_INT(cell_int(rs, r, "n"), n);
        CHECK_INT(cell_int(rs, r, "total"), sum);
    }
    rowset_free(rs);
}

TEST(query_ts_and_rank_pushdown_equal_model_loops)
{
    struct two_ranks tr;
    two_ranks_init(&tr);
    char err[256];
    struct query *q = query_open(&tr.s, err, sizeof err);
    CHECK(q != NULL);
    if (!q) {
        two_ranks_done(&tr);
        return;
    }
    ns_t cuts[][2] = { { 0, INT64_MAX / 2 }, { 50000, 90000 }, { 1000, 1000 }, { 777777, 1500000 }, { -5, 10 } };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        for (int only = -1; only < 2; only++) {
            int64_t want_n = 0, want_sum = 0;
            for (int r = 0; r < 2; r++) {
                const struct model *m = tr.ranks[r].model;
                for (uint32_t s = 0; (only < 0 || only == r) && s < m->nslices; s++)
                    if (m->start[s] >= cuts[k][0] && m->start[s] <= cuts[k][1])
                        want_n++, want_sum += m->dur[s];
            }
            char sql[256], rank[32] = "";
            if (only >= 0)
                snprintf(rank, sizeof rank, " AND rank = %d", tr.ranks[only].rank);
            int64_t n, sum, n2, sum2;
            snprintf(sql, sizeof sql, "SELECT count(*) AS n, sum(dur) AS total FROM slice WHERE ts >= %lld AND ts <= %lld%s",
                     (long long)cuts[k][0], (long long)cuts[k][1], rank);
            count_sum(q, sql, &n, &sum);
            /* ts + 0 cannot be pushed down: SQLite's own filter over every row */
            snprintf(sql, sizeof sql, "SELECT count(*) AS n, sum(dur) AS total FROM slice WHERE ts + 0 BETWEEN %lld AND %lld%s",
                     (long long)cuts[k][0], (long long)cuts[k][1], rank);
            count_sum(q, sql, &n2, &sum2);
            CHECK_INT(n, want_n);
            CHECK_INT(n2, want_n);
            if (want_n) {
                CHECK_INT(sum, want_sum);
                CHECK_INT(sum2, want_sum);
            }
        }
    }
    /* a strict bound and a real bound keep exactly the rows SQLite's comparison keeps */
    const struct model *m0 = tr.ranks[0].model;
    ns_t t = m0->start[m0->nslices / 2];
    char sql[200];
    int64_t n, sum, want = 0;
    for (uint32_t s = 0; s < m0->nslices; s++)
        want += m0->start[s] > t && (double)m0->start[s] < (double)t + 100.5;
    snprintf(sql, sizeof sql, "SELECT count(*) AS n, 0 AS total FROM slice WHERE rank = 4 AND ts > %lld AND ts < %lld.5",
             (long long)t, (long long)t + 100);
    count_sum(q, sql, &n, &sum);
    CHECK_INT(n, want);
    query_close(q);
    two_ranks_done(&tr);
}

TEST(query_ids_parents_tracks_and_names)
{
    struct two_ranks tr;
    two_ranks_init(&tr);
    char err[256];
    struct query *q = query_open(&tr.s, err, sizeof err);
    CHECK(q != NULL);
    if (!q) {
        two_ranks_done(&tr);
        return;
    }
    const struct model *m1 = tr.ranks[1].model;
    int64_t base = tr.ranks[0].model->nslices;
    /* id = X finds one slice of rank index 1, its parent and track as the model says */
    for (uint32_t s = 0; s < m1->nslices; s += 997) {
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT id, ts, dur, depth, parent_id, track_id, rank, name FROM slice WHERE id = %lld",
                 (long long)(base + s));
        struct rowset *rs = query_run(q, sql, 0, err, sizeof err);
        CHECK(rs && rs->nrows == 1);
        if (!rs || rs->nrows != 1) {
            rowset_free(rs);
            continue;
        }
        CHECK_INT(cell_int(rs, 0, "ts"), m1->start[s]);
        CHECK_INT(cell_int(rs, 0, "dur"), m1->dur[s]);
        CHECK_INT(cell_int(rs, 0, "depth"), m1->depth[s]);
        CHECK_INT(cell_int(rs, 0, "rank"), 5);
        uint32_t p = model_parent(m1, s);
        CHECK_INT(cell_int(rs, 0, "parent_id"), p == SLICE_NONE ? INT64_MIN : base + p);
        CHECK_STR(cell_text(rs, 0, "name"), model_str(m1, m1->name[s]));
        size_t ri;
        uint32_t back;
        CHECK(query_slice_of_id(q, base + s, &ri, &back) && ri == 1 && back == s);
        CHECK_INT(rowset_link_rank(rs->link[0]), 1);
        CHECK_INT(rowset_link_entry(rs->link[0]), s);
        rowset_free(rs);
    }
    /* GROUP BY name over both ranks, over one of them, and DISTINCT name: read grouped (the
     * plan of a GROUP BY has no sort), equal to loops over the models and to a grouping SQLite makes of the
     * names made into text first; with ORDER BY name the groups come in byte order */
    CHECK(names_differ_in_id(tr.ranks[0].model, tr.ranks[1].model));
    const char *plain = "SELECT name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY name";
    CHECK(!plan_sorts(q, plain));
    CHECK(!plan_sorts(q, "SELECT name, count(*) AS n, sum(dur) AS total FROM slice WHERE rank = 5 GROUP BY name"));
    struct rowset *a = query_run(q, "SELECT name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY name ORDER BY name", 0, err, sizeof err);
    struct rowset *b = query_run(q, "SELECT name || '' AS name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY 1 ORDER BY 1",
                                 0, err, sizeof err);
    CHECK(a && b && a->nrows == 5 && b->nrows == 5);
    for (size_t r = 0; a && b && r < a->nrows && r < b->nrows; r++) {
        CHECK_STR(cell_text(a, r, "name"), cell_text(b, r, "name"));
        CHECK_INT(cell_int(a, r, "n"), cell_int(b, r, "n"));
        CHECK_INT(cell_int(a, r, "total"), cell_int(b, r, "total"));
    }
    rowset_free(a);
    rowset_free(b);
    for (int only = -1; only < 2; only++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT name, count(*) AS n, sum(dur) AS total FROM slice %s GROUP BY name",
                 only < 0 ? "" : only ? "WHERE rank = 5" : "WHERE rank = 4");
        check_by_name(q, sql, &tr, only, 5);
    }
    a = query_run(q, "SELECT DISTINCT name FROM slice", 0, err, sizeof err);
    CHECK(a && a->nrows == 5);
    char seen[5][64] = { "" };
    for (size_t r = 0; a && r < a->nrows && r < 5; r++) {
        snprintf(seen[r], sizeof seen[r], "%s", cell_text(a, r, "name"));
        for (size_t k = 0; k < r; k++)
            CHECK(strcmp(seen[k], seen[r]));
    }
    rowset_free(a);
    struct session one = tr.s;
    one.nranks = 1;
    struct query *q1 = query_open(&one, err, sizeof err);
    CHECK(q1 && !plan_sorts(q1, plain));
    if (q1)
        check_by_name(q1, "SELECT name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY name ORDER BY name", &tr, 0, 5);
    query_close(q1);
    /* tracks: a slice's track is a thread of its rank; counters name their counter track */
    struct rowset *rs = query_run(q, "SELECT count(*) AS n FROM slice s JOIN thread_track t ON t.id = s.track_id "
                                     "WHERE t.rank = s.rank", 0, err, sizeof err);
    CHECK_INT(cell_int(rs, 0, "n"), (int64_t)(tr.ranks[0].model->nslices + m1->nslices));
    rowset_free(rs);
    rs = query_run(q, "SELECT c.ts, c.value, t.name, t.unit FROM counter c JOIN counter_track t ON t.id = c.track_id "
                      "WHERE c.rank = 5 ORDER BY c.ts", 0, err, sizeof err);
    CHECK(rs && rs->nrows == 2);
    CHECK_INT(cell_int(rs, 0, "ts"), 2000);
    CHECK_STR(cell_text(rs, 1, "value"), "1650.5");
    CHECK_STR(cell_text(rs, 1, "name"), "AI Core Freq");
    CHECK_STR(cell_text(rs, 1, "unit"), "MHz");
    rowset_free(rs);
    query_close(q);
    two_ranks_done(&tr);
}

TEST(query_errors_limits_and_types)
{
    struct two_ranks tr;
    two_ranks_init(&tr);
    char err[256] = "";
    struct query *q = query_open(&tr.s, err, sizeof err);
    CHECK(q != NULL);
    if (!q) {
        two_ranks_done(&tr);
        return;
    }
    CHECK(!query_run(q, "SELEC name FROM slice", 0, err, sizeof err));
    CHECK(strstr(err, "syntax error") != NULL);
    CHECK(!query_run(q, "SELECT 1; SELECT 2", 0, err, sizeof err));
    CHECK(strstr(err, "one statement") != NULL);
    CHECK(!query_run(q, "SELECT nosuch FROM slice", 0, err, sizeof err));
    CHECK(strstr(err, "nosuch") != NULL);
    CHECK(!query_run(q, "ATTACH '/tmp/x.db' AS x", 0, err, sizeof err));
    /* --limit: the first rows, and the caption says the rest was cut */
    struct rowset *rs = query_run(q, "SELECT id FROM slice ORDER BY id", 7, err, sizeof err);
    CHECK(rs && rs->nrows == 7 && rs->caption && strstr(rs->caption, "--limit"));
    CHECK_INT(cell_int(rs, 6, "id"), 6);
    rowset_free(rs);
    /* types: integers, exact reals, text; a column of both is text; time columns say ns */
    rs = query_run(q, "SELECT 1 AS i, 0.1 AS r, 'x' AS t, ts FROM slice WHERE id = 0 UNION ALL SELECT 2, 1e300, 3, 4", 0, err, sizeof err);
    CHECK(rs && rs->ncols == 4);
    if (rs && rs->ncols == 4) {
        CHECK_INT(rs->cols[0].type, RS_INT);
        CHECK_INT(rs->cols[1].type, RS_DEC);
        CHECK_INT(rs->cols[2].type, RS_STR);
        CHECK_STR(cell_text(rs, 0, "r"), "0.1");
        CHECK_STR(cell_text(rs, 1, "t"), "3");
    }
    rowset_free(rs);
    rs = query_run(q, "SELECT ts, dur, ts + dur AS end_ts FROM slice LIMIT 1", 0, err, sizeof err);
    CHECK(rs && rs->ncols == 3);
    if (rs && rs->ncols == 3) {
        CHECK_STR(rs->cols[0].title, "ts (ns)");
        CHECK_STR(rs->cols[2].title, "end_ts");
    }
    rowset_free(rs);
    /* no such id, an id that is no whole number: no row, no error */
    rs = query_run(q, "SELECT count(*) AS n FROM slice WHERE id = 99999999 OR id = 2.5 OR id = 'x'", 0, err, sizeof err);
    CHECK_INT(cell_int(rs, 0, "n"), 0);
    rowset_free(rs);
    query_close(q);
    two_ranks_done(&tr);
}

TEST(query_command_formats_and_usage)
{
    int st;
    char *out = test_aptop(&st, "query --format json fixtures/vllm_decode_2rank "
                                "'SELECT name, count(*) AS n FROM slice GROUP BY name ORDER BY n DESC LIMIT 2' 2>&1");
    CHECK_INT(st, 0);
    CHECK(out && out[0] == '[' && strstr(out, "\"name\": ") && strstr(out, "\"n\": "));
    free(out);
    out = test_aptop(&st, "query fixtures/vllm_decode_2rank 'SELECT nosuch FROM slice' 2>&1");
    CHECK(st != 0 && out && strstr(out, "no such column: nosuch"));
    free(out);
    out = test_aptop(&st, "query fixtures/vllm_decode_2rank 2>&1");
    CHECK(st == 2 && out && strstr(out, "SQL statement"));
    free(out);
    out = test_aptop(&st, "query --format csv --limit 1 fixtures/vllm_decode_2rank 'SELECT id, ts FROM slice ORDER BY id' 2>&1");
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "id,ts\n0,") && strstr(out, "--limit"));
    free(out);
}

TEST(query_equals_python_on_real_captures)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st;
    char *out = test_check("query", &st);
    CHECK_INT(st, 0);
    if (st)
        test_fail(__FILE__, __LINE__, "%s", out ? out : "");
    free(out);
}
