/* One definition per figure, shown one way: on the captures of tools/gen_trust_fixtures.py
 * and the advisor's, each built to show one rule (the straggler apart from the slowest rank,
 * the steps and their source as the ranks section gives them, the device id a step table
 * names, busy time from a kernel table alone, which of two step tables is read, and file
 * numbers at their column's precision on screen and in text while JSON keeps every digit). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "model/index/num_prec.h"

#define TRUST "fixtures/trust"

static cJSON *report_json(const char *sections, const char *dir)
{
    int st = 0;
    char *out = test_aptop(&st, "report --format json --section %s '%s' 2>/dev/null", sections, dir);
    cJSON *j = out && st == 0 ? cJSON_Parse(out) : NULL;
    free(out);
    return j;
}

static const cJSON *row0(const cJSON *j, const char *section)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(j, section), 0);
}

/* --- precision -------------------------------------------------------------------------- */

TEST(num_prec_of_file_numbers)
{
    CHECK_INT(num_prec_of_text("0.45130000000000337", 19), 3);
    CHECK_INT(num_prec_of_text("-5.551115123125783e-17", 22), 3);
    CHECK_INT(num_prec_of_text("0.4513", 6), 4);
    CHECK_INT(num_prec_of_text("12", 2), 0);
    CHECK_INT(num_prec_of_text("2e-05", 5), 5);
    CHECK_INT(num_prec_of_text(" 1.50 ", 6), 2);
    CHECK_INT(num_prec_of_text("0.1234567", 9), 6);
    CHECK_INT(num_prec_of_text("N/A", 3), 0);
    char b[64];
    CHECK_STR(num_prec_round("0.45130000000000337", 3, b, sizeof b), "0.451");
    CHECK_STR(num_prec_round("-5.551115123125783e-17", 3, b, sizeof b), "0.000");
    CHECK_STR(num_prec_round("9.9996", 3, b, sizeof b), "10.000");
    CHECK_STR(num_prec_round("-0.0005", 3, b, sizeof b), "-0.001");
    CHECK_STR(num_prec_round("0.0004", 3, b, sizeof b), "0.000");
    CHECK_STR(num_prec_round("1.5e3", 1, b, sizeof b), "1500.0");
    CHECK_STR(num_prec_round("116.63617458593751007", 3, b, sizeof b), "116.636");
    CHECK_STR(num_prec_round("0.5", 0, b, sizeof b), "1");
    CHECK_STR(num_prec_round("12", 2, b, sizeof b), "12.00");
    CHECK_STR(num_prec_round("NaN", 3, b, sizeof b), "NaN");
}

/* Numbers a double printed in full show at their column's precision in the text report;
 * JSON keeps the file's digits. */
TEST(file_numbers_show_at_the_column_precision)
{
    if (!test_is_dir(TRUST "/precision"))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    char *text = test_aptop(&st, "report --section comm,ranks '%s' 2>/dev/null", TRUST "/precision");
    CHECK_INT(st, 0);
    CHECK(text && !strstr(text, "0.45130000000000337") && !strstr(text, "e-17") && !strstr(text, "e-16"));
    CHECK(text && !strstr(text, "0.16666666666666669") && !strstr(text, "0.6583333333333333"));
    CHECK(text && strstr(text, " 0.451 ") && strstr(text, " 0.000 ") && strstr(text, " 0.658 "));
    free(text);
    char *json = test_aptop(&st, "report --format json --section comm '%s' 2>/dev/null", TRUST "/precision");
    CHECK(json && strstr(json, "0.45130000000000337") && strstr(json, "-5.551115123125783e-17"));
    free(json);
    char *csv = test_aptop(&st, "report --format csv --section comm '%s' 2>/dev/null", TRUST "/precision");
    CHECK(csv && strstr(csv, "0.45130000000000337"));
    free(csv);
}

/* The screen (the Comm view's table) shows the same precision. */
TEST(file_numbers_on_screen_at_the_column_precision)
{
    if (!test_is_dir(TRUST "/precision"))
        SKIP("fixtures not generated (make fixtures)");
    char script[256];
    if (!test_temp_file("prec", "loaded\nkeys 7\ndump\n", script, sizeof script))
        SKIP("no temporary file");
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 250x30 '%s' 2>&1", script, TRUST "/precision");
    unlink(script);
    char *screen = out ? test_screen(out, 1) : NULL;
    CHECK(screen && strstr(screen, "hcom_allReduce"));
    CHECK(screen && strstr(screen, "0.451") && !strstr(screen, "0.45130000000000337") && !strstr(screen, "e-17"));
    if (test_failed_now())
        fprintf(stderr, "%s\n", out ? out : "(no output)");
    free(screen);
    free(out);
}

/* --- one word and one definition -------------------------------------------------------- */

/* The straggler (the others wait for it) and the slowest rank (longest mean step) are two
 * verdicts, each its own column and words. */
TEST(overview_names_straggler_and_slowest_apart)
{
    if (!test_is_dir("fixtures/ranks4_slow"))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    char *text = test_aptop(&st, "report --section overview fixtures/ranks4_slow 2>/dev/null");
    CHECK(text && strstr(text, "straggler rank 2: the others wait for it"));
    CHECK(text && strstr(text, "slowest rank 2: longest mean step"));
    CHECK(text && !strstr(text, "slowest rank 2: it waits least"));
    free(text);
    cJSON *j = report_json("overview", "fixtures/ranks4_slow");
    const cJSON *r;
    int stragglers = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(j, "overview")) {
        stragglers += cJSON_GetObjectItem(r, "straggler")->valueint;
        if (cJSON_GetObjectItem(r, "straggler")->valueint)
            CHECK_INT(cJSON_GetObjectItem(r, "rank")->valueint, 2);
    }
    CHECK_INT(stragglers, 1);
    cJSON_Delete(j);
}

