/* Counter lanes carry the unit of their values: on the real torch_npu capture at 200x50
 * the Timeline's counter lanes end with their value range and unit ("2160232..2164460 KB"),
 * a series without a unit shows the range alone, and the series keep their names. The units
 * themselves are checked against the capture files by tests/checks/counter_units_check.py
 * (through `aptop query`'s counter_track.unit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define LEVEL1 "Ascend-msinsight/test/data/pytorch/text/level1"

TEST(counter_units_match_python_on_real_captures)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    int st = 0;
    char *out = test_check("counter_units", &st);
    if (st != 0 || !out || !strstr(out, "ok "))
        test_fail(__FILE__, __LINE__, "counter_units_check: %s", out ? out : "(no output)");
    free(out);
}

/* The screen line that starts (after the label indent) with name, NUL-terminated in buf. */
static bool lane_line(const char *scr, const char *name, char *buf, size_t size)
{
    char key[128];
    snprintf(key, sizeof key, "\n   %s ", name);
    const char *p = scr ? strstr(scr, key) : NULL;
    if (!p)
        return false;
    p++;
    snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
    return true;
}

TEST(counter_units_on_timeline_lanes_200x50)
{
    REAL_OR_SKIP(p, LEVEL1);
    char path[64];
    /* the counter processes come after the host lanes: four pages down */
    const char *f = test_temp_file("units", "loaded\nkeys 2\nwait [2]Timeline\nkeys PgDn PgDn PgDn PgDn\n"
                                            "wait LLC 0 Read\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st;
    char *out = test_aptop(&st, "--script '%s' --size 200x50 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *scr = out ? test_screen(out, 1) : NULL;
    static const struct { const char *lane, *tail; } want[] = {
        { "APP/HBM", " 2160232..2164460 KB" },
        { "AI Core Freq", " 1800..1800 MHz" },
        { "HBM 0/Read", " MB/s" },
        { "LLC 0 Read/Hit Rate", " 0.775..0.927 %" },
        { "Mata Bw Level", " 0..0" },   /* no unit: the range alone */
    };
    char line[1024];
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        bool found = lane_line(scr, want[k].lane, line, sizeof line);
        size_t n = strlen(line), tn = strlen(want[k].tail);   /* the dump drops trailing blanks */
        if (!found || n < tn || strcmp(line + n - tn, want[k].tail))
            test_fail(__FILE__, __LINE__, "lane %s: \"%s\" lacks \"%s\"", want[k].lane, found ? line : "(not shown)",
                      want[k].tail);
    }
    free(scr);
    free(out);
}
