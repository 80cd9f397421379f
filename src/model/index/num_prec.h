/* The precision a column of numbers read from files is shown with, on screen and in text
 * reports (JSON and CSV keep every digit the file wrote).
 *
 * A number is shown with the decimals it was written with, except that one written with
 * NUM_PREC_NOISY_DIGITS or more significant digits ("0.45130000000000337",
 * "-5.551115123125783e-17": a binary double printed in full, whose last digits are rounding
 * noise) counts as NUM_PREC_NOISY decimals; never more than NUM_PREC_MAX. A column is shown
 * with the largest of its numbers' precisions, so every row of it has the same decimals. */
#ifndef APTOP_NUM_PREC_H
#define APTOP_NUM_PREC_H
#include <stddef.h>

#define NUM_PREC_NOISY_DIGITS 15
#define NUM_PREC_NOISY 3
#define NUM_PREC_MAX 6

/* The precision of the number written in s[0..len) (blanks around it allowed); 0 when it
 * is not a number. */
int num_prec_of_text(const char *s, size_t len);

/* The number written in text, rounded half away from zero to prec decimals and written
 * with exactly that many ("0.451", "0.000": never "-0.000"), exactly on its digits (no
 * double on the way). Text that is not a plain number, or too long, is copied as it is. */
const char *num_prec_round(const char *text, int prec, char *buf, size_t size);

#endif
