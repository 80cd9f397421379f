/* CSV reader and typed tables: quirks of real files on small in-memory inputs, and every CSV
 * under ../shared/real. */
#include "../runner.h"
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/discovery/capture.h"
#include "io/tables/csv_table.h"
#include "model/index/diag.h"
#include "model/index/table.h"

static struct table *load_str(const char *csv, enum table_kind kind, struct diag *d)
{
    struct table *t = NULL;
    int rc = csv_table_load_buffer(csv, strlen(csv), "mem.csv", kind, &t, d);
    CHECK((rc == 0) == (t != NULL));
    return t;
}

TEST(csv_canon_keys)
{
    char k[128];
    static const char *const same[][2] = {
        { "Accelerator Core", "Accelerator" }, { "Block Num", "Block Dim" },
        { "Duration(us)", "Duration(\xc2\xb5s)" }, { "Duration(us)", "duration (US)" },
        { "Type", "OP Type" }, { "Device_id", "Device ID" }, { "Device_id", "deviceId" },
        { "Device_id", "\xEF\xBB\xBF" "Device_id" }, { "Name", "Op Name" },
        { "Start Time(us)", "Task Start Time(us)" }, { "Accelerator Core", "Task Type" },
        { "Communication(Not Overlapped)", "Communication (Not Overlapped)" },
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char k2[128];
        table_canon_key(same[i][0], strlen(same[i][0]), k, sizeof k);
        table_canon_key(same[i][1], strlen(same[i][1]), k2, sizeof k2);
        CHECK_STR(k2, k);
    }
    table_canon_key("Duration(us)", 12, k, sizeof k);
    CHECK_STR(k, "duration(us)");
    table_rowset_key("duration(us)", k, sizeof k);
    CHECK_STR(k, "duration_us");
    table_rowset_key("ratio(%)", k, sizeof k);
    CHECK_STR(k, "ratio_pct");
    table_canon_key("Start Time(us)", 14, k, sizeof k);
    CHECK_STR(k, "start_time(us)");
}

TEST(csv_parse_us_exact)
{
    int64_t ns = 0;
    CHECK_INT(table_parse_us("1736405443881410.320\t", 21, &ns), 0);
    CHECK_INT(ns, 1736405443881410320LL);
    CHECK_INT(table_parse_us("12.345", 6, &ns), 0);
    CHECK_INT(ns, 12345);
    CHECK_INT(table_parse_us("496.8508", 8, &ns), 0);
    CHECK_INT(ns, 496851);          /* rounded on the 4th decimal */
    CHECK_INT(table_parse_us("8873.756000000001", 17, &ns), 0);
    CHECK_INT(ns, 8873756);
    CHECK_INT(table_parse_us("-3.5", 4, &ns), 0);
    CHECK_INT(ns, -3500);
    CHECK_INT(table_parse_us("1695115378713661", 16, &ns), 0);
    CHECK_INT(ns, 1695115378713661000LL);
    CHECK_INT(table_parse_us("1.69512E+15", 11, &ns), 1);     /* approximate */
    CHECK_INT(ns, 1695120000000000000LL);
    CHECK_INT(table_parse_us("N/A", 3, &ns), -1);
    CHECK_INT(table_parse_us("  ", 2, &ns), -1);
    CHECK_INT(table_parse_us("host", 4, &ns), -1);
    CHECK_INT(table_parse_us("12abc", 5, &ns), -2);
    CHECK_INT(table_parse_us("99999999999999999999", 20, &ns), -2);
    double v;
    int dec;
    CHECK_INT(table_parse_num("0.0062", 6, &v, &dec), 0);
    CHECK(v == 0.0062);
    CHECK_INT(dec, 4);
    CHECK_INT(table_parse_num("4294967295", 10, &v, NULL), 0);
    CHECK(v == 4294967295.0);
    CHECK_INT(table_parse_num("1.69512E+15", 11, &v, NULL), 0);
    CHECK(v == 1.69512e15);
    CHECK_INT(table_parse_num("YES", 3, &v, NULL), -2);
    CHECK_INT(table_parse_num("0x10", 4, &v, NULL), -2);
}

