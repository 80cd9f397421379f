/* Exact times from text: a decimal number of microseconds as the trace and CSV files write
 * it ("1736405443863674.400", "12.345", "1.69512E+15") turned into int64 nanoseconds without
 * going through a double, so no digit of a 16-digit timestamp is lost. */
#ifndef APTOP_TIMEPARSE_H
#define APTOP_TIMEPARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses s[0..len) (surrounding blanks, tabs and line ends allowed; sign, decimals and an
 * exponent accepted) as µs into *ns, rounding half away from zero below 1 ns. 0 on success,
 * -1 when it is not such a number or the result does not fit int64. */
int decimal_us_to_ns(const char *s, size_t len, int64_t *ns);
/* The same for ms text (communication.json's "Elapse Time(ms)"). */
int decimal_ms_to_ns(const char *s, size_t len, int64_t *ns);

/* A time as the user types it ("12.5ms", "3 s", "250us", "40µs", "900ns"; no unit: ms) into
 * ns, exactly: 0, or -1 when it is not such a time. */
int time_text_to_ns(const char *s, int64_t *ns);

/* A decimal number's text taken apart, for the parsers that turn it into an exact integer:
 * its sign, its leading digits as an integer (taken while that stays below the caller's cap),
 * the power of ten that scales them, the first digit that did not fit (-1: none; it rounds)
 * and whether an exponent was written. */
struct decimal_parts { bool neg, exponent; uint64_t mant; int exp10; int first_dropped; };
/* Splits all of s[0..len) ([sign] digits [. digits] [e [sign] digits], a digit at least
 * before the exponent): false when it is not such a number. The exponent saturates near
 * 10^5, beyond any that a number which fits can have. */
bool decimal_split(const char *s, size_t len, uint64_t mant_cap, struct decimal_parts *d);

#endif
