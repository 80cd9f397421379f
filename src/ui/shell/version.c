/* `aptop --version`: the version, and each library as it was when aptop was built and as
 * the copy actually loaded reports itself (they differ when a host has another release). */
#include "ui/shell/version.h"

#include <cjson/cJSON.h>
#include <csv.h>
#include <curses.h>
#include <sqlite3.h>
#include <zlib.h>

#define STR_(x) #x
#define STR(x) STR_(x)

#ifndef APTOP_VERSION
#define APTOP_VERSION "unknown"
#endif

void version_print(FILE *out)
{
    fprintf(out, "aptop %s (%s)\n", APTOP_VERSION,
#if defined(__aarch64__)
            "aarch64"
#elif defined(__x86_64__)
            "x86_64"
#elif defined(__s390x__)
            "s390x"
#else
            "other architecture"
#endif
    );
    fprintf(out, "  ncursesw built %s.%s, running %s\n", NCURSES_VERSION, STR(NCURSES_VERSION_PATCH), curses_version());
    fprintf(out, "  cJSON    built %d.%d.%d, running %s\n", CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR,
            CJSON_VERSION_PATCH, cJSON_Version());
    fprintf(out, "  SQLite   built %s, running %s\n", SQLITE_VERSION, sqlite3_libversion());
    fprintf(out, "  zlib     built %s, running %s\n", ZLIB_VERSION, zlibVersion());
    /* libcsv has no call that reports its version: only the headers' one is known */
    fprintf(out, "  libcsv   built %d.%d.%d (the library does not report its running version)\n", CSV_MAJOR,
            CSV_MINOR, CSV_RELEASE);
}
