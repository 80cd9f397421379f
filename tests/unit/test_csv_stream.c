/* The streaming CSV reader (io/tables/csv_stream.h): records across chunk boundaries, quoted
 * fields with separators, "" and line breaks, CRLF, a BOM, other separators, an unterminated
 * quote at the end, a record or a single field over the length limit skipped with its line
 * named, the separator guess and the messages a result calls for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tables/csv_stream.h"
#include "../runner.h"
#include "helpers.h"

struct collect {
    size_t records;
    char last[4][64];
    size_t nlast;
    uint64_t last_line;
    size_t max_fields;
};

static int on_rec(void *ctx, const struct csv_field *f, size_t n, uint64_t line)
{
    struct collect *c = ctx;
    c->records++;
    c->nlast = n < 4 ? n : 4;
    for (size_t i = 0; i < c->nlast; i++)
        snprintf(c->last[i], sizeof c->last[i], "%.*s", (int)(f[i].len < 63 ? f[i].len : 63), f[i].s);
    c->last_line = line;
    if (n > c->max_fields)
        c->max_fields = n;
    return 0;
}

TEST(csv_stream_quotes_crlf_bom)
{
    const char *text = "\xEF\xBB\xBF" "a,b,c\r\n"
                       "1,\"x, \"\"y\"\"\",3\r\n"
                       "\r\n"
                       "2,\"multi\r\nline\",4\r\n"
                       "5,6,\"unterminated";
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_buffer(text, strlen(text), on_rec, &c, &r), 0);
    CHECK_INT(c.records, 4);
    CHECK_STR(c.last[2], "unterminated");
    CHECK_INT(c.last_line, 6);
    struct collect h = { 0 };
    csv_stream_buffer(text, 25, on_rec, &h, &r);      /* header and the quoted record */
    CHECK_INT(h.records, 2);
    CHECK_STR(h.last[1], "x, \"y\"");
}

TEST(csv_stream_semicolons)
{
    const char *text = "a;b\n1;2\n";
    struct collect c = { 0 };
    struct csv_stream_result r;
    csv_stream_buffer(text, strlen(text), on_rec, &c, &r);
    CHECK_INT(c.records, 2);
    CHECK_STR(c.last[1], "2");
}

/* A quoted record straddling the first 1 MiB chunk is read whole, whatever the split. */
TEST(csv_stream_record_across_chunks)
{
    size_t pad = (1u << 20) - 7;
    size_t len = pad + 64;
    char *buf = malloc(len + 1);
    memset(buf, 'x', pad);
    buf[0] = 'h';
    buf[pad - 1] = '\n';
    int n = snprintf(buf + pad, len + 1 - pad, "1,\"a,\"\"b\nc\",2\n3,4\n");
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_buffer(buf, pad + (size_t)n, on_rec, &c, &r), 0);
    CHECK_INT(c.records, 3);
    CHECK_STR(c.last[0], "3");
    free(buf);
    /* the quoted record itself */
    struct collect q = { 0 };
    const char *rec = "1,\"a,\"\"b\nc\",2\n";
    csv_stream_buffer(rec, strlen(rec), on_rec, &q, &r);
    CHECK_STR(q.last[1], "a,\"b\nc");
}

TEST(csv_stream_long_record_skipped)
{
    size_t big = CSV_STREAM_MAX_RECORD + 100;
    size_t len = big + 64;
    char *buf = malloc(len);
    int h = snprintf(buf, len, "a,b\n");
    memset(buf + h, 'y', big);
    size_t o = (size_t)h + big;
    o += (size_t)snprintf(buf + o, len - o, "\n1,2\n");
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_buffer(buf, o, on_rec, &c, &r), 0);
    CHECK_INT(r.skipped_long, 1);
    CHECK_INT(r.first_long_line, 2);
    CHECK_INT(c.records, 2);
    CHECK_STR(c.last[0], "1");
    CHECK_INT(c.last_line, 3);
    free(buf);
}

TEST(csv_stream_missing_file)
{
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_file("/nonexistent/memory_record.csv", on_rec, &c, NULL, &r), -1);
    CHECK(r.error != 0);
}

/* One field longer than the limit stops libcsv's buffer from growing: the record is skipped,
 * the parser starts again on the next line, and line numbers stay true. */
TEST(csv_stream_long_field_skipped)
{
    size_t big = CSV_STREAM_MAX_RECORD + (1u << 20);
    size_t len = big + 64;
    char *buf = malloc(len);
    int h = snprintf(buf, len, "a,b\n1,\"");
    memset(buf + h, 'z', big);
    size_t o = (size_t)h + big;
    o += (size_t)snprintf(buf + o, len - o, "\n\n2,3\n");
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_buffer(buf, o, on_rec, &c, &r), 0);
    CHECK_INT(r.skipped_long, 1);
    CHECK_INT(r.first_long_line, 2);
    CHECK_INT(c.records, 2);
    CHECK_STR(c.last[1], "3");
    CHECK_INT(c.last_line, 4);
    free(buf);
}

/* The one separator guess: commas win unless only ';' or TABs appear outside quotes. */
TEST(csv_stream_guess_delim)
{
    CHECK_INT(csv_guess_delim("a,b;c", 5), ',');
    CHECK_INT(csv_guess_delim("\"a,b\";c", 7), ';');
    CHECK_INT(csv_guess_delim("a;b\tc\td\n1,2", 11), '\t');
    CHECK_INT(csv_guess_delim("abc\n1;2", 7), ',');
    CHECK_INT(csv_guess_delim("", 0), ',');
}

/* Stream-level problems become messages naming the file: binary data, another separator. */
TEST(csv_stream_diags_name_the_file)
{
    static const char bin[] = "a,b\n\0\1\2";
    struct collect c = { 0 };
    struct csv_stream_result r;
    CHECK_INT(csv_stream_buffer(bin, sizeof bin - 1, on_rec, &c, &r), -1);
    CHECK_INT(c.records, 0);
    CHECK_INT(r.binary_at, 5);
    struct diag *d = diag_new();
    csv_stream_diags(&r, "x.csv", d);
    CHECK(test_diag_has(d, "x.csv", "byte 4: binary data"));
    CHECK_INT(csv_stream_buffer("a\tb\n1\t2\n", 8, on_rec, &c, &r), 0);
    csv_stream_diags(&r, "t.csv", d);
    CHECK(test_diag_has(d, "t.csv", "line 1: columns are separated by TABs"));
    CHECK_INT(csv_stream_file("/", on_rec, &c, NULL, &r), -1);
    csv_stream_diags(&r, "/", d);
    CHECK(test_diag_has(d, "not a regular file", NULL));
    diag_free(d);
}
