/* Untrusted text (names, args, paths, CSV cells) made safe for a terminal: control bytes,
 * C1 controls, bidirectional overrides and invalid UTF-8 are written as visible escapes. */
#ifndef APTOP_ESCAPE_H
#define APTOP_ESCAPE_H
#include <stddef.h>
#include <stdint.h>

/* Escapes s[0..len) into out (always NUL-terminated, truncated to size): \t \n \r as such,
 * other C0 controls, DEL and invalid UTF-8 bytes as \xNN, C1 and bidi controls as \uNNNN. */
void text_escape(const char *s, size_t len, char *out, size_t size);
/* The code point of a valid 2- or 3-byte sequence when it must not reach a terminal raw
 * (C1 controls, bidi controls), else 0. */
uint32_t unsafe_code_point(const unsigned char *p, size_t n);

#endif
