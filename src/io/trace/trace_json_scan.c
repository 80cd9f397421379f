/* The trace reader's JSON scanner: exact decimal microseconds, strings, nested values and
 * one event's fields located without building a tree; field text decoded (escapes, UTF-8). */
#include "io/trace/trace_json.h"
#include "util/grow.h"
#include "io/trace/trace_json_internal.h"
#include "model/index/timeparse.h"
#include "util/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* --- exact decimal parsing --------------------------------------------------------------- */

/* The common shapes ("1736405443863674.400", "145.57", 12) without sign, exponent or more
 * than three decimals; -1 sends the rest to the general parser. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight ASCII digits (first digit in the lowest byte) as their value, or -1 when any is not
 * a digit: a few multiplies instead of eight dependent steps (timestamps have sixteen). */
static inline int64_t digits8(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    if (((w & 0xF0F0F0F0F0F0F0F0ULL) | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
        0x3333333333333333ULL)
        return -1;
    w -= 0x3030303030303030ULL;
    w = w * 10 + (w >> 8);
    w = ((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
         ((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >> 32;
    return (int64_t)w;
}
#endif

static int parse_us_fast(const char *s, size_t len, int64_t *ns)
{
    size_t i = 0;
    uint64_t v = 0, frac = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (int k = 0; k < 2 && i + 8 <= len; k++) {
        int64_t d = digits8(s + i);
        if (d < 0)
            break;
        v = v * 100000000u + (uint64_t)d;
        i += 8;
    }
#endif
    while (i < len && (unsigned)(s[i] - '0') < 10)
        v = v * 10 + (uint64_t)(s[i++] - '0');
    if (i == 0 || i > 16 || v > (uint64_t)INT64_MAX / 1000 - 1)
        return -1;
    int f = 0;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && f < 3 && (unsigned)(s[i] - '0') < 10) {
            frac = frac * 10 + (uint64_t)(s[i++] - '0');
            f++;
        }
    }
    if (i != len)
        return -1;
    for (; f < 3; f++)
        frac *= 10;
    *ns = (int64_t)(v * 1000 + frac);
    return 0;
}

int trace_json_parse_us(const char *s, size_t len, int64_t *ns)
{
    return parse_us_fast(s, len, ns) == 0 ? 0 : decimal_us_to_ns(s, len, ns);
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* High bit set in each byte of w that is a quote or a backslash (or, with high, non-ASCII).
 * The lowest flagged byte is always exact, which is the only one used. */
static inline uint64_t special(uint64_t w, bool high)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
    uint64_t m = ((q - ONES) & ~q) | ((b - ONES) & ~b);
    return (high ? m | w : m) & HIGHS;
}

/* Index just past the closing quote of the string starting at p[i] == '"', or 0 when the
 * buffer ends first. *flags (may be NULL) gets STR_ESC when it holds escapes and STR_HIGH
 * when it holds non-ASCII bytes. Scans sixteen bytes at a time with SSE2, else eight (portable C). */
size_t tj_scan_string(const char *p, size_t i, size_t n, unsigned *flags)
{
    size_t j = i + 1;
    unsigned f = 0;
    bool want_high = flags != NULL;
    for (;;) {
#if defined(__SSE2__)
        /* sixteen bytes at a time where SSE2 is there (every x86-64): the strings of call
         * stacks in args are hundreds of bytes long */
        if (j + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
            int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
            if (want_high && !(f & STR_HIGH))
                m |= _mm_movemask_epi8(v);   /* bytes with the high bit set */
            if (!m) {
                j += 16;
                continue;
            }
            j += (size_t)__builtin_ctz((unsigned)m);
        } else
#endif
        if (j + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + j, 8);
            uint64_t m = special(w, want_high && !(f & STR_HIGH));
            if (!m) {
                j += 8;
                continue;
            }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            j += (size_t)__builtin_ctzll(m) >> 3;
#endif
        } else if (j >= n) {
            return 0;
        }
        unsigned char c = (unsigned char)p[j];
        if (c == '"') {
            if (flags)
                *flags = f;
            return j + 1;
        }
        if (c == '\\') {
            f |= STR_ESC;
            j += 2;
        } else {
            if (c >= 0x80)
                f |= STR_HIGH;
            j++;
        }
    }
}

/* Most values are short plain strings ("X", "cpu_op", a timestamp): when the closing quote
 * comes within 32 bytes with no backslash or non-ASCII byte before it, the index just past
 * it, found without a call; else 0 (tj_scan_string decides). */
static inline size_t short_plain_string(const char *p, size_t i, size_t n)
{
#if defined(__SSE2__)
    if (i + 33 <= n) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 17));
        __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
        uint32_t q = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, quote))
                     | (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, quote)) << 16;
        uint32_t x = (uint32_t)(_mm_movemask_epi8(_mm_cmpeq_epi8(a, bs)) | _mm_movemask_epi8(a))
                     | (uint32_t)(_mm_movemask_epi8(_mm_cmpeq_epi8(b, bs)) | _mm_movemask_epi8(b)) << 16;
        if (q && !(x & ((q & -q) - 1)))
            return i + 2 + (size_t)__builtin_ctz(q);
    }
