/* The text, CSV and JSON writers of a rowset (see rowset_write.h). */
#include "model/rowsets/rowset_write.h"
#include "util/utf8.h"

#include "model/rowsets/escape.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* JSON keeps every valid character (bidi and C1 controls as \u escapes, which a parser turns
 * back into the character); invalid UTF-8 bytes become the text \xNN, as on the screen. */
void rowset_write_json_string(const char *s, FILE *out)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s);
    fputc('"', out);
    for (size_t i = 0; i < len; ) {
        unsigned char c = u[i];
        size_t n = utf8_seq_len(u + i, len - i);
        uint32_t bad = n > 1 ? unsafe_code_point(u + i, n) : 0;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            i++;
        } else if (n == 0) {
            fprintf(out, "\\\\x%02x", c);
            i++;
        } else if (bad) {
            fprintf(out, "\\u%04x", (unsigned)bad);
            i += n;
        } else {
            fwrite(u + i, 1, n, out);
            i += n;
        }
    }
    fputc('"', out);
}

static void json_value(const struct rowset *rs, size_t r, size_t c, FILE *out)
{
    if (rowset_is_null(rs, r, c)) {
        fputs("null", out);
        return;
    }
    const union rs_val *v = rowset_cell(rs, r, c);
    char buf[64];
    switch (rs->cols[c].type) {
    case RS_STR:
        rowset_write_json_string(strtab_get(rs->str, v->s), out);
        break;
    case RS_RAW:
    case RS_DEC:    /* the file's own digits: valid JSON number text (rowset_dec checks) */
        fputs(strtab_get(rs->str, v->s), out);
        break;
    case RS_INT:
        fprintf(out, "%" PRId64, v->i);
        break;
    case RS_NS:
        fputs(rowset_format(rs, r, c, buf, sizeof buf), out);
        break;
    case RS_NUM:
    case RS_PCT:
        fputs(rowset_shortest(v->d, buf, sizeof buf), out);   /* shortest text that reads back exactly */
        break;
    }
}

static void write_json(const struct rowset *rs, FILE *out)
{
    if (!rs->object)
        fputc('[', out);
    for (size_t r = 0; r < rs->nrows; r++) {
        fputs(r ? ",\n  {" : (rs->object ? "{" : "\n  {"), out);
        for (size_t c = 0; c < rs->ncols; c++) {
            if (c)
                fputs(", ", out);
            rowset_write_json_string(rs->cols[c].key, out);
            fputs(": ", out);
            json_value(rs, r, c, out);
        }
        fputc('}', out);
        if (rs->object)
            break;
    }
    if (rs->object && !rs->nrows)
        fputs("{}", out);
    if (!rs->object)
        fputs(rs->nrows ? "\n]" : "]", out);
}

/* One CSV field: escaped for the terminal, quoted when it holds a comma or a quote. */
static void csv_field(const char *raw, FILE *out)
{
    char esc[16384];
    text_escape(raw, strlen(raw), esc, sizeof esc);
    if (strpbrk(esc, ",\"")) {
        fputc('"', out);
        for (const char *p = esc; *p; p++)
            fputs(*p == '"' ? "\"\"" : (char[2]){ *p, 0 }, out);
        fputc('"', out);
    } else
        fputs(esc, out);
}

static void write_csv(const struct rowset *rs, FILE *out)
{
    char raw[4096];
    /* keys can come from a file's headers (step_trace): escaped like the cells */
    for (size_t c = 0; c < rs->ncols; c++) {
        if (c)
            fputc(',', out);
        csv_field(rs->cols[c].key, out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < rs->nrows; r++) {
        for (size_t c = 0; c < rs->ncols; c++) {
            rowset_format(rs, r, c, raw, sizeof raw);
            if (rs->cols[c].type == RS_PCT && !rowset_is_null(rs, r, c))
                rowset_shortest(rowset_cell(rs, r, c)->d, raw, sizeof raw);   /* the fraction, all its digits */
            if (c)
                fputc(',', out);
            csv_field(raw, out);
        }
        fputc('\n', out);
    }
}

/* Display width of UTF-8 text, counting code points (escaped text has no controls). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

#define TEXT_CELL_MAX 60

static void write_text(const struct rowset *rs, FILE *out)
{
    size_t nc = rs->ncols;
    size_t *w = calloc(nc ? nc : 1, sizeof *w);
    char raw[4096], esc[16384];
    if (!w)
        return;
    if (rs->caption) {
        text_escape(rs->caption, strlen(rs->caption), esc, sizeof esc);
        fprintf(out, "%s\n", esc);
    }
    /* titles can be a file's headers as written (step_trace): escaped like the cells */
    for (size_t c = 0; c < nc; c++) {
        text_escape(rs->cols[c].title, strlen(rs->cols[c].title), esc, sizeof esc);
        w[c] = text_width(esc);
        if (w[c] > TEXT_CELL_MAX)
            w[c] = TEXT_CELL_MAX;
    }
    for (size_t r = 0; r < rs->nrows; r++)
        for (size_t c = 0; c < nc; c++) {
            rowset_format(rs, r, c, raw, sizeof raw);
            text_escape(raw, strlen(raw), esc, sizeof esc);
            size_t tw = text_width(esc);
            if (tw > TEXT_CELL_MAX)
                tw = TEXT_CELL_MAX;
            if (tw > w[c])
                w[c] = tw;
        }
    for (int pass = 0; pass <= (int)rs->nrows; pass++) {
        size_t r = (size_t)pass - 1;
        for (size_t c = 0; c < nc; c++) {
            const char *cellp = pass ? rowset_format(rs, r, c, raw, sizeof raw) : rs->cols[c].title;
            text_escape(cellp, strlen(cellp), esc, sizeof esc);
            cellp = esc;
            bool left = rs->cols[c].type == RS_STR || rs->cols[c].type == RS_RAW;
            size_t tw = text_width(cellp);
            char clipped[TEXT_CELL_MAX * 4 + 8];
            /* the last column ends the line: shown whole (a message, a path), never clipped */
            if (tw > TEXT_CELL_MAX && c + 1 < nc) {
                /* clip at a code point boundary and mark it */
                size_t i = 0, cp = 0;
                while (cellp[i] && cp < TEXT_CELL_MAX - 1) {
                    i++;
                    while (((unsigned char)cellp[i] & 0xc0) == 0x80)
                        i++;
                    cp++;
                }
                snprintf(clipped, sizeof clipped, "%.*s~", (int)i, cellp);
                cellp = clipped;
                tw = TEXT_CELL_MAX;
            }
            size_t pad = w[c] > tw ? w[c] - tw : 0;
            if (c)
                fputs("  ", out);
            if (!left)
                fprintf(out, "%*s", (int)pad, "");
            fputs(cellp, out);
            if (left && c + 1 < nc)
                fprintf(out, "%*s", (int)pad, "");
        }
        fputc('\n', out);
    }
    if (rs->lost_rows)
        fprintf(out, "(%zu more row%s not shown: memory ran out)\n", rs->lost_rows, rs->lost_rows == 1 ? "" : "s");
    free(w);
}

void rowset_write(const struct rowset *rs, enum rowset_format f, FILE *out)
{
    if (f == FMT_JSON)
        write_json(rs, out);
    else if (f == FMT_CSV)
        write_csv(rs, out);
    else
        write_text(rs, out);
}