TEST(csv_quirks_kernel_details)
{
    /* BOM, CRLF, TAB after timestamps, quoted multi-line cell, N/A, E-notation, aliases */
    const char *csv =
        "\xEF\xBB\xBF" "Step Id,Name,Type,Accelerator,Start Time(\xc2\xb5s),Duration(us),Wait Time(us),Block Dim,Input Shapes,HF32 Eligible\r\n"
        "50,MatMul,MatMul,AI_CORE,1736405443881410.320\t,50.621,0,8,\"4,1025\",NO\r\n"
        "50,\"Add\nline2\",Add,AI_VECTOR_CORE,\"172317\t\",N/A,1.5,N/A,\"\"\"2,8193\"\"\",YES\r\n"
        "N/A,MatMul,MatMul,AI_CORE,1.69512E+15,12.345,,host,,\r\n";
    struct diag *d = diag_new();
    struct table *t = load_str(csv, TK_KERNELS, d);
    CHECK(t != NULL);
    if (!t)
        goto out;
    CHECK_INT(t->nrows, 3);
    size_t name = table_col(t, "name"), start = table_col(t, "Start Time(us)");
    size_t dur = table_col(t, "duration(us)"), core = table_col(t, "Accelerator Core");
    size_t blk = table_col(t, "Block Num"), shapes = table_col(t, "input_shapes"), step = table_col(t, "step_id");
    CHECK(name != SIZE_MAX && start != SIZE_MAX && dur != SIZE_MAX && core != SIZE_MAX && blk != SIZE_MAX);
    CHECK_STR(t->cols[core].header, "Accelerator");
    CHECK_STR(t->cols[step].header, "Step Id");             /* BOM gone */
    CHECK_INT(t->cols[start].type, TC_TIME);
    CHECK_INT(t->cols[blk].type, TC_NUM);
    CHECK_INT(table_time(t, 0, start), 1736405443881410320LL);
    CHECK_INT(table_time(t, 1, start), 172317000LL);
    CHECK_INT(table_time(t, 0, dur), 50621);
    CHECK_INT(table_time(t, 1, dur), NS_NONE);
    CHECK_INT(table_time(t, 2, dur), 12345);
    CHECK_STR(table_text(t, 1, name), "Add\nline2");
    CHECK_STR(table_text(t, 0, shapes), "4,1025");
    CHECK_STR(table_text(t, 1, shapes), "\"2,8193\"");
    CHECK(table_num(t, 0, blk) == 8);
    CHECK(isnan(table_num(t, 1, blk)) && isnan(table_num(t, 2, blk)));
    CHECK(isnan(table_num(t, 2, step)));
    CHECK_INT(t->approx_cells, 1);
    CHECK(test_diag_has(d, "E-notation", "line 5, column 5"));  /* line 5: the quoted cell spans two */
    CHECK_INT(t->line[2], 5);
    CHECK_STR(table_text(t, 0, table_col(t, "hf32_eligible")), "NO");
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 0);
out:
    table_free(t);
    diag_free(d);
}

TEST(csv_ragged_and_bad_cells)
{
    const char *csv =
        "Name,Duration(us),Count\n"
        "a,1.000,3\n"
        "b,2.000\n"
        "c,3.000,4,extra\n"
        "d,abc,5\n"
        "\n"
        "e,5,6";
    struct diag *d = diag_new();
    struct table *t = load_str(csv, TK_KERNELS, d);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->nrows, 5);
        size_t dur = table_col(t, "duration(us)"), cnt = table_col(t, "count");
        CHECK(isnan(table_num(t, 1, cnt)));
        CHECK(table_num(t, 2, cnt) == 4);
        CHECK_INT(table_time(t, 3, dur), NS_NONE);
        CHECK_INT(table_time(t, 4, dur), 5000);
        CHECK_INT(t->line[4], 7);
        CHECK(test_diag_has(d, "line 3, column 3", "ends after 2"));
        CHECK(test_diag_has(d, "line 4, column 4", "extra cells"));
        CHECK(test_diag_has(d, "line 5, column 2", "not a time"));
    }
    table_free(t);
    diag_free(d);
}

