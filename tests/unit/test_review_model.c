/* Edge cases of the model's figures on hostile values: times at the int64 limits, negative
 * durations, sums that would overflow. */
#include "../runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
