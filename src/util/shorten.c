/* Middle shortening of names (see shorten.h). */
#include "util/shorten.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Characters (UTF-8 code points: every byte that does not continue one) of s. */
static size_t count_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/* Byte offset of character k of s (len when k is past the end). */
static size_t char_offset(const char *s, size_t len, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == k)
            return i;
    return len;
}

/* Appends bytes to out (size bytes, o used) as far as they fit whole. */
static size_t put(char *out, size_t size, size_t o, const char *s, size_t len)
{
    if (o + len + 1 > size)
        len = o + 1 < size ? size - o - 1 : 0;
    memcpy(out + o, s, len);
    out[o + len] = 0;
    return o + len;
}

/* Characters [a, b) of s appended to out. */
static size_t put_chars(char *out, size_t size, size_t o, const char *s, size_t len, size_t a, size_t b)
{
    size_t from = char_offset(s, len, a), to = char_offset(s, len, b);
    return put(out, size, o, s + from, to - from);
}

/* The first `head` characters, the ellipsis, then characters [from, from + mid) and, when
 * the text goes on after them, a second ellipsis; with mid covering the rest of the text it
 * is the plain "start…end" form. */
static void shorten_at(const char *s, size_t len, size_t nchars, size_t head, size_t from, size_t mid,
                       const char *ell, char *out, size_t size)
{
    size_t o = put_chars(out, size, 0, s, len, 0, head);
    o = put(out, size, o, ell, strlen(ell));
    o = put_chars(out, size, o, s, len, from, from + mid);
    if (from + mid < nchars)
        put(out, size, o, ell, strlen(ell));
}

/* "start…end" with `tail` characters of the end (width - 1 - tail of the start). */
static void shorten_tail(const char *s, size_t len, size_t nchars, int width, size_t tail, const char *ell,
                         char *out, size_t size)
{
    if (nchars <= (size_t)width) {
        put(out, size, 0, s, len);
        return;
    }
    if (width < 3) {   /* no room for an ellipsis: the start */
        put_chars(out, size, 0, s, len, 0, (size_t)(width > 0 ? width : 0));
        return;
    }
    size_t head = (size_t)width - 1 - tail;
    shorten_at(s, len, nchars, head, nchars - tail, tail, ell, out, size);
}

void shorten_middle(const char *name, size_t len, int width, int tail, const char *ell, char *out, size_t outsize)
{
    if (tail > width - 2)
        tail = width - 2;
    shorten_tail(name, len, count_chars(name, len), width, (size_t)(tail > 1 ? tail : 1), ell, out, outsize);
}

struct entry { const char *text; size_t i; };

static int by_text(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->text, ((const struct entry *)b)->text);
}

static bool same_name(const char *const *names, const size_t *lens, size_t i, size_t j)
{
    return lens[i] == lens[j] && !memcmp(names[i], names[j], lens[i]);
}

/* Marks in bad[] every name whose result equals that of a different name; returns how
 * many. e is scratch of n entries. */
static size_t find_collisions(const char *const *names, const size_t *lens, size_t n, const char *out,
                              size_t outsize, struct entry *e, bool *bad)
{
    for (size_t i = 0; i < n; i++)
        e[i] = (struct entry){ out + i * outsize, i };
    qsort(e, n, sizeof *e, by_text);
    memset(bad, 0, n * sizeof *bad);
    size_t nbad = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !strcmp(e[a].text, e[b].text))
            b++;
        bool differ = false;
        for (size_t k = a + 1; k < b && !differ; k++)
            differ = !same_name(names, lens, e[a].i, e[k].i);
        for (size_t k = a; differ && k < b; k++)
            bad[e[k].i] = true, nbad++;
        a = b;
    }
    return nbad;
}

/* The first character at which names i and j differ. */
static size_t first_difference(const char *a, size_t la, const char *b, size_t lb)
{
    size_t k = 0, chars = 0;
    while (k < la && k < lb && a[k] == b[k])
        chars += ((unsigned char)a[k++] & 0xc0) != 0x80;
    return chars;
}

/* The colliding names (bad[i]) show their start, then a window from just before the place
 * where they part from the most alike other name (found as a neighbour in sorted order). */
