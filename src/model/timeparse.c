#include "model/timeparse.h"

#include <stdbool.h>

/* s as a number of a unit that is 10^to_ns_exp ns (µs: 3, ms: 6) into ns. */
static int decimal_to_ns(const char *s, size_t len, int to_ns_exp, int64_t *ns)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    /* mantissa digits into an integer, remembering the decimal exponent */
    uint64_t mant = 0;
    int exp10 = 0;
    bool any = false;
    int first_dropped = -1;   /* first digit that did not fit, for rounding */
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (mant <= (UINT64_MAX - 9) / 10) {
            mant = mant * 10 + (uint64_t)(s[i] - '0');
        } else {
            if (first_dropped < 0)
                first_dropped = s[i] - '0';
            exp10++;
        }
    }
    if (i < len && s[i] == '.') {
        i++;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (mant <= (UINT64_MAX - 9) / 10) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                exp10--;
            } else if (first_dropped < 0) {
                first_dropped = s[i] - '0';
            }
        }
    }
    if (!any)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        int e = 0;
        bool edig = false;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            edig = true;
            if (e < 10000)
                e = e * 10 + (s[i] - '0');
        }
        if (!edig)
            return -1;
        exp10 += eneg ? -e : e;
    }
    if (i != len)
        return -1;
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
