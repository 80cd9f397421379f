/* The `!` pane: every diagnostic whole. A message longer than the pane is wrapped onto as
 * many lines as it needs (continuation lines indented under the text), so nothing is cut;
 * the pane scrolls by lines (j/k, PgUp/PgDn, Home/End). */
#include "ui/shell/diag_pane.h"

#include <stdlib.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/view.h"
#include "util/free_all.h"

#define LEVEL_COLS 7    /* "error " plus a space: the text starts here on every line */

/* Bytes of the longest prefix of s (escaped, NUL-terminated) that fits in cols columns,
 * cut at a code point; at least one code point so wrapping always advances. */
static size_t fit(const char *s, int cols)
{
    size_t i = 0;
    int used = 0;
    while (s[i]) {
        size_t n = 1;
        while (((unsigned char)s[i + n] & 0xc0) == 0x80)
            n++;
        int cw = draw_text_width(s + i, n);
        if (used + cw > cols && i)
            break;
        used += cw;
        i += n;
    }
    /* break after a space in the line's last third when the text goes on (paths have none) */
    if (s[i]) {
        size_t sp = i;
        while (sp > 0 && s[sp - 1] != ' ')
            sp--;
        if (sp > 0 && sp * 3 >= i * 2)
            i = sp;
    }
    return i;
}

/* Draws (when draw) message i's lines from pane line `line` on; returns its line count. */
static int message_lines(WINDOW *w, const struct diag_msg *m, int line, int top, int h, int cw, bool draw)
{
    size_t plen = m->path ? strlen(m->path) : 0, tlen = strlen(m->text);
    size_t size = (plen + tlen + 4) * 4 + 16;
    char *raw = malloc(plen + tlen + 4), *esc = malloc(size);
    if (!raw || !esc) {
        FREE_ALL(raw, esc);
        return 1;
    }
    memcpy(raw, m->path ? m->path : "", plen);
    size_t split = plen;
    if (plen) {
        memcpy(raw + plen, ": ", 2);
        split += 2;
    }
    memcpy(raw + split, m->text, tlen + 1);
    /* the path part, escaped alone, to know where its colour ends */
    char *pesc = malloc(split * 4 + 16);
    if (pesc)
        draw_escape(raw, split, pesc, split * 4 + 16);
    size_t pend = pesc ? strlen(pesc) : 0;
    free(pesc);
    draw_escape(raw, strlen(raw), esc, size);
    int width = cw - LEVEL_COLS - 2;
    if (width < 8)
        width = 8;
    int n = 0;
    size_t at = 0, total = strlen(esc);
    do {
        size_t len = fit(esc + at, width);
        int y = line + n - top;
        if (draw && y >= 1 && y < h) {
            if (!n) {
                const char *lv = m->level == DIAG_ERROR ? "error" : m->level == DIAG_WARN ? "warn" : "info";
                draw_text(w, y, 1, LEVEL_COLS - 1, lv, SIZE_MAX,
                          m->level == DIAG_ERROR ? draw_attr(CP_ERROR) : A_BOLD);
            }
            int x = 1 + LEVEL_COLS;
            if (at < pend) {   /* the path's share of this line, dim */
                size_t pl = pend - at < len ? pend - at : len;
                x += draw_text(w, y, x, width, esc + at, pl, draw_attr(CP_DIM));
                draw_text(w, y, x, width - (x - 1 - LEVEL_COLS), esc + at + pl, len - pl, A_NORMAL);
            } else {
                draw_text(w, y, x, width, esc + at, len, A_NORMAL);
            }
        }
        at += len;
        n++;
    } while (at < total);
    FREE_ALL(raw, esc);
    return n;
}

int diag_pane(WINDOW *w, struct diag *d, int *top)
{
    int h = getmaxy(w), cw = getmaxx(w);
    size_t n = d ? diag_count(d) : 0, dropped = d ? diag_dropped(d) : 0;
    /* lines of every message at this width, then the view is clamped and drawn */
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m) != 0)
            break;
        total += message_lines(w, &m, 0, 0, 0, cw, false);
        free(m.path);
        free(m.text);
    }
    int rows = h - 1;
    if (*top > total - rows) *top = total - rows;
    if (*top < 0) *top = 0;
    if (dropped)
        draw_printf(w, 0, 1, cw - 2, A_BOLD, "Diagnostics (%zu, %zu more not kept)   lines %d-%d of %d   "
                    "j/k PgUp/PgDn: scroll  Esc: close", n, dropped, total ? *top + 1 : 0,
                    *top + rows < total ? *top + rows : total, total);
    else
        draw_printf(w, 0, 1, cw - 2, A_BOLD, "Diagnostics (%zu)   lines %d-%d of %d   j/k PgUp/PgDn: scroll  Esc: close",
                    n, total ? *top + 1 : 0, *top + rows < total ? *top + rows : total, total);
    int line = 0;
    for (size_t i = 0; i < n && line - *top < h; i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m) != 0)
            break;
        line += message_lines(w, &m, line + 1, *top, h, cw, true);
        free(m.path);
        free(m.text);
    }
    return total;
}