#else
    (void)p;
    (void)i;
    (void)n;
#endif
    return 0;
}

static const unsigned char nest_tab[256] = { ['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3 };

#if defined(__SSE2__)
#define NESTED_UNSURE SIZE_MAX

/* One bit per byte of the 16 at p that equals c. */
static inline uint64_t eq16(__m128i v, char c)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

/* Bits of the 64 bytes at p: quotes, backslashes, openers ('{' '['), closers ('}' ']'). */
static inline void classify64(const char *p, uint64_t *quote, uint64_t *bs, uint64_t *open, uint64_t *close)
{
    *quote = *bs = *open = *close = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        /* '[' ']' and '{' '}' differ from each other by 0x20: one compare covers both */
        __m128i low = _mm_andnot_si128(_mm_set1_epi8(0x20), v);
        *quote |= eq16(v, '"') << 16 * k;
        *bs |= eq16(v, '\\') << 16 * k;
        *open |= eq16(low, '[') << 16 * k;
        *close |= eq16(low, ']') << 16 * k;
    }
}

/* The bytes a backslash escapes among the 64 whose backslashes are bs; *carry: the first byte
 * is escaped (a backslash ended the block before), and is set for the next block. */
static inline uint64_t escaped64(uint64_t bs, uint64_t *carry)
{
    uint64_t esc = *carry;
    bs &= ~esc;   /* an escaped backslash escapes nothing */
    *carry = 0;
    while (bs) {
        unsigned k = (unsigned)__builtin_ctzll(bs);
        if (k == 63) {
            *carry = 1;
            break;
        }
        esc |= 2ULL << k;
        bs &= ~(3ULL << k);   /* this backslash, and the next byte when it is one */
    }
    return esc;
}

/* The bits from each quote up to (not including) the next: inside a string. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* tj_skip_nested 64 bytes at a time: the call stacks and shapes in args are long, and a
 * byte loop mispredicts at every string and bracket. Returns NESTED_UNSURE when the buffer
 * ends within 64 bytes of the value's end, or at a backslash outside a string (not JSON):
 * the byte loop then decides from the start. */
static size_t skip_nested_blocks(const char *p, size_t i, size_t n)
{
    uint64_t in_string = 0, esc_carry = 0;   /* in_string: all ones inside a string */
    uint64_t depth = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t quote, bs, open, close;
        __builtin_prefetch(p + i + PREFETCH_NESTED);   /* a hint: never a fault */
        classify64(p + i, &quote, &bs, &open, &close);
        uint64_t esc = bs || esc_carry ? escaped64(bs, &esc_carry) : 0;
        uint64_t str = prefix_xor(quote & ~esc) ^ in_string;
        in_string = (uint64_t)((int64_t)str >> 63);
        if (bs & ~str & ~esc)
            return NESTED_UNSURE;
        uint64_t nest = (open | close) & ~str;
        while (nest) {
            unsigned k = (unsigned)__builtin_ctzll(nest);
            depth += 2 * (open >> k & 1) - 1;   /* no branch on which of the two it is */
            if (depth == 0)
                return i + k + 1;
            nest &= nest - 1;
        }
    }
    return NESTED_UNSURE;
}
#endif

