/* Kernel aggregations, the table↔trace join and the report sections built from CSV tables. */
#include "../runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tables/csv_table.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "report/report.h"

static struct table *tbl(const char *csv, enum table_kind k)
{
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load_buffer(csv, strlen(csv), "kernel_details.csv", k, &t, d), 0);
    diag_free(d);
    return t;
}

static size_t find_row(const struct rowset *rs, const char *key, const char *val)
{
    size_t c = rowset_find_col(rs, key);
    for (size_t r = 0; rs && c != SIZE_MAX && r < rs->nrows; r++)
        if (!rowset_is_null(rs, r, c) && !strcmp(strtab_get(rs->str, rowset_cell(rs, r, c)->s), val))
            return r;
    return SIZE_MAX;
}

static int64_t cell_i(const struct rowset *rs, size_t r, const char *key)
{
    size_t c = rowset_find_col(rs, key);
    if (c == SIZE_MAX || r >= rs->nrows || rowset_is_null(rs, r, c))
        return INT64_MIN;
    return rowset_cell(rs, r, c)->i;
}

static double cell_d(const struct rowset *rs, size_t r, const char *key)
{
    size_t c = rowset_find_col(rs, key);
    if (c == SIZE_MAX || r >= rs->nrows || rowset_is_null(rs, r, c))
        return NAN;
    return rowset_cell(rs, r, c)->d;
}

static const char *kcsv =
    "Name,Type,Accelerator Core,Start Time(us),Duration(us),aicore_time(us),aic_mac_ratio\r\n"
    "MatMul_1,MatMul,AI_CORE,100.000\t,10.001,9,0.5\r\n"
    "Add_2,Add,AI_VECTOR_CORE,200.5\t,0.003,N/A,N/A\r\n"
    "MatMul_1,MatMul,AI_CORE,300.000\t,20.002,11,0.7\r\n"
    "Cast,Cast,AI_VECTOR_CORE,400.000\t,N/A,N/A,N/A\r\n"
    "MatMul_2,MatMul,AI_CORE,500.000\t,5,N/A,0.1\r\n";

TEST(kernels_by_name_exact)
{
    struct table *t = tbl(kcsv, TK_KERNELS);
    struct rowset *rs = kernels_aggregate(t, KG_NAME);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rs->nrows, 3);                /* Cast has no duration */
        size_t r = find_row(rs, "name", "MatMul_1");
        CHECK_INT(r, 0);                        /* largest total first */
        CHECK_INT(cell_i(rs, r, "count"), 2);
        CHECK_INT(cell_i(rs, r, "total_us"), 30003);
        CHECK_INT(cell_i(rs, r, "mean_us"), 15002);     /* 15001.5 rounded */
        CHECK_INT(cell_i(rs, r, "min_us"), 10001);
        CHECK_INT(cell_i(rs, r, "max_us"), 20002);
        CHECK_NEAR(cell_d(rs, r, "share"), 30003.0 / 35006.0, 1e-12);
        CHECK_INT(cell_i(rs, r, "aicore_time_us"), 10000);
        CHECK_NEAR(cell_d(rs, r, "aic_mac_ratio"), 0.6, 1e-12);
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, r, rowset_find_col(rs, "core"))->s), "AI_CORE");
        size_t a = find_row(rs, "name", "Add_2");
        CHECK_INT(cell_i(rs, a, "total_us"), 3);
        CHECK(isnan(cell_d(rs, a, "aic_mac_ratio")));
        CHECK_INT(rowset_find_col(rs, "rank"), SIZE_MAX);
    }
    rowset_free(rs);
    rs = kernels_aggregate(t, KG_TYPE);
    CHECK(rs && rs->nrows == 2);
    if (rs) {
        size_t r = find_row(rs, "type", "MatMul");
        CHECK_INT(cell_i(rs, r, "count"), 3);
        CHECK_INT(cell_i(rs, r, "total_us"), 35003);
    }
    rowset_free(rs);
    rs = kernels_aggregate(t, KG_CORE);
    CHECK(rs && rs->nrows == 2);
    if (rs)
        CHECK_INT(cell_i(rs, find_row(rs, "core", "AI_VECTOR_CORE"), "count"), 1);
    rowset_free(rs);
    rs = kernels_instances(t);
    CHECK(rs && rs->nrows == 5);
    if (rs)
        CHECK_INT(cell_i(rs, 1, "start_time_us"), 200500);
    rowset_free(rs);
    table_free(t);
    CHECK(kernels_aggregate(NULL, KG_NAME) == NULL);
}

