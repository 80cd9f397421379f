/* The text, CSV and JSON writers of a rowset (see rowset_write.h). */
#include "model/rowsets/rowset_write.h"
#include "util/utf8.h"

#include "model/rowsets/escape.h"
#include "util/oom.h"

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

/* A cell's text, whole: a string cell straight from the table (a name or message of any
 * length), any other formatted into buf (a number: a few dozen bytes). */
static const char *cell_text(const struct rowset *rs, size_t r, size_t c, char *buf, size_t size)
{
    enum rs_type t = rs->cols[c].type;
    if ((t == RS_STR || t == RS_RAW) && !rowset_is_null(rs, r, c))
        return strtab_get(rs->str, rowset_cell(rs, r, c)->s);
    return rowset_format(rs, r, c, buf, size);
}

/* s escaped for the terminal (escape.h), whole: into buf when it fits, else into memory the
 * caller frees through *owned (an escape takes at most 4 bytes per byte). */
static const char *escaped_whole(const char *s, char *buf, size_t size, char **owned)
{
    size_t len = strlen(s), need = 4 * len + 16;
    *owned = NULL;
    if (need > size) {
        if (!(*owned = malloc(need)))
            oom_exit("a report cell", need);
        buf = *owned;
        size = need;
    }
    text_escape(s, len, buf, size);
    return buf;
}

/* One CSV field: escaped for the terminal, quoted when it holds a comma or a quote (escaping
 * adds neither). */
static void csv_field(const char *raw, FILE *out)
{
    char buf[4096], *owned;
    const char *esc = escaped_whole(raw, buf, sizeof buf, &owned);
    if (strpbrk(esc, ",\"")) {
        fputc('"', out);
        for (const char *p = esc; *p; p++)
            fputs(*p == '"' ? "\"\"" : (char[2]){ *p, 0 }, out);
        fputc('"', out);
    } else
        fputs(esc, out);
    free(owned);
}

static void write_csv(const struct rowset *rs, FILE *out)
{
    char raw[512];   /* a number: a double's 309 digits at most, and its decimals */
    /* keys can come from a file's headers (step_trace): escaped like the cells */
    for (size_t c = 0; c < rs->ncols; c++) {
        if (c)
            fputc(',', out);
        csv_field(rs->cols[c].key, out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < rs->nrows; r++) {
        for (size_t c = 0; c < rs->ncols; c++) {
            const char *cell = cell_text(rs, r, c, raw, sizeof raw);
            if (rs->cols[c].type == RS_PCT && !rowset_is_null(rs, r, c))
                cell = rowset_shortest(rowset_cell(rs, r, c)->d, raw, sizeof raw);   /* the fraction, all its digits */
            if (rs->cols[c].type == RS_DEC && !rowset_is_null(rs, r, c))       /* the file's digits */
                cell = strtab_get(rs->str, rowset_cell(rs, r, c)->s);
            if (c)
                fputc(',', out);
            csv_field(cell, out);
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
    char raw[512], esc[4096], *owned;   /* raw: a formatted number (see write_csv) */
    if (!w)
        return;
    if (rs->caption) {
        fprintf(out, "%s\n", escaped_whole(rs->caption, esc, sizeof esc, &owned));
        free(owned);
    }
    /* titles can be a file's headers as written (step_trace): escaped like the cells */
    for (size_t c = 0; c < nc; c++) {
        w[c] = text_width(escaped_whole(rs->cols[c].title, esc, sizeof esc, &owned));
        free(owned);
        if (w[c] > TEXT_CELL_MAX)
            w[c] = TEXT_CELL_MAX;
    }
    for (size_t r = 0; r < rs->nrows; r++)
        for (size_t c = 0; c < nc; c++) {
            size_t tw = text_width(escaped_whole(cell_text(rs, r, c, raw, sizeof raw), esc, sizeof esc, &owned));
            free(owned);
            if (tw > TEXT_CELL_MAX)
                tw = TEXT_CELL_MAX;
            if (tw > w[c])
                w[c] = tw;
        }
    for (int pass = 0; pass <= (int)rs->nrows; pass++) {
        size_t r = (size_t)pass - 1;
        for (size_t c = 0; c < nc; c++) {
            const char *cellp = pass ? cell_text(rs, r, c, raw, sizeof raw) : rs->cols[c].title;
            cellp = escaped_whole(cellp, esc, sizeof esc, &owned);
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
            free(owned);
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