/* Index just past the object or array starting at p[i], or 0 when the buffer ends first.
 * Only strings and nesting are tracked: its contents are checked when parsed later. */
static size_t skip_nested_bytes(const char *p, size_t i, size_t n);

size_t tj_skip_nested(const char *p, size_t i, size_t n)
{
#if defined(__SSE2__)
    size_t end = skip_nested_blocks(p, i, n);
#ifdef APTOP_FUZZ_CHECKS
    /* the fuzzer holds both ways to the same answer */
    if (end != NESTED_UNSURE && end != skip_nested_bytes(p, i, n))
        abort();
#endif
    if (end != NESTED_UNSURE)
        return end;
#endif
    return skip_nested_bytes(p, i, n);
}

/* tj_skip_nested a byte at a time (near the end of the buffer, where no SSE2 is, and for
 * what is not JSON). */
static size_t skip_nested_bytes(const char *p, size_t i, size_t n)
{
    size_t depth = 0;
    while (i < n) {
        switch (nest_tab[(unsigned char)p[i]]) {
        case 0:
            i++;
            break;
        case 1: {
            size_t e = short_plain_string(p, i, n);
            i = e ? e : tj_scan_string(p, i, n, NULL);
            if (!i)
                return 0;
            break;
        }
        case 2:
            depth++;
            i++;
            break;
        default:
            i++;
            if (--depth == 0)
                return i;
            break;
        }
    }
    return 0;
}

/* A key of up to seven bytes is found by one multiply and one compare: its bytes as a word
 * (the first in the lowest byte), hashed into 32 slots where the known keys do not collide (a
 * collision breaks the build: -Woverride-init, and the unit tests hold that every key comes
 * back). A chain of tests on the length and the letters cost more in mispredicted branches
 * than the rest of the key. */
#define KEY_MUL 0x7ce42c8218072e8dULL
#define KEY_SLOT(w) ((unsigned)(((uint64_t)(w) * KEY_MUL) >> 59))
#define KW2(a, b) ((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b) << 8)
#define KW3(a, b, c) (KW2(a, b) | (uint64_t)(unsigned char)(c) << 16)
#define KW4(a, b, c, d) (KW3(a, b, c) | (uint64_t)(unsigned char)(d) << 24)
#define KEY(w, n, f) [KEY_SLOT(w)] = { (w), (n), (f) + 1 }
struct key_slot { uint64_t word; uint8_t len, field_plus1; };
static const struct key_slot key_slots[32] = {
    KEY(KW2('p', 'h'), 2, F_PH), KEY(KW2('t', 's'), 2, F_TS), KEY(KW2('i', 'd'), 2, F_ID),
    KEY(KW2('b', 'p'), 2, F_BP), KEY(KW3('p', 'i', 'd'), 3, F_PID), KEY(KW3('t', 'i', 'd'), 3, F_TID),
    KEY(KW3('d', 'u', 'r'), 3, F_DUR), KEY(KW3('c', 'a', 't'), 3, F_CAT),
    KEY(KW4('n', 'a', 'm', 'e'), 4, F_NAME), KEY(KW4('a', 'r', 'g', 's'), 4, F_ARGS),
};

/* The field of the key whose k < 8 bytes are the low bytes of w, or -1. */
static inline int short_key_field(uint64_t w, size_t k)
{
    w &= (1ULL << (8 * k)) - 1;
    const struct key_slot *e = &key_slots[KEY_SLOT(w)];
    return (e->word == w && e->len == k ? e->field_plus1 : 0) - 1;
}

/* The field of the key k[0..n) (without quotes), or -1: through the same table, its word
 * built byte by byte (any byte order), for the keys the word test above skips. */
