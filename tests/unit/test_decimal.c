/* Exact decimals: sums of file figures, shortest-exact doubles, the JSON number check, and
 * communication.json values kept digit for digit (also where a double cannot hold them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tables/comm_json.h"
#include "model/index/decimal_sum.h"
#include "model/index/timeparse.h"
#include "model/rowsets/rowset.h"
#include "../runner.h"
#include "helpers.h"

TEST(decimal_sum_exact)
{
    char buf[128];
    struct decimal_sum s = { 0 };
    CHECK_STR(decimal_sum_text(&s, buf, sizeof buf), "0");
    decimal_sum_add(&s, "5.64663284375");
    decimal_sum_add(&s, "0.23918478124999998");
    CHECK_STR(decimal_sum_text(&s, buf, sizeof buf), "5.88581762499999998");
    decimal_sum_add(&s, "2e-05");
    CHECK_STR(decimal_sum_text(&s, buf, sizeof buf), "5.88583762499999998");
    decimal_sum_add(&s, "-5.88583762499999998");
    CHECK_STR(decimal_sum_text(&s, buf, sizeof buf), "0.00000000000000000");
    struct decimal_sum t = { 0 };
    decimal_sum_add(&t, "1.5E+3");
    decimal_sum_add(&t, "12");
    CHECK_STR(decimal_sum_text(&t, buf, sizeof buf), "1512");
    decimal_sum_add(&t, "N/A");
    CHECK(decimal_sum_text(&t, buf, sizeof buf) == NULL);   /* says it is not exact */
    struct decimal_sum big = { 0 };
    decimal_sum_add(&big, "1e30");
    decimal_sum_add(&big, "1e-30");     /* 61 digits: does not fit, says so */
    CHECK(decimal_sum_text(&big, buf, sizeof buf) == NULL);
}

TEST(decimal_shortest_and_json_numbers)
{
    char buf[40];
    CHECK_STR(rowset_shortest(0.43614, buf, sizeof buf), "0.43614");
    CHECK_STR(rowset_shortest(0.1 + 0.2, buf, sizeof buf), "0.30000000000000004");
    CHECK_STR(rowset_shortest(1736408883732241.5, buf, sizeof buf), "1736408883732241.5");
    CHECK_STR(rowset_shortest(1.0 / 0.0, buf, sizeof buf), "null");
    CHECK(rowset_is_json_number("-0.25") && rowset_is_json_number("2e-05") && rowset_is_json_number("0"));
    CHECK(!rowset_is_json_number("1.") && !rowset_is_json_number(".5") && !rowset_is_json_number("NaN")
          && !rowset_is_json_number("01") && !rowset_is_json_number("") && !rowset_is_json_number("1e"));
    struct rowset *rs = rowset_new("t");
    size_t c = rowset_col(rs, "v", "V ms", RS_DEC, 0);
    size_t r0 = rowset_row(rs), r1 = rowset_row(rs), r2 = rowset_row(rs);
    rowset_dec(rs, r0, c, "0.23918478124999998");
    rowset_dec(rs, r1, c, "2e-05");
    rowset_dec(rs, r2, c, "Infinity");      /* not a number: stays empty */
    char out[64];
    CHECK_STR(rowset_format(rs, r0, c, out, sizeof out), "0.23918478124999998");
    CHECK(rowset_is_null(rs, r2, c));
    uint32_t order[3];
    rowset_sort_order(rs, c, false, order);   /* by value: 2e-05 before 0.239... */
    CHECK_INT(order[0], r1);
    CHECK_INT(order[1], r0);
    rowset_free(rs);
}

/* A start timestamp whose decimals a double cannot hold, a ratio, a Size Distribution and
 * a raw 0xFF byte in a key: the digits come through as written. */