TEST(csv_auto_types)
{
    const char *csv = "Foo,Bar,Baz\n1,x,\n2.5,3,N/A\n,y,7\n";
    struct diag *d = diag_new();
    struct table *t = load_str(csv, TK_OTHER, d);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->cols[0].type, TC_NUM);
        CHECK_INT(t->cols[1].type, TC_TEXT);
        CHECK_INT(t->cols[2].type, TC_NUM);
        CHECK(table_num(t, 1, 0) == 2.5);
        CHECK(isnan(table_num(t, 2, 0)));
        CHECK_STR(table_text(t, 1, 1), "3");
        CHECK_INT(t->cols[0].prec, 1);
        struct rowset *rs = table_to_rowset(t, "other");
        CHECK(rs != NULL);
        if (rs) {
            CHECK_INT(rs->nrows, 3);
            CHECK_INT(rs->ncols, 3);
            CHECK_STR(rs->cols[0].key, "foo");
            CHECK_INT(rs->cols[1].type, RS_STR);
            CHECK(rowset_is_null(rs, 2, 0));
            CHECK(rowset_cell(rs, 1, 0)->d == 2.5);
        }
        rowset_free(rs);
    }
    table_free(t);
    diag_free(d);
}

TEST(csv_bad_inputs)
{
    struct diag *d = diag_new();
    struct table *t;
    /* missing required column */
    CHECK(load_str("Name,Type\nx,y\n", TK_KERNELS, d) == NULL);
    CHECK(test_diag_has(d, "no column \"duration(us)\"", "mem.csv"));
    /* unknown column set for the kind */
    CHECK(load_str("a,b,c\n1,2,3\n", TK_API_STATISTIC, d) == NULL);
    CHECK(test_diag_has(d, "no column \"api_name|name\"", NULL));
    /* binary garbage */
    static const char bin[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00garbage";
    t = NULL;
    CHECK(csv_table_load_buffer(bin, sizeof bin - 1, "bin.csv", TK_OTHER, &t, d) == -1 && !t);
    CHECK(test_diag_has(d, "bin.csv", "binary data"));
    /* empty */
    CHECK(load_str("", TK_OTHER, d) == NULL);
    CHECK(test_diag_has(d, "empty file", NULL));
    /* wrong delimiter: read anyway, with a warning */
    t = load_str("Name;Duration(us)\nk;1.5\n", TK_KERNELS, d);
    CHECK(t && t->nrows == 1);
    CHECK(test_diag_has(d, "separated by ';'", NULL));
    if (t)
        CHECK_INT(table_time(t, 0, table_col(t, "duration(us)")), 1500);
    table_free(t);
    /* unterminated quote */
    t = load_str("Name,Duration(us)\nk,1\n\"open,2\nx,3\n", TK_KERNELS, d);
    CHECK(t && t->nrows >= 1);
    CHECK(test_diag_has(d, "line 3", "never closed"));
    table_free(t);
    /* a repeated header: the first column of that name is kept */
    t = load_str("Name,Duration(us),NAME\nx,1,y\n", TK_KERNELS, d);
    CHECK(t && t->ncols == 2);
    if (t)
        CHECK_STR(table_text(t, 0, table_col(t, "name")), "x");
    CHECK(test_diag_has(d, "line 1, column 3", "repeats"));
    table_free(t);
    /* a file that does not exist */
    CHECK(csv_table_load("/nonexistent/kernel_details.csv", TK_KERNELS, &t, d, NULL) == -1 && !t);
    CHECK(test_diag_has(d, "cannot open", NULL));
    diag_free(d);
}

TEST(csv_gbk_text)
{
    /* "算子" in GBK is CB E3 D7 D3 */
    const char *csv = "Name,Duration(us)\n\xCB\xE3\xD7\xD3,1\n";
    struct diag *d = diag_new();
    struct table *t = load_str(csv, TK_KERNELS, d);
    CHECK(t != NULL);
    if (t)
        CHECK_STR(table_text(t, 0, table_col(t, "name")), "\xE7\xAE\x97\xE5\xAD\x90");
    CHECK(test_diag_has(d, "read as GBK", "line 2, column 1"));
    table_free(t);
    diag_free(d);
}

TEST(csv_append_slices)
{
    char p1[] = "/tmp/aptop_csv_XXXXXX";
    int fd = mkstemp(p1);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs("Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\nA,X,AI_CORE,10.5,2\n", f);
    fclose(f);
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load(p1, TK_KERNELS, &t, d, NULL), 0);
    f = fopen(p1, "w");
    fputs("Op Name,Task Duration(us),Task Start Time(us),Extra\nB,3,20,7\n", f);
    fclose(f);
    if (t) {
        CHECK_INT(csv_table_append(p1, t, d, NULL), 0);
        CHECK_INT(t->nrows, 2);
        size_t dur = table_col(t, "duration(us)"), ex = table_col(t, "extra");
        CHECK_INT(table_time(t, 1, dur), 3000);
        CHECK_INT(table_time(t, 0, table_col(t, "start_time(us)")), 10500);
        CHECK(ex != SIZE_MAX && isnan(table_num(t, 0, ex)) && table_num(t, 1, ex) == 7);
        CHECK_STR(table_text(t, 1, table_col(t, "type")), "");
    }
    table_free(t);
    remove(p1);
    diag_free(d);
}

