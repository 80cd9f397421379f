/* Edge cases of the model and report on hostile values: times at the int64 limits, negative
 * durations, sums that would overflow, control bytes in column titles. */
#include "../runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io/tables/csv_table.h"
#include "model/analysis/comm.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "report/report.h"

TEST(review_parse_us_int64_limit)
{
    int64_t ns = 0;
    /* the largest µs text that fits in int64 ns */
    CHECK_INT(table_parse_us("9223372036854775.807", 20, &ns), 0);
    CHECK(ns == INT64_MAX);
    CHECK_INT(table_parse_us("-9223372036854775.807", 21, &ns), 0);
    CHECK(ns == -INT64_MAX);
    /* one ns more, or more digits that still pass the digit guard, must not wrap negative */
    CHECK_INT(table_parse_us("9223372036854775.808", 20, &ns), -2);
    CHECK_INT(table_parse_us("9223372036854779.999", 20, &ns), -2);
    CHECK_INT(table_parse_us("-9223372036854779.999", 21, &ns), -2);
}

/* A negative duration (a hand-edited or corrupt file) counts as 0, as on the timeline: the
 * shares stay fractions of the total. */
TEST(review_kernels_negative_duration_share)
{
    static const char csv[] =
        "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        "A,MatMul,AI_CORE,100,10\n"
        "B,Add,AI_CORE,200,-5\n";
    struct diag *d = diag_new();
    struct table *t = NULL;
    CHECK_INT(csv_table_load_buffer(csv, strlen(csv), "kernel_details.csv", TK_KERNELS, &t, d), 0);
    struct rowset *rs = t ? kernels_aggregate(t, KG_NAME) : NULL;
    CHECK(rs != NULL);
    size_t cs = rs ? rowset_find_col(rs, "share") : SIZE_MAX, cm = rs ? rowset_find_col(rs, "min_us") : SIZE_MAX;
    double sum = 0;
    for (size_t r = 0; rs && cs != SIZE_MAX && r < rs->nrows; r++) {
        double v = rowset_is_null(rs, r, cs) ? 0 : rowset_cell(rs, r, cs)->d;
        CHECK(v >= 0 && v <= 1);
        sum += v;
        CHECK(rowset_cell(rs, r, cm)->i >= 0);
    }
    CHECK(sum <= 1 + 1e-12);
    rowset_free(rs);
    table_free(t);
    diag_free(d);
}

/* step_trace figures near the int64 limit: a row whose parts cannot be summed is left out,
 * and the mean of rows whose sum would overflow is still exact. */
TEST(review_rank_steps_no_overflow)
{
    struct table *t = table_new(TK_STEP_TRACE, "");
    size_t cs = table_add_col(t, "Step", TC_NUM);
    size_t cc = table_add_col(t, "Computing", TC_TIME);
    size_t cn = table_add_col(t, "Communication(Not Overlapped)", TC_TIME);
    size_t cf = table_add_col(t, "Free", TC_TIME);
    static const ns_t rows[3][3] = {
        { 3000000000000000000, 3000000000000000000, 3000000000000000000 },
        { 3000000000000000000, 3000000000000000000, 2999999999999999998 },
        { 4000000000000000000, 4000000000000000000, 4000000000000000000 },   /* 1.2e19: no */
    };
    for (int i = 0; i < 3; i++) {
        size_t r = table_add_row(t);
        table_set_num(t, r, cs, i + 1);
        table_set_time(t, r, cc, rows[i][0]);
        table_set_time(t, r, cn, rows[i][1]);
        table_set_time(t, r, cf, rows[i][2]);
    }
    table_finish(t);
    struct rank_data rd = { .rank = 0, .device = -1 };
    rd.tables[TK_STEP_TRACE] = t;
    struct session s = { .ranks = &rd, .nranks = 1 };
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(&s, &a), 0);
    CHECK_INT(a.n, 1);
    if (a.n == 1) {
        CHECK_INT(a.r[0].nsteps, 2);
        CHECK(a.r[0].step_mean == 8999999999999999999);
        CHECK(a.r[0].step_max == 9000000000000000000);
        CHECK(a.r[0].computing == 3000000000000000000);
        CHECK(a.r[0].free == 2999999999999999999);
    }
    rank_analysis_done(&a);
    table_free(t);
}

/* A kernel row at the very end of the int64 time range still joins its slice: the ±1 µs
 * search window saturates instead of wrapping. */
TEST(review_kernels_join_at_int64_end)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = test_lane(m, "1", "Ascend Hardware", "5");
    test_slice(m, l, INT64_MAX - 500, 0, "K");
    CHECK_INT(model_finalize(m), 0);
    struct table *t = table_new(TK_KERNELS, "");
    size_t cn = table_add_col(t, "Name", TC_TEXT), cs = table_add_col(t, "Start Time(us)", TC_TIME);
    size_t r = table_add_row(t);
    table_set_text(t, r, cn, "K", 1);
    table_set_time(t, r, cs, INT64_MAX - 500);
    table_finish(t);
    struct diag *d = diag_new();
    CHECK_INT(kernels_join(t, m, d), 1);
    diag_free(d);
    table_free(t);
    model_free(m);
}

/* Column titles and keys can be a file's headers (step_trace): the text and CSV forms
 * escape them like the cells, so no control byte reaches the terminal. */
TEST(review_report_escapes_titles_and_keys)
{
    struct rowset *rs = rowset_new("x");
    size_t c = rowset_col(rs, "evil\x1b]0;t\x07\xc2\x9b", "Evil\x1b[31m\xc2\x9b\x07", RS_INT, 0);
    size_t r = rowset_row(rs);
    rowset_int(rs, r, c, 5);
    for (int f = 0; f < 3; f++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        rowset_write(rs, f == 0 ? FMT_TEXT : f == 1 ? FMT_CSV : FMT_JSON, out);
        fclose(out);
        CHECK(buf && !strchr(buf, '\x1b') && !strchr(buf, '\x07') && !strstr(buf, "\xc2\x9b"));
        CHECK(buf && strstr(buf, "5"));
        free(buf);
    }
    rowset_free(rs);
}

/* Overlap lanes ending at the last representable time still count (the window's end does
 * not wrap to the far past). */
TEST(review_overlap_step_at_int64_end)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t l = test_lane(m, "9", "Overlap Analysis", "1");
    model_set_thread_name(m, l, "Computing", 9);
    test_slice(m, l, INT64_MAX - 1000, 1000, "Computing");
    CHECK_INT(model_finalize(m), 0);
    struct rank_data rd = { .rank = 0, .device = -1, .model = m };
    struct session s = { .ranks = &rd, .nranks = 1 };
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(&s, &a), 0);
    CHECK(a.n == 1 && a.r[0].nsteps == 1 && a.r[0].computing == 1000);
    rank_analysis_done(&a);
    model_free(m);
}