TEST(decimal_comm_json_keeps_digits)
{
    static const char js[] =
        "{\"step7\": {\"collective\": {\"op\xff@1\": {\"Communication Time Info\": {"
        "\"Start Timestamp(us)\": 1736408883811334.823, \"Elapse Time(ms)\": 0.43614000000000003,"
        "\"Wait Time Ratio\": 1E-4},"
        "\"Communication Bandwidth Info\": {\"HCCS\": {\"Transit Size(MB)\": 28.647232000000002,"
        "\"Transit Time(ms)\": 1.8168363437500001, \"Bandwidth(GB/s)\": 15.7676,"
        "\"Size Distribution\": {\"2.064384\": [12, 1.578891625]}}}}}}}";
    struct diag *d = diag_new();
    struct comm *c = NULL;
    CHECK_INT(comm_parse_buf(js, sizeof js - 1, "t.json", &c, d), 0);
    CHECK(c && c->nops == 1);
    if (c && c->nops == 1) {
        const struct comm_op *op = &c->ops[0];
        CHECK_STR(comm_op_text(c, op, CF_START), "1736408883811334.823");
        CHECK_INT(op->start_ns, 1736408883811334823LL);
        CHECK_STR(comm_op_text(c, op, CF_ELAPSE), "0.43614000000000003");
        CHECK_INT(op->elapse_ns, 436140);
        CHECK_STR(comm_op_text(c, op, CF_WAIT_RATIO), "1E-4");
        CHECK_STR(comm_bw_text(c, &op->bw[CT_HCCS], CB_SIZE), "28.647232000000002");
        CHECK_STR(strtab_get(c->str, op->bw[CT_HCCS].dist), "{\"2.064384\":[12,1.578891625]}");
        CHECK_INT(op->bw[CT_HCCS].packets, 12);
        CHECK_STR(strtab_get(c->str, op->name), "op?@1");
    }
    comm_free(c);
    c = NULL;
    /* a malformed number is still an error at its place in the file */
    static const char bad[] = "{\"s\": {\"collective\": {\"o\": {\"Communication Time Info\": {\"Elapse Time(ms)\": 1.}}}}}";
    CHECK_INT(comm_parse_buf(bad, sizeof bad - 1, "bad.json", &c, d), -1);
    CHECK(test_diag_has(d, "bad.json", "line 1, column"));
    /* a number where an object belongs is named a number */
    static const char wrong[] = "{\"s\": {\"collective\": {\"o\": 5}}}";
    CHECK_INT(comm_parse_buf(wrong, sizeof wrong - 1, "wrong.json", &c, d), 0);
    CHECK(test_diag_has(d, "wrong.json", "found a number"));
    comm_free(c);
    diag_free(d);
}

TEST(time_text_is_exact_with_units)
{
    int64_t ns;
    CHECK_INT(time_text_to_ns("12.5ms", &ns), 0);
    CHECK_INT(ns, 12500000);
    CHECK_INT(time_text_to_ns("0.1", &ns), 0);          /* ms when no unit */
    CHECK_INT(ns, 100000);
    CHECK_INT(time_text_to_ns("3 s", &ns), 0);
    CHECK_INT(ns, 3000000000LL);
    CHECK_INT(time_text_to_ns("250us", &ns), 0);
    CHECK_INT(ns, 250000);
    CHECK_INT(time_text_to_ns("40\xc2\xb5s", &ns), 0);
    CHECK_INT(ns, 40000);
    CHECK_INT(time_text_to_ns("900ns", &ns), 0);
    CHECK_INT(ns, 900);
    /* a double would give 9007199254.740993 s as ...992 or ...994 ns */
    CHECK_INT(time_text_to_ns("9007199.254740993s", &ns), 0);
    CHECK_INT(ns, 9007199254740993LL);
    CHECK_INT(time_text_to_ns("-1.5ms", &ns), 0);
    CHECK_INT(ns, -1500000);
    CHECK(time_text_to_ns("ms", &ns) != 0);
    CHECK(time_text_to_ns("12 parsecs", &ns) != 0);
    CHECK(time_text_to_ns("", &ns) != 0);
}