/* A file over several read chunks: records and quoted line breaks across chunk ends. */
TEST(csv_chunk_boundaries)
{
    char path[] = "/tmp/aptop_csv_big_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs("Name,Start Time(us),Duration(us),Call Stack\r\n", f);
    int64_t want = 0;
    const int n = 40000;
    for (int i = 0; i < n; i++) {
        fprintf(f, "k%d,%d.%03d\t,%d.%03d,\"a.py(%d): f;\r\nb.py(2): g\"\r\n", i % 97, 1000 + i, i % 1000, i % 50, i % 1000, i);
        want += (int64_t)(i % 50) * 1000 + i % 1000;
    }
    fclose(f);
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load(path, TK_KERNELS, &t, d, NULL), 0);
    if (t) {
        CHECK_INT(t->nrows, n);
        size_t dc = table_col(t, "duration(us)");
        int64_t got = 0;
        for (size_t r = 0; r < t->nrows; r++)
            got += table_time(t, r, dc);
        CHECK_INT(got, want);
        CHECK_INT(t->line[n - 1], 2 + 2 * (n - 1));
        CHECK_STR(table_text(t, n - 1, table_col(t, "call_stack")), "a.py(39999): f;\r\nb.py(2): g");
    }
    CHECK_INT(diag_count(d), 0);
    table_free(t);
    diag_free(d);
    remove(path);
}

TEST(csv_memory_e_notation_real)
{
    REAL_OR_SKIP(path, "Ascend-msinsight/server/src/test/test_data/test_rank_1/ASCEND_PROFILER_OUTPUT/memory_record.csv");
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load(path, TK_MEMORY, &t, d, NULL), 0);
    if (t) {
        CHECK_INT(t->nrows, 30);
        size_t ts = table_col(t, "timestamp(us)");
        CHECK(ts != SIZE_MAX);
        CHECK_STR(t->cols[ts].header, "Timestamp(us)");
        CHECK(t->approx_cells > 0);
        CHECK_INT(table_time(t, 0, ts), 1695120000000000000LL);
        CHECK(table_col(t, "Total Reserved(MB)") != SIZE_MAX);
    }
    CHECK(test_diag_has(d, "E-notation", "memory_record.csv"));
    table_free(t);
    diag_free(d);
}

