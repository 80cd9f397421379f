#include "model/rowsets/escape.h"
#include "util/utf8.h"

#include <stdio.h>
#include <string.h>

/* Code points that must not reach a terminal raw although they are valid UTF-8: C1
 * controls (U+0080..U+009F, e.g. CSI) and the bidirectional overrides and isolates that
 * reorder what follows them (U+200E/F, U+202A..U+202E, U+2066..U+2069). */
uint32_t unsafe_code_point(const unsigned char *p, size_t n)
{
    uint32_t cp = n == 2 ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f)
                : n == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f)
                : 0;
    if ((cp >= 0x80 && cp < 0xa0) || cp == 0x200e || cp == 0x200f ||
        (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        return cp;
    return 0;
}

void text_escape(const char *s, size_t len, char *out, size_t size)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    if (!size)
        return;
    for (size_t i = 0; i < len && o + 8 < size; ) {
        unsigned char c = u[i];
        size_t n = utf8_seq_len(u + i, len - i);
        uint32_t bad = n > 1 ? unsafe_code_point(u + i, n) : 0;
        if (c == '\t' || c == '\n' || c == '\r') {
            out[o++] = '\\';
            out[o++] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
            i++;
        } else if (c < 0x20 || c == 0x7f || n == 0) {
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
            i++;
        } else if (bad) {
            o += (size_t)snprintf(out + o, size - o, "\\u%04x", (unsigned)bad);
            i += n;
        } else if (o + n < size) {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
        } else {
            break;
        }
    }
    out[o < size ? o : size - 1] = 0;
}

