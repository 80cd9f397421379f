#include "model/index/timeparse.h"

#include <stdbool.h>
#include <string.h>

/* s as a number of a unit that is 10^to_ns_exp ns (µs: 3, ms: 6) into ns. */
static int decimal_to_ns(const char *s, size_t len, int to_ns_exp, int64_t *ns)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    /* digits into an integer while it can take one more, remembering the decimal exponent */
    struct decimal_parts d;
    if (!decimal_split(s + i, len - i, (UINT64_MAX - 9) / 10 + 1, &d))
        return -1;
    bool neg = d.neg;
    uint64_t mant = d.mant;
    int exp10 = d.exp10, first_dropped = d.first_dropped;
    exp10 += to_ns_exp;   /* the unit -> ns */
    if (exp10 >= 0) {
        if (exp10 == 0 && first_dropped >= 5)
            mant++;
        for (int k = 0; k < exp10 && mant; k++) {
            if (mant > UINT64_MAX / 10)
                return mant ? -1 : 0;
            mant *= 10;
        }
    } else {
        /* drop -exp10 digits; the last one dropped decides (half away from zero) */
        int last = 0;
        for (int k = 0; k < -exp10 && (mant || last); k++) {
            last = (int)(mant % 10);
            mant /= 10;
        }
        if (last >= 5)
            mant++;
    }
    if (mant > (uint64_t)INT64_MAX)
        return -1;
    *ns = neg ? -(int64_t)mant : (int64_t)mant;
    return 0;
}


int decimal_us_to_ns(const char *s, size_t len, int64_t *ns)
{
    return decimal_to_ns(s, len, 3, ns);
}

int decimal_ms_to_ns(const char *s, size_t len, int64_t *ns)
{
    return decimal_to_ns(s, len, 6, ns);
}

int time_text_to_ns(const char *s, int64_t *ns)
{
    static const struct { const char *unit; int exp; } units[] = {
        { "ns", 0 }, { "us", 3 }, { "\xc2\xb5s", 3 }, { "ms", 6 }, { "s", 9 },
    };
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    int exp = 6;   /* no unit: ms */
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t ul = strlen(units[u].unit);
        if (n > ul && !memcmp(s + n - ul, units[u].unit, ul)) {
            exp = units[u].exp;
            n -= ul;
            break;
        }
    }
    return decimal_to_ns(s, n, exp, ns);
}

bool decimal_split(const char *s, size_t len, uint64_t mant_cap, struct decimal_parts *d)
{
    size_t i = 0;
    *d = (struct decimal_parts){ .first_dropped = -1 };
    if (i < len && (s[i] == '-' || s[i] == '+'))
        d->neg = s[i++] == '-';
    bool any = false, frac = false;
    for (; i < len; i++) {
        if (s[i] == '.' && !frac) {
            frac = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            break;
        any = true;
        if (d->mant < mant_cap) {
            d->mant = d->mant * 10 + (uint64_t)(s[i] - '0');
            d->exp10 -= frac;
        } else {
            if (d->first_dropped < 0)
                d->first_dropped = s[i] - '0';
            d->exp10 += !frac;   /* an integer digit that did not fit still scales */
        }
    }
    if (!any)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        d->exponent = true;
        bool eneg = ++i < len && s[i] == '-';
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t first = i;
        int e = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 10000)
                e = e * 10 + (s[i] - '0');
        if (i == first)
            return false;
        d->exp10 += eneg ? -e : e;
    }
    return i == len;
}
