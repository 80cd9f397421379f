/* Edge cases of the model's figures on hostile values: times at the int64 limits, negative
 * durations, sums that would overflow. */
#include "../runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv_table.h"
#include "model/kernels.h"
#include "model/table.h"

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