/* overview.steps and its source are the ranks section's, for a rank with a timeline and for
 * one with only a step table. */
TEST(overview_steps_and_source_are_the_ranks_section_s)
{
    static const char *const dirs[] = { "fixtures/ranks4_slow", TRUST "/two_step_traces", TRUST "/precision" };
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (!test_is_dir(dirs[d]))
            SKIP("fixtures not generated (make fixtures)");
        cJSON *j = report_json("overview,ranks", dirs[d]);
        const cJSON *ov = cJSON_GetObjectItem(j, "overview"), *rk = cJSON_GetObjectItem(j, "ranks");
        CHECK(cJSON_GetArraySize(ov) >= 1 && cJSON_GetArraySize(ov) == cJSON_GetArraySize(rk));
        for (int i = 0; i < cJSON_GetArraySize(ov) && i < cJSON_GetArraySize(rk); i++) {
            const cJSON *o = cJSON_GetArrayItem(ov, i), *r = cJSON_GetArrayItem(rk, i);
            CHECK_INT(cJSON_GetObjectItem(o, "steps")->valueint, cJSON_GetObjectItem(r, "steps")->valueint);
            CHECK(cJSON_GetObjectItem(o, "steps")->valueint >= 1);
            CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(o, "split_source")),
                      cJSON_GetStringValue(cJSON_GetObjectItem(r, "source")));
        }
        cJSON_Delete(j);
    }
}

/* A rank without a device id of its own takes the one its step table names. */
TEST(ranks_device_from_the_step_table)
{
    if (!test_is_dir(TRUST "/two_step_traces"))
        SKIP("fixtures not generated (make fixtures)");
    cJSON *j = report_json("ranks", TRUST "/two_step_traces");
    const cJSON *dev = cJSON_GetObjectItem(row0(j, "ranks"), "device");
    CHECK(cJSON_IsNumber(dev) && dev->valueint == 5);
    cJSON_Delete(j);
}

/* Two step tables in one rank: the diagnostic names the file the steps were read from. */
TEST(two_step_tables_diagnostic_names_the_one_used)
{
    if (!test_is_dir(TRUST "/two_step_traces"))
        SKIP("fixtures not generated (make fixtures)");
    cJSON *j = report_json("diagnostics,ranks", TRUST "/two_step_traces");
    const cJSON *d, *hit = NULL;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(j, "diagnostics"))
        if (strstr(cJSON_GetStringValue(cJSON_GetObjectItem(d, "message")), "step_trace"))
            hit = d;
    CHECK(hit != NULL);
    /* the one used gave the ranks section's 1 s step (analysis.db), the CSV's 810 ms is not */
    const cJSON *mean = cJSON_GetObjectItem(row0(j, "ranks"), "step_us_mean");
    CHECK(cJSON_IsNumber(mean) && mean->valuedouble == 1000000.0);
    if (hit) {
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(hit, "message"));
        CHECK(strstr(msg, "analysis.db") != NULL);
        CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(hit, "path")), "step_trace_time.csv") != NULL);
    }
    cJSON_Delete(j);
}

/* A capture with only kernel_details.csv: device busy and the top kernels from the table,
 * equal to an independent computation (tests/checks/overview_check.py). */
TEST(kernel_table_only_gives_busy_and_top_kernels)
{
    if (!test_is_dir(TRUST "/kernels_only"))
        SKIP("fixtures not generated (make fixtures)");
    cJSON *j = report_json("overview", TRUST "/kernels_only");
    const cJSON *o = row0(j, "overview");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(o, "device_busy_us")));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(o, "top_kernels")) == 4);
    cJSON_Delete(j);
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("overview", &st);
    if (out && strstr(out, "skipped:")) {
        free(out);
        SKIP("the checks need ../shared/real");
    }
    if (st != 0)
        test_fail(__FILE__, __LINE__, "overview_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "kernel table only"));
    free(out);
}

/* The kernels table and the steps count two things: where kernel_details.csv lists fewer
 * kernels than the timeline's device tasks the steps count, the kernels caption says both,
 * each equal to the files (the CSV's records, the steps section's kernels). */
TEST(kernel_table_count_and_step_count_are_told_apart_real)
{
    REAL_OR_SKIP(cap, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
    int st = 0;
    char *text = test_aptop(&st, "report --section kernels '%s' 2>/dev/null", cap);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1], "
                              "encoding=\"utf-8-sig\")))))' '%s/ASCEND_PROFILER_OUTPUT/kernel_details.csv'", cap);
    char *rows = test_run(cmd, &st);
    cJSON *j = report_json("steps", cap);
    long in_steps = 0, nsteps = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(j, "steps")) {
        in_steps += (long)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "kernels"));
        nsteps++;
    }
    cJSON_Delete(j);
    char want[256];
    snprintf(want, sizeof want, "the table lists %ld kernels, the rank's steps (%ld) count %ld device tasks",
             rows ? atol(rows) : -1, nsteps, in_steps);
    CHECK(rows && atol(rows) > 0 && in_steps > atol(rows));
    if (!text || !strstr(text, want))
        test_fail(__FILE__, __LINE__, "the kernels caption lacks \"%s\":\n%.300s", want, text ? text : "(none)");
    free(text);
    free(rows);
}
