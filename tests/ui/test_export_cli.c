/* `aptop export --window`: a window of a capture as a Chrome trace, read back by Python on
 * real traces (tests/checks/export_check.py), and its command line. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(export_window_of_real_traces_reads_back_exactly)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    int st;
    char *out = test_check("export", &st);
    if (st)
        printf("    %s", out);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "export ") == out);
    CHECK(strstr(out, " ok ") != NULL);
    CHECK(strstr(out, " slices, ") != NULL);
    free(out);
}

TEST(export_window_command_line)
{
    const char *f = "fixtures/vllm_decode_2rank";
    if (!test_is_dir(f))
        SKIP("fixtures missing: make fixtures");
    int st;
    /* the whole first millisecond: events, and the window and origin said */
    char *out = test_aptop(&st, "export --no-cache --window 0ms..1ms '%s' 2>/dev/null", f);
    CHECK_INT(st, 0);
    CHECK(strncmp(out, "{\"traceEvents\":[", 16) == 0);
    CHECK(strstr(out, "\"ph\":\"X\"") != NULL);
    CHECK(strstr(out, "\"window\":\"0ms..1ms\"") != NULL);
    CHECK(strstr(out, "\"origin_us\":") != NULL);
    free(out);
    out = test_aptop(&st, "export --no-cache --window 0ms..1ms '%s' 2>&1 >/dev/null", f);
    CHECK(strstr(out, "exported ") != NULL);
    free(out);
    /* a window the wrong way round, a time without a number, no window: usage errors */
    out = test_aptop(&st, "export --window 5ms..1ms '%s' 2>&1", f);
    CHECK_INT(st, 2);
    CHECK(strstr(out, "the end must come after the start") != NULL);
    free(out);
    out = test_aptop(&st, "export --window abc..1ms '%s' 2>&1", f);
    CHECK_INT(st, 2);
    CHECK(strstr(out, "a time is a number with a unit") != NULL);
    free(out);
    out = test_aptop(&st, "export '%s' 2>&1", f);
    CHECK_INT(st, 2);
    CHECK(strstr(out, "export takes --window") != NULL);
    free(out);
    /* a rank that is not there */
    out = test_aptop(&st, "export --no-cache --rank 7 --window 0ms..1ms '%s' 2>&1 >/dev/null", f);
    CHECK_INT(st, 1);
    CHECK(strstr(out, "no timeline of that rank") != NULL);
    free(out);
}
