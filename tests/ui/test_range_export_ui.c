/* E on a timeline range (v ... v) at 80x24: the export prompt offers a file in the export
 * folder, the export runs off the UI thread and the status line says the events and the file;
 * the file is then read back by tests/checks/export_check.py (it loads with the json module,
 * every event lies in the window, flows are whole, the slices and their args are the trace
 * file's). E with no range says how to make one. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(range_export_writes_the_window_off_the_ui_thread)
{
    const char *f = "fixtures/vllm_decode_2rank";
    if (!test_is_dir(f))
        SKIP("fixtures missing: make fixtures");
    char out_path[128], script[64], text[1024];
    snprintf(out_path, sizeof out_path, "/tmp/aptop-range-export-%d.json", (int)getpid());
    unlink(out_path);
    snprintf(text, sizeof text,
             "loaded\n"
             "keys 2\n"
             "wait [2]Timeline\n"
             "keys E\n"
             "wait no range to export\n"
             "dump\n"
             "keys j j j v d d v\n"
             "wait E exports it\n"
             "keys E\n"
             "wait export window to:\n"
             "dump\n"
             "keys C-u\n"
             "text %s\n"
             "keys Enter\n"
             "wait exported\n"
             "dump\n", out_path);
    const char *sf = test_temp_file("range-export", text, script, sizeof script);
    CHECK(sf != NULL);
    if (!sf)
        return;
    char cmd[1024];
    int st = 0;
    snprintf(cmd, sizeof cmd, "'%s' --no-cache --script '%s' --size 80x24 '%s' 2>&1", test_bin(), sf, f);
    char *out = test_run(cmd, &st);
    unlink(sf);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        CHECK(strstr(s1, "no range to export: v marks its start") != NULL);
        /* the file offered: the rank and the window in exact ns */
        CHECK(strstr(s2, "export window to: ") != NULL);
        CHECK(strstr(s2, "aptop-window-rank0-0ns-") != NULL);
        char want[160];
        snprintf(want, sizeof want, " events to %s", out_path);
        CHECK(strstr(s3, "exported ") != NULL && strstr(s3, want) != NULL);
    } else {
        printf("%s\n", out);
    }
    free(s1), free(s2), free(s3);
    free(out);
    snprintf(cmd, sizeof cmd, "python3 tests/checks/export_check.py '%s' '%s' 2>&1", out_path, f);
    out = test_run(cmd, &st);
    if (st)
        printf("    %s", out);
    CHECK_INT(st, 0);
    CHECK(strncmp(out, "ok ", 3) == 0 && strstr(out, " flows, args of ") != NULL);
    free(out);
    unlink(out_path);
}
