/* Column precision of file numbers (see num_prec.h). */
#include "model/index/num_prec.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIGITS_MAX 64       /* longer numbers are shown as written */

/* A number's text taken apart: sign, its digits without the point, and where the point
 * goes (digit i weighs 10^(point - 1 - i)). False when it is not such a number. */
struct digits { bool neg; char d[DIGITS_MAX]; int n, point, written_decimals; };

static bool split(const char *s, size_t len, struct digits *x)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    const char *p = s, *e = s + len;
    memset(x, 0, sizeof *x);
    if (p < e && (*p == '-' || *p == '+'))
        x->neg = *p++ == '-';
    bool any = false, frac = false;
    for (; p < e; p++) {
        if (*p == '.' && !frac) {
            frac = true;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        any = true;
        if (!x->n && *p == '0') {            /* leading zeros carry no digit */
            if (frac)
                x->point--;
        } else {
            if (x->n == DIGITS_MAX)
                return false;
            x->d[x->n++] = *p;
            if (!frac)
                x->point++;
        }
        x->written_decimals += frac;
    }
    if (!any)
        return false;
    long ex = 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        char *end;
        char tmp[16];
        size_t l = (size_t)(e - p - 1) < sizeof tmp - 1 ? (size_t)(e - p - 1) : sizeof tmp - 1;
        memcpy(tmp, p + 1, l);
        tmp[l] = 0;
        ex = strtol(tmp, &end, 10);
        if (end == tmp || *end || ex > 400 || ex < -400)
            return false;
        p = e;
    }
    if (p != e)
        return false;
    x->point += (int)ex;
    x->written_decimals -= (int)ex;
    return true;
}

int num_prec_of_text(const char *s, size_t len)
{
    struct digits x;
    if (!split(s, len, &x))
        return 0;
    /* digits as written, trailing zeros included: a writer put them there */
    int prec = x.n >= NUM_PREC_NOISY_DIGITS ? NUM_PREC_NOISY : x.written_decimals;
    return prec < 0 ? 0 : prec > NUM_PREC_MAX ? NUM_PREC_MAX : prec;
}

const char *num_prec_round(const char *text, int prec, char *buf, size_t size)
{
    struct digits x;
    if (prec < 0)
        prec = 0;
    if (!split(text, strlen(text), &x) || x.point > DIGITS_MAX || prec > DIGITS_MAX || !size) {
        snprintf(buf, size, "%s", text);
        return buf;
    }
    int keep = x.point + prec;                  /* digits of d that stay */
    if (keep < 0) {
        keep = 0;
        x.n = 0;                                /* below half the last place: rounds to 0 */
    } else if (keep < x.n) {
        bool up = x.d[keep] >= '5';
        x.n = keep;
        for (int i = keep - 1; up && i >= 0; i--) {
            up = x.d[i] == '9';
            x.d[i] = up ? '0' : (char)(x.d[i] + 1);
        }
        if (up) {                               /* 9.99 -> 10.0: a new leading digit */
            memmove(x.d + 1, x.d, (size_t)x.n);
            x.d[0] = '1';
            x.n++;
            x.point++;
        }
    }
    bool zero = true;
    for (int i = 0; i < x.n; i++)
        zero &= x.d[i] == '0';
    char out[2 * DIGITS_MAX + 8];
    size_t o = 0;
    if (x.neg && !zero)
        out[o++] = '-';
    if (x.point <= 0)
        out[o++] = '0';
    for (int i = 0; i < x.point; i++)
        out[o++] = i < x.n ? x.d[i] : '0';
    if (prec)
        out[o++] = '.';
    for (int k = 0; k < prec; k++) {
        int i = x.point + k;
        out[o++] = i >= 0 && i < x.n ? x.d[i] : '0';
    }
    out[o] = 0;
    snprintf(buf, size, "%s", out);
    return buf;
}