static void near_windows(const char *const *names, const size_t *lens, const size_t *nchars, size_t n, int width,
                         const char *ell, char *out, size_t outsize, struct entry *e, const bool *bad)
{
    /* names are not NUL-terminated at lens[i] in general: sort copies of their starts */
    char **copy = calloc(n, sizeof *copy);
    if (!copy)
        return;
    for (size_t i = 0; i < n; i++) {
        copy[i] = malloc(lens[i] + 1);
        if (!copy[i])
            goto done;
        memcpy(copy[i], names[i], lens[i]);
        copy[i][lens[i]] = 0;
        e[i] = (struct entry){ copy[i], i };
    }
    qsort(e, n, sizeof *e, by_text);
    size_t head = (size_t)width / 4, context = 2, mid = (size_t)width - 1 - head;
    for (size_t k = 0; k < n; k++) {
        size_t i = e[k].i;
        if (!bad[i] || nchars[i] <= (size_t)width)
            continue;
        size_t d = 0;
        for (size_t m = k; m-- > 0;)              /* the previous different name */
            if (!same_name(names, lens, i, e[m].i)) {
                d = first_difference(names[i], lens[i], names[e[m].i], lens[e[m].i]);
                break;
            }
        for (size_t m = k + 1; m < n; m++)        /* the next one */
            if (!same_name(names, lens, i, e[m].i)) {
                size_t fd = first_difference(names[i], lens[i], names[e[m].i], lens[e[m].i]);
                if (fd > d)
                    d = fd;
                break;
            }
        size_t f = d > head + context ? d - context : head;
        if (f + mid >= nchars[i])
            shorten_tail(names[i], lens[i], nchars[i], width, mid, ell, out + i * outsize, outsize);
        else
            shorten_at(names[i], lens[i], nchars[i], head, f, mid - 1, ell, out + i * outsize, outsize);
    }
done:
    for (size_t i = 0; i < n; i++)
        free(copy[i]);
    free(copy);
}

/* For each group of equal results of different names: every member longer than width
 * shows its start, then a window from just before the last place where it differs from the
 * other members. e is scratch of n entries. Returns whether any group was found. */
static bool separate(const char *const *names, const size_t *lens, const size_t *nchars, size_t n, int width,
                     const char *ell, char *out, size_t outsize, struct entry *e)
{
    for (size_t i = 0; i < n; i++)
        e[i] = (struct entry){ out + i * outsize, i };
    qsort(e, n, sizeof *e, by_text);
    /* the new texts are written after the scan: e points into out */
    size_t *from = malloc(n * sizeof *from);
    if (!from)
        return false;
    bool any = false;
    for (size_t i = 0; i < n; i++)
        from[i] = SIZE_MAX;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !strcmp(e[a].text, e[b].text))
            b++;
        for (size_t k = a; k < b; k++) {
            size_t i = e[k].i, d = 0;
            bool differ = false;
            for (size_t m = a; m < b; m++) {
                size_t j = e[m].i;
                if (same_name(names, lens, i, j))
                    continue;
                differ = true;
                size_t fd = first_difference(names[i], lens[i], names[j], lens[j]);
                if (fd > d)
                    d = fd;
            }
            if (differ && nchars[i] > (size_t)width) {
                from[i] = d;
                any = true;
            }
        }
        a = b;
    }
    size_t head = (size_t)width / 4, context = 2, mid = (size_t)width - 1 - head;
    for (size_t i = 0; i < n; i++) {
        if (from[i] == SIZE_MAX)
            continue;
        size_t f = from[i] > head + context ? from[i] - context : head;
        if (f + mid >= nchars[i])        /* the difference is in the end */
            shorten_tail(names[i], lens[i], nchars[i], width, mid, ell, out + i * outsize, outsize);
        else
            shorten_at(names[i], lens[i], nchars[i], head, f, mid - 1, ell, out + i * outsize, outsize);
    }
    free(from);
    return any;
}

void shorten_unique(const char *const *names, const size_t *lens, size_t n, int width, const char *ell, char *out,
                    size_t outsize)
{
    if (!n || !outsize)
        return;
    size_t *nchars = malloc(n * sizeof *nchars);
    struct entry *e = malloc(n * sizeof *e);
    bool *bad = malloc(n * sizeof *bad);
    if (!nchars || !e || !bad) {   /* no memory for the check: shorten each alone */
        for (size_t i = 0; i < n; i++)
            shorten_middle(names[i], lens[i], width, (width - 1) / 3, ell, out + i * outsize, outsize);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        nchars[i] = count_chars(names[i], lens[i]);
    if (width < 4) {
        for (size_t i = 0; i < n; i++)
            shorten_tail(names[i], lens[i], nchars[i], width, 1, ell, out + i * outsize, outsize);
        goto done;
    }
    /* one split for the whole column, so the ends line up: the usual one first, then keeping
     * more of the end (names of one family differ near their end), then more of the start */
    size_t usual = (size_t)(width - 1) / 3, most = (size_t)width - 2;
    for (size_t step = 0; step < most; step++) {
        size_t tail = usual + step <= most ? usual + step : usual - (usual + step - most);
        if (tail < 1)
            break;
        for (size_t i = 0; i < n; i++)
            shorten_tail(names[i], lens[i], nchars[i], width, tail, ell, out + i * outsize, outsize);
        if (!find_collisions(names, lens, n, out, outsize, e, bad))
            goto done;
    }
    /* no split tells them apart: names that still look alike show the start, then the part
     * from just before where they differ from the others that look the same; again until
     * none look alike (each round moves a window past a difference) */
    for (size_t i = 0; i < n; i++)
        shorten_tail(names[i], lens[i], nchars[i], width, usual, ell, out + i * outsize, outsize);
    find_collisions(names, lens, n, out, outsize, e, bad);
    near_windows(names, lens, nchars, n, width, ell, out, outsize, e, bad);
    for (int round = 0; round < 8; round++)
        if (!separate(names, lens, nchars, n, width, ell, out, outsize, e))
            break;
done:
    free(nchars);
    free(e);
    free(bad);
}
