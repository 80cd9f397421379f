/* Report cells in the text, CSV and JSON forms: a long cell (a kernel name, a message) is
 * written whole, never cut at a buffer's size; the characters that reorder or break a line
 * where none shows (bidi controls such as U+061C and U+202E, the separators U+2028/U+2029)
 * reach no output raw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rowsets/rowset.h"
#include "model/rowsets/rowset_write.h"

#include "../runner.h"

static char *written(const struct rowset *rs, enum rowset_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    rowset_write(rs, f, out);
    fclose(out);
    return buf;
}

TEST(report_cells_long_text_written_whole)
{
    size_t n = 10000;
    char *name = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)('a' + i % 26);
    name[n - 1] = 'Z';   /* the last byte: seen only when nothing was cut */
    name[n] = 0;
    struct rowset *rs = rowset_new("x");
    size_t ci = rowset_col(rs, "count", "Count", RS_INT, 0), cn = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t r = rowset_row(rs);
    rowset_int(rs, r, ci, 7);
    rowset_str(rs, r, cn, name);
    for (int f = 0; f < 3; f++) {
        char *out = written(rs, f == 0 ? FMT_TEXT : f == 1 ? FMT_CSV : FMT_JSON);
        if (!out || !strstr(out, name))
            test_fail(__FILE__, __LINE__, "format %d: the %zu-byte cell is not whole (%zu bytes written)", f, n,
                      out ? strlen(out) : 0);
        free(out);
    }
    rowset_free(rs);
    free(name);
}

TEST(report_cells_bidi_and_line_separators_escaped)
{
    /* U+061C, U+2028, U+2029, U+202E between letters */
    const char *cell = "a\xd8\x9c" "b\xe2\x80\xa8" "c\xe2\x80\xa9" "d\xe2\x80\xae" "e";
    static const char *const raw[] = { "\xd8\x9c", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xae" };
    static const char *const shown[] = { "\\u061c", "\\u2028", "\\u2029", "\\u202e" };
    struct rowset *rs = rowset_new("x");
    size_t cn = rowset_col(rs, "name", "Name", RS_STR, 0);
    rowset_str(rs, rowset_row(rs), cn, cell);
    for (int f = 0; f < 3; f++) {
        char *out = written(rs, f == 0 ? FMT_TEXT : f == 1 ? FMT_CSV : FMT_JSON);
        for (int k = 0; k < 4 && out; k++) {
            if (strstr(out, raw[k]))
                test_fail(__FILE__, __LINE__, "format %d: %s reached the output raw", f, shown[k]);
            if (!strstr(out, shown[k]))
                test_fail(__FILE__, __LINE__, "format %d: %s not shown as an escape:\n%s", f, shown[k], out);
        }
        free(out);
    }
    rowset_free(rs);
}
