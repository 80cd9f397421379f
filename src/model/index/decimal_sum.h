/* Exact sums of decimal numbers given as text ("5.64663284375", "2e-05"): the digits of
 * every term are kept, so a total of file figures shows no digit the files did not imply
 * and loses none (a double sum would print 5.8858176249999995 for 5.88581762499999998).
 * Up to 38 significant digits; beyond that the sum says it is not exact. */
#ifndef APTOP_DECIMAL_SUM_H
#define APTOP_DECIMAL_SUM_H
#include <stdbool.h>
#include <stddef.h>

struct decimal_sum {
    __extension__ __int128 mant;   /* value = mant * 10^exp */
    int exp;
    bool any;                      /* a term was added */
    bool inexact;                  /* a term was not a number, or the digits did not fit */
};

/* Adds the number written in text (JSON number grammar); a term that is not such a number,
 * or whose digits do not fit, marks the sum inexact. */
void decimal_sum_add(struct decimal_sum *s, const char *text);
/* The sum as plain decimal text ("0" when nothing was added); NULL when inexact. */
const char *decimal_sum_text(const struct decimal_sum *s, char *buf, size_t size);

/* Compares the numbers written in a and b exactly: *out gets -1, 0 or 1 (a <, =, > b).
 * False when either is not a number or the digits do not fit (nothing compared). */
bool decimal_cmp(const char *a, const char *b, int *out);

#endif