TEST(csv_ragged_real)
{
    REAL_OR_SKIP(path, "Ascend-msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load(path, TK_KERNELS, &t, d, NULL), 0);
    if (t)
        CHECK_INT(t->nrows, 21);
    CHECK(test_diag_has(d, "line 17", "ends after 31"));
    table_free(t);
    diag_free(d);
}

/* The table a CSV file becomes, as discovery decides it from its name and header: a file
 * aptop lists but does not read (MindSpore's framework_raw_N.csv, step_trace_raw_*.csv, ...)
 * still loads as a plain table. */
static enum table_kind kind_by_content(const char *path, enum file_kind *fk)
{
    struct capture c;
    struct diag *d = diag_new();
    capture_discover(path, &c, d);
    *fk = c.nranks && c.ranks[0].nfiles ? c.ranks[0].files[0].kind : FK_UNKNOWN;
    capture_free(&c);
    diag_free(d);
    if (*fk == FK_MEMORY_CSV)
        return TK_MEMORY;
    int tk = file_kind_table(*fk);
    return tk >= 0 ? (enum table_kind)tk : TK_OTHER;
}

TEST(csv_every_real_file_loads)
{
    const char *dir = test_real_dir();
    if (!dir)
        SKIP("../shared/real not found");
    char cmd[4200];
    int st;
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.csv' -size +0 | sort", dir);
    char *out = test_run(cmd, &st);
    size_t files = 0, rows = 0, mindspore = 0;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        struct diag *d = diag_new();
        struct table *t = NULL;
        enum file_kind fk;
        enum table_kind k = kind_by_content(line, &fk);
        /* MindSpore's own tables: listed, never read as one of aptop's */
        if (strstr(line, "/mindspore-mindinsight/")) {
            mindspore++;
            if (fk != FK_OTHER_CSV)
                test_fail(__FILE__, __LINE__, "%s taken as %s", line, file_kind_name(fk));
        }
        int rc = csv_table_load(line, k, &t, d, NULL);
        if (rc != 0)
            test_fail(__FILE__, __LINE__, "%s did not load", line);
        if (t) {
            rows += t->nrows;
            struct rowset *rs = table_to_rowset(t, "t");
            CHECK(rs && rs->nrows == t->nrows);
            rowset_free(rs);
        }
        table_free(t);
        diag_free(d);
        files++;
    }
    free(out);
    CHECK(files >= 40);
    CHECK(rows > 10000);
    CHECK(mindspore >= 7);
}

/* A MindSpore step table under the name msprof gives its step trace CSVs (step_trace_N_M.csv)
 * is still not a step trace: its header (step_num, fp_point, ...) decides. */
TEST(csv_step_table_kind_by_header)
{
    REAL_OR_SKIP(src, "mindspore-mindinsight/tests/utils/resource/profiler/step_trace_raw_0_detail_time.csv");
    char dir[] = "/tmp/aptop-stepcsv-XXXXXX", cmd[8400];
    CHECK(mkdtemp(dir) != NULL);
    int st;
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/step_trace_0_1.csv' && printf 'Iteration ID,FP Start(us)\n1,2.5\n' > '%s/step_trace_0_2.csv'",
             src, dir, dir);
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    char p1[4200], p2[4200];
    snprintf(p1, sizeof p1, "%s/step_trace_0_1.csv", dir);
    snprintf(p2, sizeof p2, "%s/step_trace_0_2.csv", dir);
    enum file_kind k1, k2;
    CHECK_INT(kind_by_content(p1, &k1), TK_OTHER);
    CHECK_INT(k1, FK_OTHER_CSV);
    CHECK_INT(kind_by_content(p2, &k2), TK_STEP_TRACE);
    CHECK_INT(k2, FK_STEP_TRACE_TIME);
    char *list = test_aptop(&st, "--list '%s' 2>&1", dir);
    CHECK(strstr(list, "step_trace_0_1.csv  [not read: a table aptop lists but does not interpret]") != NULL);
    free(list);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}

