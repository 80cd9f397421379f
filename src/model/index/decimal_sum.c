#include "model/index/decimal_sum.h"

#include <stdio.h>
#include <string.h>

__extension__ typedef __int128 wide;

/* 10^38 < 2^127: the largest mantissa kept */
static wide limit(void)
{
    wide l = 1;
    for (int i = 0; i < 38; i++)
        l *= 10;
    return l;
}

static bool parse(const char *s, wide *mant, int *exp)
{
    bool neg = *s == '-';
    if (neg || *s == '+')
        s++;
    wide m = 0, lim = limit();
    int e = 0, digits = 0;
    bool any = false;
    for (; *s >= '0' && *s <= '9'; s++, any = true) {
        if (m || *s != '0')
            digits++;
        if (digits > 38)
            return false;
        m = m * 10 + (*s - '0');
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, any = true) {
            if (m || *s != '0')
                digits++;
            if (digits > 38)
                return false;
            m = m * 10 + (*s - '0');
            e--;
        }
    if (!any)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        bool eneg = *s == '-';
        if (eneg || *s == '+')
            s++;
        int x = 0;
        if (*s < '0' || *s > '9')
            return false;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((x = x * 10 + (*s - '0')) > 400)
                return false;
        e += eneg ? -x : x;
    }
    if (*s || m >= lim)
        return false;
    *mant = neg ? -m : m;
    *exp = e;
    return true;
}

/* m * 10^k, false when it would not fit */
static bool scale(wide *m, int k)
{
    wide lim = limit();
    for (; k > 0; k--) {
        if (*m >= lim / 10 || *m <= -lim / 10)
            return false;
        *m *= 10;
    }
    return true;
}

void decimal_sum_add(struct decimal_sum *s, const char *text)
{
    wide m;
    int e;
    if (s->inexact)
        return;
    if (!text || !parse(text, &m, &e)) {
        s->inexact = true;
        return;
    }
    if (!s->any) {
        s->mant = m;
        s->exp = e;
        s->any = true;
        return;
    }
    if (e < s->exp) {
        if (!scale(&s->mant, s->exp - e)) {
            s->inexact = true;
            return;
        }
        s->exp = e;
    } else if (e > s->exp && !scale(&m, e - s->exp)) {
        s->inexact = true;
        return;
    }
    wide lim = limit();
    s->mant += m;
    if (s->mant >= lim || s->mant <= -lim)
        s->inexact = true;
}

const char *decimal_sum_text(const struct decimal_sum *s, char *buf, size_t size)
{
    if (s->inexact || size < 2)
        return NULL;
    if (!s->any) {
        snprintf(buf, size, "0");
        return buf;
    }
    char dig[48];
    int n = 0;
    wide m = s->mant < 0 ? -s->mant : s->mant;
    do {
        dig[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m && n < 40);
    char out[512];
    size_t k = 0;
    if (s->mant < 0)
        out[k++] = '-';
    if (s->exp >= 0) {
        for (int i = n - 1; i >= 0; i--)
            out[k++] = dig[i];
        for (int i = 0; i < s->exp && k < sizeof out - 2 && !(n == 1 && dig[0] == '0'); i++)
            out[k++] = '0';
    } else {
        int frac = -s->exp;
        if (n <= frac) {
            out[k++] = '0';
            out[k++] = '.';
            for (int i = 0; i < frac - n && k < sizeof out - 50; i++)
                out[k++] = '0';
            for (int i = n - 1; i >= 0; i--)
                out[k++] = dig[i];
        } else {
            for (int i = n - 1; i >= 0; i--) {
                out[k++] = dig[i];
                if (i == frac)
                    out[k++] = '.';
            }
        }
    }
    out[k] = 0;
    if (strlen(out) + 1 > size)
        return NULL;
    memcpy(buf, out, strlen(out) + 1);
    return buf;
}

bool decimal_cmp(const char *a, const char *b, int *out)
{
    /* both mantissas on the smaller exponent, then compared */
    wide ma, mb;
    int ea, eb;
    if (!a || !b || !parse(a, &ma, &ea) || !parse(b, &mb, &eb))
        return false;
    if (ea > eb ? !scale(&ma, ea - eb) : !scale(&mb, eb - ea))
        return false;
    *out = (ma > mb) - (ma < mb);
    return true;
}
