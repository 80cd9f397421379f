/* The one UTF-8 validator (RFC 3629): a sequence is valid when it is the shortest form of a
 * code point up to U+10FFFF that is not a surrogate. Overlong forms (C0, C1, E0 80..9F,
 * F0 80..8F), surrogates (ED A0..BF), code points past U+10FFFF (F4 90.., F5..FF), stray
 * continuation bytes and sequences cut short by the end of the buffer are all invalid. */
#ifndef APTOP_UTIL_UTF8_H
#define APTOP_UTIL_UTF8_H
#include <stdbool.h>
#include <stddef.h>

/* Length (1 to 4) of the valid sequence at s, which has n >= 1 bytes left; 0 when invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n);
/* Whether all of s[0..n) is valid UTF-8 (true for n == 0). */
bool utf8_valid(const unsigned char *s, size_t n);

#endif