/* Per-name count and ns total of every kernel_details.csv under test/data, computed by
 * Python's csv module, equal the table's (±1 ns per row for rounding past 3 decimals). */
TEST(csv_kernel_details_totals_match_python)
{
    REAL_OR_SKIP(root, "Ascend-msinsight/test/data");
    char cmd[8192];
    int st;
    snprintf(cmd, sizeof cmd,
             "python3 -c '\n"
             "import csv, glob, io, sys\n"
             "def ns(s):\n"
             "    s = s.strip(); neg = s.startswith(\"-\"); i, _, f = s.lstrip(\"-\").partition(\".\")\n"
             "    n = int(i or 0) * 1000 + int((f + \"000\")[:3])\n"
             "    return -n if neg else n\n"
             "for p in sorted(glob.glob(sys.argv[1] + \"/**/kernel_details.csv\", recursive=True)):\n"
             "    rows = list(csv.DictReader(io.StringIO(open(p, encoding=\"utf-8-sig\").read())))\n"
             "    tot = {}\n"
             "    for r in rows:\n"
             "        c, t = tot.get(r[\"Name\"], (0, 0)); tot[r[\"Name\"]] = (c + 1, t + ns(r[\"Duration(us)\"]))\n"
             "    for n, (c, t) in sorted(tot.items()):\n"
             "        print(p + \"\\t\" + n + \"\\t\" + str(c) + \"\\t\" + str(t))\n"
             "' '%s'", root);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    char cur[4096] = "";
    struct table *t = NULL;
    size_t names = 0, files = 0;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f1 = strchr(line, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL, *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        if (!f3)
            continue;
        *f1 = *f2 = *f3 = 0;
        if (strcmp(cur, line)) {
            table_free(t);
            t = NULL;
            snprintf(cur, sizeof cur, "%s", line);
            struct diag *d = diag_new();
            CHECK_INT(csv_table_load(cur, TK_KERNELS, &t, d, NULL), 0);
            diag_free(d);
            files++;
        }
        if (!t)
            continue;
        size_t nc = table_col(t, "name"), dc = table_col(t, "duration(us)");
        long long want_c = atoll(f2 + 1), want_t = atoll(f3 + 1), got_c = 0, got_t = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (!strcmp(table_text(t, r, nc), f1 + 1)) {
                got_c++;
                got_t += table_time(t, r, dc);
            }
        if (got_c != want_c || llabs(got_t - want_t) > want_c)
            test_fail(__FILE__, __LINE__, "%s: %s: %lld calls %lld ns, python %lld calls %lld ns", cur, f1 + 1,
                      got_c, got_t, want_c, want_t);
        names++;
    }
    table_free(t);
    free(out);
    CHECK(files >= 6);
    CHECK(names > 100);
}

/* The table reader shares the stream's limit: a record over 16 MiB is skipped with a warning
 * naming its line; the rows around it are kept with their true lines. */
TEST(csv_table_huge_record_skipped)
{
    size_t big = (16u << 20) + (1u << 20);
    size_t len = big + 128;
    char *buf = malloc(len);
    int h = snprintf(buf, len, "Name,Duration(us)\na,1\nb,\"");
    memset(buf + h, 'x', big);
    size_t o = (size_t)h + big;
    o += (size_t)snprintf(buf + o, len - o, "\"\nc,3\n");
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load_buffer(buf, o, "big.csv", TK_KERNELS, &t, d), 0);
    CHECK(t && t->nrows == 2);
    if (t && t->nrows == 2) {
        CHECK_STR(table_text(t, 1, table_col(t, "name")), "c");
        CHECK_INT(t->line[1], 4);
    }
    CHECK(test_diag_has(d, "big.csv", "line 3: 1 record(s) longer than 16 MiB skipped"));
    table_free(t);
    diag_free(d);
    free(buf);
}