/* A model with one "Ascend Hardware" process of two streams and a Python lane. */
static struct model *device_model(void)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l1 = model_lane(m, "7", 1, "9", 1), l2 = model_lane(m, "7", 1, "8", 1);
    uint32_t py = model_lane(m, "100", 3, "100", 3);
    model_set_process_name(m, m->lanes[l1].proc, "Ascend Hardware", 15);
    model_set_process_name(m, m->lanes[py].proc, "Python", 6);
    model_add_slice(m, l1, 100000, 10001, "MatMul_1", 8, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, l1, 300400, 20002, "MatMul_1", 8, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, l2, 200500, 3, "Add_2", 5, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, l2, 250000, 7, "Add_2", 5, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, l1, 500000 + 1500, 5000, "MatMul_2", 8, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, py, 100, 1000000, "MatMul_1", 8, "", 0, 0, UINT64_MAX, 0);
    CHECK_INT(model_finalize(m), 0);
    return m;
}

TEST(kernels_from_model_lanes)
{
    struct model *m = device_model();
    struct rowset *rs = kernels_aggregate_model(m);
    CHECK(rs && rs->nrows == 3);
    if (rs) {
        size_t r = find_row(rs, "name", "MatMul_1");
        CHECK_INT(cell_i(rs, r, "count"), 2);       /* the Python slice is not a kernel */
        CHECK_INT(cell_i(rs, r, "total_us"), 30003);
        CHECK_INT(cell_i(rs, find_row(rs, "name", "Add_2"), "total_us"), 10);
    }
    rowset_free(rs);
    model_free(m);
}

TEST(kernels_join_rows_to_slices)
{
    struct model *m = device_model();
    struct table *t = tbl(kcsv, TK_KERNELS);
    struct diag *d = diag_new();
    CHECK_INT(kernels_join(t, m, d), 3);    /* MatMul_1 ×2 (0 and 0.4 µs off), Add_2; not MatMul_2 (1.5 µs) */
    CHECK(t->slice != NULL);
    if (t->slice) {
        CHECK(t->slice[0] != SLICE_NONE && !strcmp(model_str(m, m->name[t->slice[0]]), "MatMul_1"));
        CHECK_INT(m->start[t->slice[0]], 100000);
        CHECK_INT(m->start[t->slice[2]], 300400);
        CHECK_INT(m->start[t->slice[1]], 200500);
        CHECK_INT(t->slice[4], SLICE_NONE);
        CHECK_INT(kernels_row_for_slice(t, t->slice[2]), 2);
        CHECK_INT(kernels_row_for_slice(t, t->slice[1]), 1);
    }
    CHECK_INT(diag_count(d), 1);
    struct rowset *rs = kernels_instances(t);
    CHECK(rs && rs->link[0] == t->slice[0] && rs->link[4] == UINT64_MAX);
    rowset_free(rs);
    diag_free(d);
    table_free(t);
    model_free(m);
}

/* The instances behind one aggregate row: rows of that name / type / core, linked. */
TEST(kernels_instances_of_one_row)
{
    struct model *m = device_model();
    struct table *t = tbl(kcsv, TK_KERNELS);
    struct diag *d = diag_new();
    kernels_join(t, m, d);
    struct rowset *rs = kernels_instances_of(t, KG_NAME, "MatMul_1");
    CHECK(rs && rs->nrows == 2);
    if (rs && rs->nrows == 2) {
        CHECK_INT(cell_i(rs, 0, "start_time_us"), 100000);
        CHECK_INT(cell_i(rs, 1, "duration_us"), 20002);
        CHECK(rs->link[0] == t->slice[0] && rs->link[1] == t->slice[2]);
    }
    rowset_free(rs);
    rs = kernels_instances_of(t, KG_TYPE, "MatMul");
    CHECK(rs && rs->nrows == 3);
    rowset_free(rs);
    rs = kernels_instances_of(t, KG_CORE, "AI_VECTOR_CORE");
    CHECK(rs && rs->nrows == 2);
    rowset_free(rs);
    rs = kernels_instances_of(t, KG_NAME, "NoSuchKernel");
    CHECK(rs && rs->nrows == 0);
    rowset_free(rs);
    rs = kernels_instances_model(m, "Add_2");
    CHECK(rs && rs->nrows == 2);
    if (rs && rs->nrows == 2) {
        CHECK_INT(cell_i(rs, 1, "duration_us"), 7);
        CHECK_STR(model_str(m, m->name[rs->link[0]]), "Add_2");
    }
    rowset_free(rs);
    rs = kernels_instances_model(m, "MatMul_1");
    CHECK(rs && rs->nrows == 2);            /* the Python slice of that name is no kernel */
    rowset_free(rs);
    diag_free(d);
    table_free(t);
    model_free(m);
}

