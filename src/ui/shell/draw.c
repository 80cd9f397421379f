/* Drawing helpers: escaped, width-aware text; units; colour pairs with fallbacks. */
#include "ui/shell/draw.h"

#include "model/index/timeparse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui/shell/view.h"

bool draw_utf8 = true;
static bool colors_on;

/* Each pair's colours and what stands for it without colours. fg256: the foreground on 256
 * colours, when it differs; bg -1: the terminal's own background. */
static const struct pair_style {
    short fg, bg, fg256;
    attr_t mono;
} styles[CP_NAME0] = {
    [CP_HEADER]  = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [CP_TAB]     = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
    [CP_STATUS]  = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [CP_ERROR]   = { COLOR_WHITE, COLOR_RED, 0, A_REVERSE | A_BOLD },
    [CP_DIM]     = { COLOR_BLUE, -1, 244, A_DIM },
    [CP_SELECT]  = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
    [CP_RULER]   = { COLOR_CYAN, -1, 0, A_NORMAL },
    [CP_LABEL]   = { COLOR_WHITE, -1, 0, A_NORMAL },
    [CP_COMPUTE] = { COLOR_GREEN, -1, 0, A_NORMAL },
    [CP_COMM]    = { COLOR_MAGENTA, -1, 0, A_NORMAL },
    [CP_IDLE]    = { COLOR_BLUE, -1, 240, A_DIM },
    [CP_HOST]    = { COLOR_CYAN, -1, 0, A_NORMAL },
    [CP_COUNTER] = { COLOR_YELLOW, -1, 0, A_NORMAL },
    [CP_MATCH]   = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
    [CP_RANGE]   = { COLOR_BLACK, COLOR_BLUE, 0, A_UNDERLINE },
    [CP_FLOW]    = { COLOR_BLACK, COLOR_MAGENTA, 0, A_REVERSE },
};

bool draw_colors_init(void)
{
    const char *nc = getenv("NO_COLOR");
    colors_on = false;
    if ((nc && *nc) || !has_colors())
        return false;
    if (start_color() == ERR)
        return false;
    use_default_colors();
    bool rich = COLORS >= 256;
    for (int p = CP_HEADER; p < CP_NAME0; p++)
        init_pair((short)p, rich && styles[p].fg256 ? styles[p].fg256 : styles[p].fg, styles[p].bg);
    static const short rich_names[CP_NAMES] = { 114, 75, 179, 141, 209, 80 };
    static const short poor_names[CP_NAMES] = { COLOR_GREEN, COLOR_BLUE, COLOR_YELLOW,
                                                COLOR_MAGENTA, COLOR_RED, COLOR_CYAN };
    for (int i = 0; i < CP_NAMES; i++)
        init_pair((short)(CP_NAME0 + i), rich ? rich_names[i] : poor_names[i], -1);
    colors_on = true;
    return true;
}

attr_t draw_attr(int pair)
{
    if (!colors_on)
        return pair >= 0 && pair < CP_NAME0 ? styles[pair].mono : A_NORMAL;
    attr_t a = COLOR_PAIR(pair);
    if (pair == CP_SELECT || pair == CP_ERROR)
        a |= A_BOLD;
    return a;
}

int draw_name_pair(uint32_t name_id)
{
    uint32_t h = name_id * 2654435761u;
    return CP_NAME0 + (int)((h >> 16) % CP_NAMES);
}

/* One display unit of the input: either a printable character (bytes n, cols w) or an
 * escape "\xNN" / "\t" written into esc. */
struct unit { int n, w; char esc[8]; };