static int key_field(const char *k, size_t n)
{
    if (n >= 8)
        return n == 11 && !memcmp(k, "processName", 11) ? F_PNAME : -1;
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)k[i] << 8 * i;
    return short_key_field(w, n);
}

#if !defined(__SSE2__)
/* Index of the first byte at or after i that is not a digit, looked for eight bytes at a time
 * (pids, tids and ids are long runs of digits); stops early near the end of the buffer. */
static inline size_t digits_end(const char *p, size_t i, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        /* a digit byte becomes 0x33; a carry out of a byte >= 0xFA only spoils the bytes
         * after it, and the first one that is not a digit is all that is used */
        uint64_t x = ((w & 0xF0F0F0F0F0F0F0F0ULL) | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4))
                     ^ 0x3333333333333333ULL;
        if (x)
            return i + ((size_t)__builtin_ctzll(x) >> 3);
        i += 8;
    }
#else
    (void)p;
    (void)n;
#endif
    return i;
}
#endif

static const unsigned char num_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1 };

/* Index of the first byte at or after i that cannot be part of a number (digits, sign, '.',
 * exponent), looked for sixteen bytes at a time with SSE2: a number's length then costs no
 * branch, where a byte loop mispredicts its exit on every number of another length. */
static inline size_t number_end(const char *p, size_t i, size_t n)
{
#if defined(__SSE2__)
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        /* '0'..'9' move to -128..-119, the lowest signed bytes */
        __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(128 - '0'))), _mm_set1_epi8(-118));
        __m128i e = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('e'));
        __m128i sign = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('+')));
        __m128i dot = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
        unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, e), _mm_or_si128(sign, dot))) & 0xFFFFu;
        if (m)
            return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
#else
    i = digits_end(p, i, n);
#endif
    while (i < n && num_tab[(unsigned char)p[i]])
        i++;
    return i;
}

#define SCAN_ERR(at, msg) do { ev->err_at = (at); ev->err = (msg); return -1; } while (0)
#define NEED() do { if (i >= n) return 0; } while (0)

/* Finds the end of the event object starting at p[0] == '{' and the spans of its top-level
 * fields. Returns its length, 0 when the buffer ends first, -1 on a syntax error. */