TEST(kernels_report_sources_and_ranks)
{
    struct model *m = device_model();
    struct table *t = tbl(kcsv, TK_KERNELS);
    struct rank_data rd[2] = { { .rank = 0, .model = m }, { .rank = 3, .model = m } };
    rd[1].tables[TK_KERNELS] = t;
    struct session s = { .ranks = rd, .nranks = 2 };
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_kernels(&s, &o);
    CHECK(rs != NULL);
    if (rs) {
        CHECK(rowset_find_col(rs, "rank") != SIZE_MAX);
        CHECK_INT(rs->nrows, 6);
        for (size_t r = 1; r < rs->nrows; r++)
            CHECK(cell_i(rs, r - 1, "total_us") >= cell_i(rs, r, "total_us"));
        /* rank 3 reads the CSV: MatMul_2 lasts 5 µs there (5.0 in the trace too), Add_2 3 ns */
        bool saw = false;
        for (size_t r = 0; r < rs->nrows; r++)
            if (cell_i(rs, r, "rank") == 3 && !strcmp(strtab_get(rs->str, rowset_cell(rs, r, rowset_find_col(rs, "name"))->s), "Add_2")) {
                CHECK_INT(cell_i(rs, r, "total_us"), 3);
                saw = true;
            }
        CHECK(saw);
    }
    rowset_free(rs);
    o.rank = 0;
    rs = report_kernels(&s, &o);
    CHECK(rs && rs->nrows == 3);
    rowset_free(rs);
    table_free(t);
    model_free(m);
}

TEST(kernels_sections_real_level1)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT");
    static const struct { const char *file; enum table_kind k; } files[] = {
        { "operator_details.csv", TK_OPERATOR_DETAILS }, { "api_statistic.csv", TK_API_STATISTIC },
        { "step_trace_time.csv", TK_STEP_TRACE }, { "op_statistic.csv", TK_OP_STATISTIC },
    };
    struct rank_data rd = { .rank = 0 };
    struct diag *d = diag_new();
    for (size_t i = 0; i < 4; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, files[i].file);
        CHECK_INT(csv_table_load(p, files[i].k, &rd.tables[files[i].k], d, NULL), 0);
    }
    struct session s = { .ranks = &rd, .nranks = 1 };
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_step_trace(&s, &o);
    CHECK(rs && rs->nrows == 1);
    if (rs) {
        CHECK_INT(cell_i(rs, 0, "computing_us"), 8873756);
        CHECK_INT(cell_i(rs, 0, "preparing_us"), 17902500);
        /* every µs column says so in its header, the file's own name first */
        for (size_t c = 0; c < rs->ncols; c++)
            if (rs->cols[c].type == RS_NS)
                CHECK(strstr(rs->cols[c].title, "\xc2\xb5s") || strstr(rs->cols[c].title, "(us)"));
        CHECK_STR(rs->cols[rowset_find_col(rs, "computing_us")].title, "Computing \xc2\xb5s");
    }
    rowset_free(rs);
    rs = report_apis(&s, &o);
    CHECK(rs && rs->nrows == 57);
    if (rs) {
        for (size_t r = 1; r < rs->nrows; r++)
            CHECK(cell_i(rs, r - 1, "total_us") >= cell_i(rs, r, "total_us"));
        size_t r = find_row(rs, "name", "Launch_Ffts");
        CHECK_INT(cell_i(rs, r, "total_us"), 474410);
        CHECK_NEAR(cell_d(rs, r, "count"), 4, 0);
    }
    rowset_free(rs);
    /* ops: per-name counts and host totals against Python */
    rs = report_ops(&s, &o);
    CHECK(rs != NULL);
    char cmd[4600];
    int st;
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import csv,sys\n"
             "t={}\n"
             "for r in csv.DictReader(open(sys.argv[1])):\n"
             "    c,s=t.get(r[\"Name\"],(0,0)); t[r[\"Name\"]]=(c+1,s+round(float(r[\"Host Total Duration(us)\"])*1000))\n"
             "print(len(t)); print(sum(c for c,s in t.values())); print(sum(s for c,s in t.values()))' '%s/operator_details.csv'", dir);
    char *out = test_run(cmd, &st);
    long long names = 0, calls = 0, host = 0;
    CHECK(sscanf(out, "%lld %lld %lld", &names, &calls, &host) == 3);
    free(out);
    if (rs) {
        long long c = 0, h = 0;
        for (size_t r = 0; r < rs->nrows; r++) {
            c += cell_i(rs, r, "count");
            h += cell_i(rs, r, "host_total_us") == INT64_MIN ? 0 : cell_i(rs, r, "host_total_us");
        }
        CHECK_INT(rs->nrows, names);
        CHECK_INT(c, calls);
        CHECK(llabs(h - host) <= calls);
    }
    rowset_free(rs);
    /* without operator_details, ops falls back to op_statistic */
    table_free(rd.tables[TK_OPERATOR_DETAILS]);
    rd.tables[TK_OPERATOR_DETAILS] = NULL;
    rs = report_ops(&s, &o);
    CHECK(rs && rs->nrows == 33 && rowset_find_col(rs, "ratio_pct") != SIZE_MAX);
    rowset_free(rs);
    for (int k = 0; k < TK_COUNT; k++)
        table_free(rd.tables[k]);
    diag_free(d);
}

