/* `aptop --version`: the version and every library, with the version actually loaded
 * (checked against what Python's sqlite3 module, linked to the same system library, says). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

TEST(version_names_the_libraries_built_and_running)
{
    int st;
    char *out = test_aptop(&st, "--version 2>&1");
    CHECK_INT(st, 0);
    CHECK(strncmp(out, "aptop 0.", 8) == 0);
    CHECK(strstr(out, "ncursesw built ") != NULL);
    CHECK(strstr(out, "running ncurses ") != NULL);
    CHECK(strstr(out, "cJSON    built ") != NULL);
    CHECK(strstr(out, "SQLite   built ") != NULL);
    CHECK(strstr(out, "zlib     built ") != NULL);
    CHECK(strstr(out, "libcsv   built ") != NULL);
    int pst;
    char *py = test_run("python3 -c 'import sqlite3; print(sqlite3.sqlite_version)' 2>/dev/null", &pst);
    py[strcspn(py, "\n")] = 0;
    if (pst == 0 && py[0]) {
        char want[128];
        snprintf(want, sizeof want, "running %s\n", py);
        const char *line = strstr(out, "SQLite");
        CHECK(line && strstr(line, want) != NULL);
    }
    free(py);
    free(out);
}