long tj_scan_event(const char *p, size_t n, struct ev *ev)
{
#pragma GCC unroll 16
    for (int k = 0; k < NF; k++)   /* only the types: cheaper than clearing every span */
        ev->f[k].type = 0;
    size_t i = skip_ws(p, 1, n);
    NEED();
    if (p[i] == '}')
        return (long)i + 1;
    int prev = NF;   /* the field of the key before (NF: none yet) */
    unsigned kind = 0, nkeys = 0;
    for (;;) {
        if (p[i] != '"')
            SCAN_ERR(i, "expected a key in double quotes");
        int field = -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* The key that came after the previous one last time, compared whole: the same bytes
         * read the same, and the place of the value then does not wait on finding where this
         * key ends (a chain of dependent loads through every key of every event). */
        const struct key_guess *g = prev >= 0 ? &ev->guess[kind][prev] : NULL;
        if (g && g->len && i + 9 <= n) {
            uint64_t w8;
            memcpy(&w8, p + i, 8);
            if ((w8 & g->mask) == g->word && (unsigned char)p[i + g->len] > ' ') {
#ifdef APTOP_FUZZ_CHECKS
                unsigned kf = 0;
                size_t ke = tj_scan_string(p, i, n, &kf), v = ke ? skip_ws(p, ke, n) : 0;
                if (!ke || v >= n || p[v] != ':' || skip_ws(p, v + 1, n) != i + g->len ||
                    (kf ? -1 : key_field(p + i + 1, ke - i - 2)) != g->field)
                    abort();
#endif
                i += g->len;
                field = g->field;
                goto value;
            }
        }
#endif
        size_t ks = i, ke = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* most keys end within eight bytes: one word test finds the closing quote */
        if (i + 9 <= n) {
            uint64_t w;
            memcpy(&w, p + i + 1, 8);
            uint64_t mk = special(w, false);
            size_t k = mk ? (size_t)__builtin_ctzll(mk) >> 3 : 8;
            if (k < 8 && p[i + 1 + k] == '"') {
                ke = i + 2 + k;
                field = short_key_field(w, k);
#ifdef APTOP_FUZZ_CHECKS
                if (field != key_field(p + i + 1, k))
                    abort();
#endif
            }
        }
#endif
        if (!ke) {
            unsigned kf = 0;
            ke = tj_scan_string(p, i, n, &kf);
            if (!ke)
                return 0;
            field = kf ? -1 : key_field(p + i + 1, ke - i - 2);
        }
        if (ke + 1 < n && p[ke] == ':' && (unsigned char)p[ke + 1] > ' ') {
            i = ke + 1;   /* the common `"key":value`, no blanks: one test */
        } else {
            i = skip_ws(p, ke, n);
            NEED();
            if (p[i] != ':')
                SCAN_ERR(i, "expected ':' after a key");
            i = skip_ws(p, i + 1, n);
            NEED();
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (prev >= 0 && i - ks <= 8 && ks + 8 <= n) {
            struct key_guess *lg = &ev->guess[kind][prev];
            uint64_t w8;
            memcpy(&w8, p + ks, 8);
            lg->len = (uint8_t)(i - ks);
            lg->mask = lg->len == 8 ? ~0ULL : (1ULL << (8 * lg->len)) - 1;
            lg->word = w8 & lg->mask;
            lg->field = (int8_t)field;
        }
    value:
#endif
        prev = field;
        size_t vs = i;
        struct span sp = { 0 };
        unsigned char c = (unsigned char)p[i];
        if (c == '"') {
            unsigned sf = 0;
            size_t e = short_plain_string(p, i, n);
            if (!e && !(e = tj_scan_string(p, i, n, &sf)))
                return 0;
            sp = (struct span){ (uint32_t)vs + 1, (uint32_t)e - 1, 's', (uint8_t)sf };
            i = e;
        } else if (c == '{' || c == '[') {
            size_t e = tj_skip_nested(p, i, n);
            if (!e)
                return 0;
            sp = (struct span){ (uint32_t)vs, (uint32_t)e, c == '{' ? 'o' : 'a', 0 };
            i = e;
        } else if (num_tab[c] && !(c == '-' && i + 1 < n && p[i + 1] == 'I')) {
#ifdef APTOP_FUZZ_CHECKS
            size_t plain = i;
            while (plain < n && num_tab[(unsigned char)p[plain]])
                plain++;
            if (number_end(p, i, n) != plain)
                abort();
#endif
            i = number_end(p, i, n);
            NEED();
            sp = (struct span){ (uint32_t)vs, (uint32_t)i, 'n', 0 };
        } else if (c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I' || c == '-') {
            /* NaN and Infinity: not JSON, but Python's json module writes them */
            const char *lit = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" :
                              c == 'N' ? "NaN" : c == 'I' ? "Infinity" : "-Infinity";
            size_t ll = strlen(lit);
            if (i + ll > n)
                return 0;
            if (memcmp(p + i, lit, ll))
                SCAN_ERR(i, "invalid literal");
            i += ll;
            sp = (struct span){ (uint32_t)vs, (uint32_t)i, 'l', 0 };
        } else {
            SCAN_ERR(i, "unexpected byte in a value");
        }
        if (field >= 0)
            ev->f[field] = sp;
        if (field == F_PH && sp.type == 's' && sp.b == sp.a + 1) {
            /* the keys that follow depend on the kind of event: guessed by it from here on */
            char ph = p[sp.a];
            kind = (ph == 'X' ? 1 : ph == 's' ? 2 : ph == 'f' ? 3 : ph == 't' ? 4 : 5) + (nkeys ? 5 : 0);
        }
        nkeys++;
        if (i + 1 < n && p[i] == ',' && p[i + 1] == '"') {
            i++;   /* likewise `value,"key"` */
            continue;
        }
        i = skip_ws(p, i, n);
        NEED();
        if (p[i] == '}')
            return (long)i + 1;
        if (p[i] != ',')
            SCAN_ERR(i, "expected ',' or '}' after a value");
        i = skip_ws(p, i + 1, n);
        NEED();
    }
}

/* --- strings ----------------------------------------------------------------------------- */

static bool reserve(struct rd *r, int k, size_t need)
{
    if (need <= r->scratch_cap[k])
        return true;
    char *nb = grow_array(r->scratch[k], &r->scratch_cap[k], need, 1);
    if (!nb)
        return false;
    r->scratch[k] = nb;
    return true;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int hex4(const char *s, uint32_t *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* The text of string field k: decoded when it holds escapes or invalid UTF-8 (replaced by
 * U+FFFD, reported once per file). Returns false on a bad escape. */
bool tj_field_text_decoded(struct rd *r, const char *ev, uint64_t ev_off, const struct span *sp, int k,
                           const char **out, size_t *len)
{
    const char *s = ev + sp->a;
    size_t n = sp->b - sp->a;
    if (!(sp->flags & STR_ESC)) {
        bool valid = true;
        for (size_t i = 0; (sp->flags & STR_HIGH) && i < n && valid;) {
            size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);
            valid = l > 0;
            i += l;
        }
        if (valid) {
            *out = s;
            *len = n;
            return true;
        }
    }
    if (!reserve(r, k, n * 3 + 4))
        return false;
    char *o = r->scratch[k];
    size_t w = 0;
    bool bad_utf8 = false;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') {
            if (i + 1 >= n)
                return false;
            char e = s[i + 1];
            i += 2;
            switch (e) {
            case '"': o[w++] = '"'; break;
            case '\\': o[w++] = '\\'; break;
            case '/': o[w++] = '/'; break;
            case 'b': o[w++] = '\b'; break;
            case 'f': o[w++] = '\f'; break;
            case 'n': o[w++] = '\n'; break;
            case 'r': o[w++] = '\r'; break;
            case 't': o[w++] = '\t'; break;
            case 'u': {
                uint32_t cp, lo;
                if (i + 4 > n || hex4(s + i, &cp) < 0)
                    return false;
                i += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' &&
                    hex4(s + i + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                    cp = 0xFFFD;   /* lone surrogate */
                }
                w += put_utf8(o + w, cp);
                break;
            }
            default:
                return false;
            }
        } else if (c < 0x80) {
            o[w++] = (char)c;
            i++;
        } else {
            size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);
            if (l) {
                memcpy(o + w, s + i, l);
                w += l;
                i += l;
            } else {
                w += put_utf8(o + w, 0xFFFD);
                i++;
                bad_utf8 = true;
            }
        }
    }
    if (bad_utf8 && !r->utf8_warned) {
        r->utf8_warned = true;
        char text[200];
        snprintf(text, sizeof text, "byte %llu: invalid UTF-8 in a string (shown as U+FFFD; "
                 "further cases in this file are not reported)", (unsigned long long)(ev_off + sp->a));
        if (r->second)
            tj_note_add(r, (struct note){ .kind = N_UTF8, .level = DIAG_WARN }, text);
        else
            diag_add(r->d, DIAG_WARN, r->path, "%s", text);
    }
    *out = o;
    *len = w;
    return true;
}

long tj_scan_value(const char *p, size_t n)
{
    unsigned char c = (unsigned char)p[0];
    size_t e;
    if (c == '"')
        e = tj_scan_string(p, 0, n, NULL);
    else if (c == '{' || c == '[')
        e = tj_skip_nested(p, 0, n);
    else if (num_tab[c] || c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I') {
        e = 0;
        while (e < n && (num_tab[(unsigned char)p[e]] || (p[e] >= 'a' && p[e] <= 'z') || (p[e] >= 'A' && p[e] <= 'Z')))
            e++;
        if (e == n)
            return 0;
    } else
        return -1;
    return (long)e;
}
