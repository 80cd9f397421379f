#include "util/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t k = c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (!k || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* the second byte's range that is overlong, a surrogate or past U+10FFFF */
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return k;
}

bool utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; ) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_seq_len(s + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}