TEST(kernels_step_trace_variants)
{
    /* with Device_id and without Preparing; a GBK header still matched */
    struct table *t = tbl("Device_id,Step,Computing,Communication(Not Overlapped),Free\n"
                          "0,7,1.5,2,3.25\n1,8,N/A,,4\n", TK_STEP_TRACE);
    struct rowset *rs = kernels_step_trace(t);
    CHECK(rs && rs->nrows == 2);
    if (rs) {
        CHECK(rowset_find_col(rs, "device_id") != SIZE_MAX);
        CHECK_INT(rowset_find_col(rs, "preparing_us"), SIZE_MAX);
        CHECK_INT(cell_i(rs, 0, "computing_us"), 1500);
        CHECK_INT(cell_i(rs, 0, "communication_not_overlapped_us"), 2000);
        CHECK_INT(cell_i(rs, 1, "computing_us"), INT64_MIN);
        CHECK_INT(cell_i(rs, 1, "free_us"), 4000);
    }
    rowset_free(rs);
    table_free(t);
    /* Class B names */
    t = tbl("Device_id,Iteration ID,FP Start(us),BP End(us),Iteration Time(us)\n0,1,N/A,N/A,1234.5\n", TK_STEP_TRACE);
    rs = kernels_step_trace(t);
    CHECK(rs && rs->nrows == 1);
    if (rs)
        CHECK_INT(cell_i(rs, 0, "iteration_time_us"), 1234500);
    rowset_free(rs);
    table_free(t);
    /* a table built by another reader with µs numbers: same keys, ns figures */
    t = table_new(TK_STEP_TRACE, "analysis.db");
    size_t c0 = table_add_col(t, "Step", TC_TEXT), c1 = table_add_col(t, "Computing", TC_NUM);
    size_t r0 = table_add_row(t);
    table_set_text(t, r0, c0, "3", 1);
    table_set_num(t, r0, c1, 8873.756000000001);
    rs = kernels_step_trace(t);
    CHECK(rs && rs->nrows == 1);
    if (rs)
        CHECK_INT(cell_i(rs, 0, "computing_us"), 8873756);
    rowset_free(rs);
    table_free(t);
    /* a GBK-encoded header ("名称" = C3FB B3C6) next to known ones */
    t = tbl("Name,Duration(us),\xC3\xFB\xB3\xC6\nk,1,v\n", TK_KERNELS);
    CHECK(t && t->ncols == 3);
    if (t)
        CHECK_STR(t->cols[2].header, "\xE5\x90\x8D\xE7\xA7\xB0");
    table_free(t);
}

/* report_kernels on each kernel_details.csv under test/data: per-name count and total as the
 * acceptance check computes them (csv module, ±1 ns per call). */