static void next_unit(const char *s, size_t len, struct unit *u)
{
    unsigned char c = (unsigned char)s[0];
    u->esc[0] = 0;
    if (c < 0x80) {
        u->n = 1;
        if (c == '\t' || c == '\n' || c == '\r') {
            snprintf(u->esc, sizeof u->esc, "\\%c", c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
            u->w = 2;
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(u->esc, sizeof u->esc, "\\x%02x", c);
            u->w = 4;
        } else {
            u->w = 1;
        }
        return;
    }
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t r = mbrtowc(&wc, s, len, &st);
    int w = (r == (size_t)-1 || r == (size_t)-2 || r == 0) ? -1 : wcwidth(wc);
    if (w < 0 || (wc >= 0x80 && wc < 0xa0) || wc == 0x2028 || wc == 0x2029 ||
        (wc >= 0x202a && wc <= 0x202e) || (wc >= 0x2066 && wc <= 0x2069)) {
        /* invalid, C1 control, or bidi control: escape the first byte */
        u->n = (r == (size_t)-1 || r == (size_t)-2 || r == 0) ? 1 : (int)r;
        if (u->n == 1)
            snprintf(u->esc, sizeof u->esc, "\\x%02x", c);
        else
            snprintf(u->esc, sizeof u->esc, "\\u%04x", (unsigned)wc & 0xffff);
        u->w = (int)strlen(u->esc);
        return;
    }
    u->n = (int)r;
    u->w = w;
}

int draw_text(WINDOW *w, int y, int x, int width, const char *s, size_t len, attr_t attr)
{
    if (!s || width <= 0)
        return 0;
    if (len == SIZE_MAX)
        len = strlen(s);
    int used = 0;
    wmove(w, y, x);
    wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
    size_t i = 0;
    while (i < len && used < width) {
        struct unit u;
        next_unit(s + i, len - i, &u);
        if (used + u.w > width) {
            /* keep alignment: pad what does not fit */
            while (used < width) { waddch(w, ' '); used++; }
            break;
        }
        if (u.esc[0])
            waddstr(w, u.esc);
        else if (u.w > 0)
            waddnstr(w, s + i, u.n);
        used += u.w;
        i += (size_t)u.n;
    }
    wattr_set(w, A_NORMAL, 0, NULL);
    return used;
}

int draw_text_width(const char *s, size_t len)
{
    if (!s)
        return 0;
    if (len == SIZE_MAX)
        len = strlen(s);
    int used = 0;
    for (size_t i = 0; i < len;) {
        struct unit u;
        next_unit(s + i, len - i, &u);
        used += u.w;
        i += (size_t)u.n;
    }
    return used;
}

void draw_escape(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;
    if (!size)
        return;
    if (!s)
        s = "";
    if (len == SIZE_MAX)
        len = strlen(s);
    for (size_t i = 0; i < len;) {
        struct unit u;
        next_unit(s + i, len - i, &u);
        const char *p = u.esc[0] ? u.esc : s + i;
        size_t n = u.esc[0] ? strlen(u.esc) : (size_t)u.n;
        if (o + n + 1 > size)
            break;
        memcpy(out + o, p, n);
        o += n;
        i += (size_t)u.n;
    }
    out[o] = 0;
}

void draw_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void draw_fill(WINDOW *w, int y, int x, int width, const char *glyph, attr_t attr)
{
    if (width <= 0)
        return;
    wmove(w, y, x);
    wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
    for (int i = 0; i < width; i++)
        waddstr(w, glyph);
    wattr_set(w, A_NORMAL, 0, NULL);
}

int draw_printf(WINDOW *w, int y, int x, int width, attr_t attr, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(w, y, x, width, buf, SIZE_MAX, attr);
}

const char *fmt_dur(ns_t ns, char *buf, size_t size)
{
    const char *us = draw_utf8 ? "µs" : "us";
    double a = (double)(ns < 0 ? -ns : ns);
    double v = (double)ns;
    if (ns == NS_NONE)
        snprintf(buf, size, "-");
    else if (a < 1000)
        snprintf(buf, size, "%lld ns", (long long)ns);
    else if (a < 1e6)
        snprintf(buf, size, "%.3g %s", v / 1e3, us);
    else if (a < 1e9)
        snprintf(buf, size, "%.3f ms", v / 1e6);
    else
        snprintf(buf, size, "%.3f s", v / 1e9);
    /* "%.3g" can print "1e+03": keep fixed notation */
    if (strchr(buf, 'e') && a < 1e6)
        snprintf(buf, size, "%.1f %s", v / 1e3, us);
    return buf;
}

const char *fmt_ruler(ns_t t, ns_t step, char *buf, size_t size)
{
    const char *us = draw_utf8 ? "µs" : "us";
    ns_t unit; const char *u;
    if (step >= 1000000000) { unit = 1000000000; u = "s"; }
    else if (step >= 1000000) { unit = 1000000; u = "ms"; }
    else if (step >= 1000) { unit = 1000; u = us; }
    else { unit = 1; u = "ns"; }
    /* decimals needed to tell ticks apart */
    int dec = 0;
    for (ns_t q = unit; dec < 3 && step % q != 0; q /= 10)
        dec++;
    snprintf(buf, size, "%.*f%s", dec, (double)t / (double)unit, u);
    return buf;
}

int parse_time(const char *s, ns_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    return time_text_to_ns(s, out);
}