TEST(kernels_report_matches_python_real)
{
    REAL_OR_SKIP(root, "Ascend-msinsight/test/data");
    char cmd[8192];
    int st;
    snprintf(cmd, sizeof cmd,
             "python3 -c '\n"
             "import csv, glob, io, sys\n"
             "def ns(s):\n"
             "    s = s.strip(); i, _, f = s.partition(\".\")\n"
             "    return int(i or 0) * 1000 + int((f + \"000\")[:3])\n"
             "for p in sorted(glob.glob(sys.argv[1] + \"/**/kernel_details.csv\", recursive=True)):\n"
             "    rows = list(csv.DictReader(io.StringIO(open(p, encoding=\"utf-8-sig\").read())))\n"
             "    d = next(c for c in rows[0] if c.startswith(\"Duration\"))\n"
             "    tot = {}\n"
             "    for r in rows:\n"
             "        c, t = tot.get(r[\"Name\"], (0, 0)); tot[r[\"Name\"]] = (c + 1, t + ns(r[d]))\n"
             "    print(\"F\\t\" + p + \"\\t\" + str(len(tot)))\n"
             "    for n, (c, t) in sorted(tot.items()):\n"
             "        print(\"K\\t\" + n + \"\\t\" + str(c) + \"\\t\" + str(t))\n"
             "' '%s'", root);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    struct rowset *rs = NULL;
    struct table *t = NULL;
    size_t files = 0, checked = 0;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[4] = { line, NULL, NULL, NULL };
        for (int i = 1; i < 4 && f[i - 1]; i++)
            if ((f[i] = strchr(f[i - 1], '\t')))
                *f[i]++ = 0;
        if (line[0] == 'F' && f[2]) {
            rowset_free(rs);
            table_free(t);
            rs = NULL;
            t = NULL;
            struct diag *d = diag_new();
            CHECK_INT(csv_table_load(f[1], TK_KERNELS, &t, d, NULL), 0);
            diag_free(d);
            struct rank_data rd = { .rank = 0 };
            rd.tables[TK_KERNELS] = t;
            struct session s = { .ranks = &rd, .nranks = 1 };
            struct report_opts o = { .rank = -1 };
            rs = report_kernels(&s, &o);
            CHECK(rs != NULL);
            if (rs)
                CHECK_INT(rs->nrows, atoll(f[2]));
            files++;
        } else if (line[0] == 'K' && f[3] && rs) {
            size_t r = find_row(rs, "name", f[1]);
            long long c = atoll(f[2]), tot = atoll(f[3]);
            if (r == SIZE_MAX || cell_i(rs, r, "count") != c || llabs(cell_i(rs, r, "total_us") - tot) > c)
                test_fail(__FILE__, __LINE__, "%s: got %lld calls %lld ns, python %lld calls %lld ns", f[1],
                          (long long)cell_i(rs, r, "count"), (long long)cell_i(rs, r, "total_us"), c, tot);
            checked++;
        }
    }
    rowset_free(rs);
    table_free(t);
    free(out);
    CHECK(files >= 6);
    CHECK(checked > 100);
}

/* share = the time a kernel ran (its calls' union) over the device's busy time (the union of
 * all kernels): calls overlapping on two streams count once, and no share exceeds 1. */
TEST(kernels_share_of_device_busy_time)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t s1 = model_lane(m, "9", 1, "1", 1), s2 = model_lane(m, "9", 1, "2", 1);
    model_set_process_name(m, m->lanes[s1].proc, "Ascend Hardware", 15);
    /* Wait on both streams over [0, 100); Mm on stream 1 over [100, 150) */
    model_add_slice(m, s1, 0, 100, "Wait", 4, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, s2, 0, 100, "Wait", 4, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, s1, 100, 50, "Mm", 2, "", 0, 0, UINT64_MAX, 0);
    CHECK_INT(model_finalize(m), 0);
    struct rowset *rs = kernels_aggregate_model(m);
    CHECK(rs != NULL);
    size_t cn = rowset_find_col(rs, "name"), cs = rowset_find_col(rs, "share"), ct = rowset_find_col(rs, "total_us");
    int seen = 0;
    for (size_t r = 0; rs && r < rs->nrows; r++) {
        const char *name = strtab_get(rs->str, rowset_cell(rs, r, cn)->s);
        if (!strcmp(name, "Wait")) {
            CHECK_INT(rowset_cell(rs, r, ct)->i, 200);          /* total keeps both calls */
            CHECK_NEAR(rowset_cell(rs, r, cs)->d, 100.0 / 150.0, 1e-9);
            seen++;
        } else if (!strcmp(name, "Mm")) {
            CHECK_NEAR(rowset_cell(rs, r, cs)->d, 50.0 / 150.0, 1e-9);
            seen++;
        }
    }
    CHECK_INT(seen, 2);
    rowset_free(rs);
    model_free(m);
}
