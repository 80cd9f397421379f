/* Streaming Chrome-trace reader: a scalar scanner over a chunk buffer, run by one thread or,
 * for large files, by two over the two halves (see "two parts" below). See trace_json.h. */
#include "io/trace_json.h"
#include "io/gz_stream.h"
#include "io/kineto.h"
#include "model/timeparse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_EVENT (64u << 20)   /* one event larger than this stops the file (bounded memory) */
#define MAX_WARN 20             /* per-event warnings per file before only counting */
#define MAX_BE_DEPTH 4096       /* open B events per lane */
#define LANE_CACHE 256

#define NO_SPLIT UINT64_MAX
#define SPLIT_WINDOW (1u << 20)   /* bytes searched at a time for an event boundary (the first
                                   * window is 1/16 of it: a boundary is usually near) */
#define SPLIT_SEARCH (16u << 20)  /* give up splitting when none is found this far */

static size_t chunk_size = 256u << 10;   /* stays in L2: the copy and the scan hit cache */
static uint64_t split_threshold = 32u << 20;
static uint64_t split_from = NO_SPLIT;
static _Thread_local int last_split;
static _Thread_local uint64_t last_split_at;

void trace_json_set_chunk_size(size_t bytes)
{
    chunk_size = bytes < 64 ? 64 : bytes;
}

void trace_json_set_split(uint64_t threshold, uint64_t from)
{
    split_threshold = threshold;
    split_from = from;
}

int trace_json_last_split(uint64_t *at)
{
    if (at)
        *at = last_split_at;
    return last_split;
}

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

/* --- the reader ------------------------------------------------------------------------- */

enum field { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_PNAME, F_ARGS, NF };

struct span {
    uint32_t a, b;    /* value bytes relative to the event start (strings: without quotes) */
    char type;        /* 0 absent, 's' string, 'n' number, 'l' literal, 'o' object, 'a' array */
    uint8_t flags;    /* strings: STR_ESC, STR_HIGH */
};

struct ev {
    struct span f[NF];
    size_t err_at;
    const char *err;
};

struct be_entry { ns_t ts; uint32_t name, cat; uint64_t off; uint32_t len; };
struct be_stack { struct be_entry *e; uint32_t n, cap; };

struct lane_slot { uint64_t hash; uint32_t lane; uint16_t plen, tlen; char key[48]; };
struct name_slot { const char *s; uint32_t len, id; };
#define NAME_CACHE 4096

/* A message of the second part, kept until the parts are merged: its place among the first
 * part's messages, the per-file warning limit and the event counts depend on what came before. */
enum note_kind { N_MSG, N_WARN, N_UTF8, N_COUNT, N_ORPHAN_E };
enum cnt { CNT_KEPT, CNT_COMPLETE, CNT_READ };
struct note {
    uint8_t kind, level, cnt;
    uint32_t lane, slice;   /* N_ORPHAN_E: lane and placeholder slice in the second part's model */
    ns_t ts;                /* N_ORPHAN_E: time of the E */
    uint64_t at, count;     /* N_COUNT: position and events of the part before it; N_ORPHAN_E: position */
    char *text;
};

enum state { S_START, S_ITEM, S_NEXT, S_OBJ_KEY, S_OBJ_COLON, S_OBJ_VALUE, S_OBJ_NEXT, S_DONE };
struct split;

struct rd {
    struct model *m;
    struct diag *d;
    const char *path;
    uint32_t file;
    struct load_progress *p;
    int fd;                       /* -1: reading from mem */
    struct gz_stream *gz;         /* gzip input: bytes come decompressed from its thread */
    const char *mem;
    size_t memlen;
    char *buf;
    size_t cap, len, pos;         /* buf holds file bytes [base, base + len) */
    uint64_t base, size;
    bool eof, cancelled;
    uint64_t nevents;
    unsigned warns;
    uint64_t warns_dropped;
    bool utf8_warned;
    char *scratch[NF];            /* decoded strings, one buffer per field */
    size_t scratch_cap[NF];
    struct lane_slot cache[LANE_CACHE];
    struct name_slot names[NAME_CACHE];
    struct be_stack *be;
    uint32_t nbe;
    ns_t last_ts;
    /* where the reading loop is (kept so that a stopped first part can read on) */
    enum state st;
    bool started, closed, first_item, events_key, saw_events, broke;
    /* two parts: the first stops after the event ending at stop_at and reads no further than
     * read_end; the second keeps its messages in notes and records E events without a B */
    uint64_t start_off, stop_at, read_end;
    bool reached, second;
    int part;
    struct split *sp;
    struct note *notes;
    size_t nnotes, notes_cap;
    unsigned note_warns;
    uint32_t be_max;              /* deepest B stack met (second part) */
    uint64_t gz_hint;             /* gzip input: decompressed size from its trailer, 0 unknown */
    enum kineto_key top_key;      /* the object form's key whose value comes next */
    struct kineto_meta kt;        /* Kineto top-level values met */
};

static const unsigned char ws_tab[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };

static inline size_t skip_ws(const char *p, size_t i, size_t n)
{
    if (i < n && (unsigned char)p[i] > ' ')
        return i;
    while (i < n && ws_tab[(unsigned char)p[i]])
        i++;
    return i;
}

static void note_add(struct rd *r, struct note n, const char *text)
{
    if (r->nnotes == r->notes_cap) {
        size_t cap = r->notes_cap ? r->notes_cap * 2 : 32;
        struct note *nn = realloc(r->notes, cap * sizeof *nn);
        if (!nn)
            return;
        r->notes = nn;
        r->notes_cap = cap;
    }
    n.text = text ? strdup(text) : NULL;
    r->notes[r->nnotes++] = n;
}

/* A message about the file: to the diag list, or kept in order by a second part. */
__attribute__((format(printf, 3, 4)))
static void say(struct rd *r, enum diag_level level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->second)
        note_add(r, (struct note){ .kind = N_MSG, .level = (uint8_t)level }, msg);
    else
        diag_add(r->d, level, r->path, "%s", msg);
}

static void emit_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c, uint64_t n)
{
    unsigned long long a = at, k = n;
    if (c == CNT_KEPT)
        diag_add(r->d, level, r->path, "byte %llu: %s (%llu events before it kept)", a, body, k);
    else if (c == CNT_COMPLETE)
        diag_add(r->d, level, r->path, "byte %llu: %s%llu complete events before it kept", a, body, k);
    else
        diag_add(r->d, level, r->path, "byte %llu: %s%llu events read", a, body, k);
}

/* A message ending with the number of events read before it (of the whole file). */
static void say_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c)
{
    if (r->second)
        note_add(r, (struct note){ .kind = N_COUNT, .level = (uint8_t)level, .cnt = (uint8_t)c, .at = at,
                                   .count = r->nevents }, body);
    else
        emit_count(r, level, at, body, c, r->nevents);
}

/* A per-event warning: the first MAX_WARN of the file are shown, the rest counted. */
static void warn_text(struct rd *r, const char *text)
{
    if (r->second) {
        /* past MAX_WARN of its own, none of this part's warnings can be shown */
        if (r->note_warns >= MAX_WARN) {
            r->warns_dropped++;
            return;
        }
        r->note_warns++;
        note_add(r, (struct note){ .kind = N_WARN, .level = DIAG_WARN }, text);
        return;
    }
    if (r->warns >= MAX_WARN) {
        r->warns_dropped++;
        return;
    }
    r->warns++;
    diag_add(r->d, DIAG_WARN, r->path, "%s", text);
}

static void warn_event(struct rd *r, uint64_t at, const char *fmt, const char *what)
{
    if (!r->second && r->warns >= MAX_WARN) {
        r->warns_dropped++;
        return;
    }
    char msg[200], text[240];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(text, sizeof text, "byte %llu: %s", (unsigned long long)at, msg);
    warn_text(r, text);
}

enum { STR_ESC = 1, STR_HIGH = 2 };

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
 * when it holds non-ASCII bytes. Scans eight bytes at a time (portable C). */
static size_t scan_string(const char *p, size_t i, size_t n, unsigned *flags)
{
    size_t j = i + 1;
    unsigned f = 0;
    bool want_high = flags != NULL;
    for (;;) {
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

static const unsigned char nest_tab[256] = { ['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3 };

/* Index just past the object or array starting at p[i], or 0 when the buffer ends first.
 * Only strings and nesting are tracked: its contents are checked when parsed later. */
static size_t skip_nested(const char *p, size_t i, size_t n)
{
    size_t depth = 0;
    while (i < n) {
        switch (nest_tab[(unsigned char)p[i]]) {
        case 0:
            i++;
            break;
        case 1:
            i = scan_string(p, i, n, NULL);
            if (!i)
                return 0;
            break;
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

static int key_field(const char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return F_PH;
        if (k[0] == 't' && k[1] == 's') return F_TS;
        if (k[0] == 'i' && k[1] == 'd') return F_ID;
        if (k[0] == 'b' && k[1] == 'p') return F_BP;
        break;
    case 3:
        if (!memcmp(k, "pid", 3)) return F_PID;
        if (!memcmp(k, "tid", 3)) return F_TID;
        if (!memcmp(k, "dur", 3)) return F_DUR;
        if (!memcmp(k, "cat", 3)) return F_CAT;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return F_NAME;
        if (!memcmp(k, "args", 4)) return F_ARGS;
        break;
    case 11:
        if (!memcmp(k, "processName", 11)) return F_PNAME;
        break;
    }
    return -1;
}

static const unsigned char num_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1 };

#define SCAN_ERR(at, msg) do { ev->err_at = (at); ev->err = (msg); return -1; } while (0)
#define NEED() do { if (i >= n) return 0; } while (0)

/* Finds the end of the event object starting at p[0] == '{' and the spans of its top-level
 * fields. Returns its length, 0 when the buffer ends first, -1 on a syntax error. */
static long scan_event(const char *p, size_t n, struct ev *ev)
{
    for (int k = 0; k < NF; k++)   /* only the types: cheaper than clearing every span */
        ev->f[k].type = 0;
    size_t i = skip_ws(p, 1, n);
    NEED();
    if (p[i] == '}')
        return (long)i + 1;
    for (;;) {
        if (p[i] != '"')
            SCAN_ERR(i, "expected a key in double quotes");
        size_t ke = 0;
        int field = -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* most keys end within eight bytes: one word test finds the closing quote */
        if (i + 9 <= n) {
            uint64_t w;
            memcpy(&w, p + i + 1, 8);
            uint64_t mk = special(w, false);
            size_t k = mk ? (size_t)__builtin_ctzll(mk) >> 3 : 8;
            if (k < 8 && p[i + 1 + k] == '"') {
                ke = i + 2 + k;
                field = key_field(p + i + 1, k);
            }
        }
#endif
        if (!ke) {
            unsigned kf = 0;
            ke = scan_string(p, i, n, &kf);
            if (!ke)
                return 0;
            field = kf ? -1 : key_field(p + i + 1, ke - i - 2);
        }
        i = skip_ws(p, ke, n);
        NEED();
        if (p[i] != ':')
            SCAN_ERR(i, "expected ':' after a key");
        i = skip_ws(p, i + 1, n);
        NEED();
        size_t vs = i;
        struct span sp = { 0 };
        unsigned char c = (unsigned char)p[i];
        if (c == '"') {
            unsigned sf = 0;
            size_t e = scan_string(p, i, n, &sf);
            if (!e)
                return 0;
            sp = (struct span){ (uint32_t)vs + 1, (uint32_t)e - 1, 's', (uint8_t)sf };
            i = e;
        } else if (c == '{' || c == '[') {
            size_t e = skip_nested(p, i, n);
            if (!e)
                return 0;
            sp = (struct span){ (uint32_t)vs, (uint32_t)e, c == '{' ? 'o' : 'a', 0 };
            i = e;
        } else if (num_tab[c] && !(c == '-' && i + 1 < n && p[i + 1] == 'I')) {
            while (i < n && num_tab[(unsigned char)p[i]])
                i++;
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
    size_t cap = r->scratch_cap[k] ? r->scratch_cap[k] : 256;
    while (cap < need)
        cap *= 2;
    char *nb = realloc(r->scratch[k], cap);
    if (!nb)
        return false;
    r->scratch[k] = nb;
    r->scratch_cap[k] = cap;
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

/* Length of a valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;
        if (c == 0xED && s[1] > 0x9F) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;
        if (c == 0xF4 && s[1] > 0x8F) return 0;
        return 4;
    }
    return 0;
}

/* The text of string field k: decoded when it holds escapes or invalid UTF-8 (replaced by
 * U+FFFD, reported once per file). Returns false on a bad escape. */
static bool field_text(struct rd *r, const char *ev, uint64_t ev_off, const struct span *sp, int k,
                       const char **out, size_t *len)
{
    const char *s = ev + sp->a;
    size_t n = sp->b - sp->a;
    if (!(sp->flags & STR_ESC)) {
        bool valid = true;
        for (size_t i = 0; (sp->flags & STR_HIGH) && i < n && valid;) {
            size_t l = utf8_len((const unsigned char *)s + i, n - i);
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
            size_t l = utf8_len((const unsigned char *)s + i, n - i);
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
            note_add(r, (struct note){ .kind = N_UTF8, .level = DIAG_WARN }, text);
        else
            diag_add(r->d, DIAG_WARN, r->path, "%s", text);
    }
    *out = o;
    *len = w;
    return true;
}

/* --- events -------------------------------------------------------------------------------- */

/* pid / tid: a number's text as written, a string's content, "" when absent. */
static bool key_text(struct rd *r, const char *e, uint64_t off, const struct span *sp, int k,
                     const char **s, size_t *n)
{
    if (!sp->type) {
        *s = "";
        *n = 0;
        return true;
    }
    if (sp->type == 'n') {
        *s = e + sp->a;
        *n = sp->b - sp->a;
        return true;
    }
    if (sp->type == 's')
        return field_text(r, e, off, sp, k, s, n);
    return false;
}

static bool num_field(struct rd *r, const char *e, uint64_t off, const struct span *sp, int k, ns_t *v)
{
    const char *s;
    size_t n;
    if (sp->type == 'n')
        return trace_json_parse_us(e + sp->a, sp->b - sp->a, v) == 0;
    if (sp->type == 's' && field_text(r, e, off, sp, k, &s, &n))
        return trace_json_parse_us(s, n, v) == 0;
    return false;
}

/* A cheap hash of a short string: its length and first and last 8 bytes (the caches that use
 * it compare the whole string on a hit). */
static uint64_t quick_hash(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    /* fixed-size loads only (first and last bytes, overlapping): a copy of n bytes into a
     * word stalled the load that followed it */
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = (uint64_t)x << 32 | y;
    } else if (n) {
        a = (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1];
    }
    uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (uint64_t)n;
    return h ^ (h >> 29);
}

/* Interns through a direct-mapped cache: names repeat (kernels, ops), hashing them fully
 * for every event was a visible cost. */
static uint32_t intern_fast(struct rd *r, const char *s, size_t n)
{
    struct name_slot *c = &r->names[quick_hash(s, n) & (NAME_CACHE - 1)];
    if (c->s && c->len == n && !memcmp(c->s, s, n))
        return c->id;
    uint32_t id = strtab_intern(r->m->str, s, n);
    if (id == UINT32_MAX) {
        r->m->oom = true;
        return 0;
    }
    c->s = strtab_get(r->m->str, id);
    c->len = (uint32_t)n;
    c->id = id;
    return id;
}

static uint32_t lane_for(struct rd *r, const char *pid, size_t pl, const char *tid, size_t tl)
{
    uint64_t h = quick_hash(pid, pl) * 31 + quick_hash(tid, tl);
    struct lane_slot *c = &r->cache[(h ^ h >> 29) & (LANE_CACHE - 1)];
    if (c->hash == h && c->plen == pl && c->tlen == tl && pl + tl <= sizeof c->key &&
        !memcmp(c->key, pid, pl) && !memcmp(c->key + pl, tid, tl))
        return c->lane;
    uint32_t lane = model_lane(r->m, pid, pl, tid, tl);
    if (pl + tl <= sizeof c->key) {
        c->hash = h;
        c->plen = (uint16_t)pl;
        c->tlen = (uint16_t)tl;
        memcpy(c->key, pid, pl);
        memcpy(c->key + pl, tid, tl);
        c->lane = lane;
    }
    return lane;
}

static cJSON *parse_args(const char *e, const struct span *sp)
{
    if (sp->type != 'o')
        return NULL;
    const char *end = NULL;
    return cJSON_ParseWithLengthOpts(e + sp->a, sp->b - sp->a, &end, 0);
}

static int64_t d2i(double v)
{
    if (!(v == v))
        return INT64_MAX;
    if (v >= 9.2e18)
        return INT64_MAX;
    if (v <= -9.2e18)
        return INT64_MIN;
    return (int64_t)v;
}

static void handle_meta(struct rd *r, const char *e, uint64_t off, const struct ev *ev,
                        const char *pid, size_t pl, const char *tid, size_t tl)
{
    const char *name;
    size_t nl;
    if (ev->f[F_NAME].type != 's' || !field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl))
        return;
    cJSON *args = parse_args(e, &ev->f[F_ARGS]);
    if (!args) {
        warn_event(r, off, "metadata event %s without a readable args object", "");
        return;
    }
    cJSON *v;
    struct model *m = r->m;
    if (nl == 12 && !memcmp(name, "process_name", 12)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "name")))
            model_set_process_name(m, model_proc(m, pid, pl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 14 && !memcmp(name, "process_labels", 14)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "labels")))
            model_set_process_labels(m, model_proc(m, pid, pl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 18 && !memcmp(name, "process_sort_index", 18)) {
        if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(args, "sort_index")))
            model_set_process_sort(m, model_proc(m, pid, pl), d2i(v->valuedouble));
    } else if (nl == 11 && !memcmp(name, "thread_name", 11)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "name")))
            model_set_thread_name(m, lane_for(r, pid, pl, tid, tl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 17 && !memcmp(name, "thread_sort_index", 17)) {
        if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(args, "sort_index")))
            model_set_thread_sort(m, lane_for(r, pid, pl, tid, tl), d2i(v->valuedouble));
    }
    cJSON_Delete(args);
}

static void handle_counter(struct rd *r, const char *e, uint64_t off, const struct ev *ev,
                           const char *pid, size_t pl, ns_t ts)
{
    const char *name = "", *pn;
    size_t nl = 0, pnl;
    if (ev->f[F_NAME].type == 's' && !field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl))
        return;
    uint32_t proc = model_proc(r->m, pid, pl);
    if (ev->f[F_PNAME].type == 's' && field_text(r, e, off, &ev->f[F_PNAME], F_PNAME, &pn, &pnl))
        model_set_process_name_weak(r->m, proc, pn, pnl);
    cJSON *args = parse_args(e, &ev->f[F_ARGS]), *it;
    if (!args) {
        warn_event(r, off, "counter event without a readable args object%s", "");
        return;
    }
    int nnum = 0;
    cJSON_ArrayForEach(it, args)
        nnum += cJSON_IsNumber(it) && it->string;
    char series[512];
    cJSON_ArrayForEach(it, args) {
        if (!cJSON_IsNumber(it) || !it->string)
            continue;
        if (nnum == 1) {
            model_add_counter(r->m, proc, name, nl, ts, it->valuedouble);
        } else {
            int k = snprintf(series, sizeof series, "%.*s/%s", (int)(nl > 255 ? 255 : nl), name, it->string);
            model_add_counter(r->m, proc, series, k < 0 ? 0 : (size_t)k >= sizeof series ? sizeof series - 1 : (size_t)k,
                              ts, it->valuedouble);
        }
    }
    cJSON_Delete(args);
}

/* A flow id: a canonical unsigned decimal (number or string) is kept as a number, anything
 * else as interned text, so "123" and 123 pair like they do in the file's producer. */
static bool flow_id(struct rd *r, const char *e, uint64_t off, const struct span *sp, uint64_t *id, bool *is_str)
{
    const char *s;
    size_t n;
    if (sp->type == 'n') {
        s = e + sp->a;
        n = sp->b - sp->a;
    } else if (sp->type != 's' || !field_text(r, e, off, sp, F_ID, &s, &n)) {
        return false;
    }
    bool canon = n >= 1 && n <= 20 && (n == 1 || s[0] != '0');
    uint64_t v = 0;
    for (size_t i = 0; canon && i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            canon = false;
        else
            v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (canon) {
        *id = v;
        *is_str = false;
    } else {
        *id = intern_fast(r, s, n);
        *is_str = true;
    }
    return true;
}

/* name == cat followed by the decimal text of id (no leading zeros) */
static bool name_is_cat_id(const char *name, size_t nl, const char *cat, size_t cl, uint64_t id)
{
    if (nl <= cl || nl - cl > 20 || memcmp(name, cat, cl) || (name[cl] == '0' && nl - cl > 1))
        return false;
    uint64_t v = 0;
    for (size_t i = cl; i < nl; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    return v == id;
}

/* b - a, 0 when negative, saturated (hostile times must not overflow) */
static ns_t span_ns(ns_t a, ns_t b)
{
    if (b <= a)
        return 0;
    uint64_t d = (uint64_t)b - (uint64_t)a;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (ns_t)d;
}

static struct be_stack *be_of(struct rd *r, uint32_t lane)
{
    if (lane >= r->nbe) {
        uint32_t n = lane + 16;
        struct be_stack *nb = realloc(r->be, n * sizeof *nb);
        if (!nb)
            return NULL;
        memset(nb + r->nbe, 0, (n - r->nbe) * sizeof *nb);
        r->be = nb;
        r->nbe = n;
    }
    return &r->be[lane];
}

static bool be_push(struct be_stack *st, struct be_entry e)
{
    if (!st)
        return false;
    if (st->n == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 16;
        struct be_entry *ne = realloc(st->e, cap * sizeof *ne);
        if (!ne)
            return false;
        st->e = ne;
        st->cap = cap;
    }
    st->e[st->n++] = e;
    return true;
}

static void handle_event(struct rd *r, const char *e, uint32_t elen, uint64_t off, const struct ev *ev)
{
    struct model *m = r->m;
    const char *s, *pid, *tid, *name = "", *cat = "";
    size_t n, pl, tl, nl = 0, cl = 0;
    char ph = '?';
    r->nevents++;
    if (ev->f[F_PH].type == 's' && field_text(r, e, off, &ev->f[F_PH], F_PH, &s, &n) && n == 1)
        ph = s[0];
    model_count_event(m, ph);
    switch (ph) {
    case 'X': case 'B': case 'E': case 'M': case 's': case 't': case 'f': case 'C':
        break;
    case 'i': case 'I':
        /* Kineto's host instants ([memory] and the like) are kept as zero-length slices */
        if (ev->f[F_CAT].type == 's' && field_text(r, e, off, &ev->f[F_CAT], F_CAT, &s, &n) &&
            kineto_is_instant_slice(s, n))
            break;
        m->unknown_ph++;
        return;
    default:
        m->unknown_ph++;
        return;
    }
    if (!key_text(r, e, off, &ev->f[F_PID], F_PID, &pid, &pl) || !key_text(r, e, off, &ev->f[F_TID], F_TID, &tid, &tl)) {
        warn_event(r, off, "event skipped: %s is neither a number nor a string", "pid or tid");
        return;
    }
    if (ph == 'M') {
        handle_meta(r, e, off, ev, pid, pl, tid, tl);
        return;
    }
    ns_t ts = 0, dur = 0;
    if (!num_field(r, e, off, &ev->f[F_TS], F_TS, &ts)) {
        warn_event(r, off, "event skipped: %s", ev->f[F_TS].type ? "ts is not a number" : "no ts");
        return;
    }
    if (ev->f[F_DUR].type && !num_field(r, e, off, &ev->f[F_DUR], F_DUR, &dur)) {
        warn_event(r, off, "event skipped: %s", "dur is not a number");
        return;
    }
    if (dur < 0) {
        warn_event(r, off, "negative dur set to 0%s", "");
        dur = 0;
    }
    if (ts > r->last_ts)
        r->last_ts = ts;
    if (dur > 0 && ts <= INT64_MAX - dur && ts + dur > r->last_ts)
        r->last_ts = ts + dur;
    if (ph == 'C') {
        handle_counter(r, e, off, ev, pid, pl, ts);
        return;
    }
    if ((ev->f[F_NAME].type == 's' && !field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl)) ||
        (ev->f[F_CAT].type == 's' && !field_text(r, e, off, &ev->f[F_CAT], F_CAT, &cat, &cl))) {
        warn_event(r, off, "event skipped: %s", "bad escape in name or cat");
        return;
    }
    uint32_t lane;
    if (cl == 19 && kineto_is_gpu_annotation(cat, cl) && pl < 64) {
        /* GPU-side annotations span the kernels of their stream: a lane of their own, so
         * that they are neither kernels nor device busy time */
        char key[64 + sizeof KINETO_ANNOT_PREFIX];
        memcpy(key, KINETO_ANNOT_PREFIX, sizeof KINETO_ANNOT_PREFIX - 1);
        memcpy(key + sizeof KINETO_ANNOT_PREFIX - 1, pid, pl);
        lane = model_lane(m, key, sizeof KINETO_ANNOT_PREFIX - 1 + pl, tid, tl);
    } else {
        lane = lane_for(r, pid, pl, tid, tl);
    }
    uint32_t alen = ev->f[F_ARGS].type == 'o' ? elen : 0;
    switch (ph) {
    case 'i': case 'I':
        model_add_slice_ids(m, lane, ts, 0, intern_fast(r, name, nl), intern_fast(r, cat, cl), r->file, off, alen);
        break;
    case 'X':
        model_add_slice_ids(m, lane, ts, dur, intern_fast(r, name, nl), intern_fast(r, cat, cl), r->file, off, alen);
        break;
    case 'B': {
        struct be_stack *st = be_of(r, lane);
        if (st && st->n + 1 > r->be_max)
            r->be_max = st->n + 1;
        if (!st || st->n >= MAX_BE_DEPTH) {
            warn_event(r, off, "B event skipped: %s", "too many open B events on its thread");
            break;
        }
        be_push(st, (struct be_entry){ ts, intern_fast(r, name, nl), intern_fast(r, cat, cl), off, alen });
        break;
    }
    case 'E': {
        struct be_stack *st = be_of(r, lane);
        if ((!st || !st->n) && r->second) {
            /* its B may be open in the first part: a slice in its place, settled at the merge */
            uint32_t at = model_add_slice_ids(m, lane, ts, 0, 0, 0, r->file, off, 0);
            note_add(r, (struct note){ .kind = N_ORPHAN_E, .lane = lane, .slice = at, .ts = ts, .at = off }, NULL);
            break;
        }
        if (!st || !st->n) {
            warn_event(r, off, "E event without a matching B on its thread%s", "");
            break;
        }
        struct be_entry b = st->e[--st->n];
        model_add_slice_ids(m, lane, b.ts, span_ns(b.ts, ts), b.name, b.cat, r->file, b.off, b.len);
        break;
    }
    default: {
        uint64_t id;
        bool is_str;
        if (!flow_id(r, e, off, &ev->f[F_ID], &id, &is_str)) {
            warn_event(r, off, "flow event skipped: %s", "no usable id");
            break;
        }
        const char *bp = "";
        size_t bl = 0;
        if (ev->f[F_BP].type == 's')
            field_text(r, e, off, &ev->f[F_BP], F_BP, &bp, &bl);
        /* "HostToDevice936" with cat "HostToDevice" and id 936 is stored as the category
         * alone: unique per flow, such names would fill the string table */
        uint32_t cid = intern_fast(r, cat, cl), nid;
        if (!is_str && name_is_cat_id(name, nl, cat, cl, id))
            nid = cid;
        else
            nid = intern_fast(r, name, nl);
        model_add_flow_point_ids(m, lane, (enum flow_ph)ph, ts, cid, nid, id, is_str, bl == 1 && bp[0] == 'e');
        break;
    }
    }
}

/* --- reading ------------------------------------------------------------------------------ */

/* Two parts read at once: the second from a guessed event boundary near the middle into its
 * own model, the first into the caller's model until it ends an event exactly there. */
struct split {
    pthread_t thread;
    bool running;
    struct rd *r2;
    struct model *m2;
    uint64_t end, start;          /* the first part ends at end; the second starts at start */
    _Atomic bool abort;           /* the guess was wrong: the second part stops */
    _Atomic bool live;            /* both parts count towards progress */
    _Atomic uint64_t done[2], events[2];
};

static void progress_max(_Atomic uint64_t *v, uint64_t x)
{
    uint64_t cur = atomic_load_explicit(v, memory_order_relaxed);
    while (cur < x && !atomic_compare_exchange_weak_explicit(v, &cur, x, memory_order_relaxed, memory_order_relaxed))
        ;
}

static void report(struct rd *r)
{
    if (!r->p)
        return;
    uint64_t done = r->gz ? gz_stream_in_done(r->gz) : r->base + r->len, ev = r->nevents;
    struct split *sp = r->sp;
    if (!sp) {
        atomic_store_explicit(&r->p->bytes_done, done, memory_order_relaxed);
        atomic_store_explicit(&r->p->events, ev, memory_order_relaxed);
        return;
    }
    if (atomic_load_explicit(&sp->live, memory_order_relaxed)) {
        atomic_store_explicit(&sp->done[r->part], done - r->start_off, memory_order_relaxed);
        atomic_store_explicit(&sp->events[r->part], ev, memory_order_relaxed);
        done = atomic_load_explicit(&sp->done[0], memory_order_relaxed) +
               atomic_load_explicit(&sp->done[1], memory_order_relaxed);
        ev = atomic_load_explicit(&sp->events[0], memory_order_relaxed) +
             atomic_load_explicit(&sp->events[1], memory_order_relaxed);
    }
    progress_max(&r->p->bytes_done, done);
    progress_max(&r->p->events, ev);
}

static void split_abandon(struct split *sp);
static void run(struct rd *r);

/* The first part needs bytes past the guessed boundary, or passed it: the guess was wrong.
 * It reads on alone, as if no split had been tried. */
static void split_fail(struct rd *r)
{
    r->stop_at = NO_SPLIT;
    r->read_end = UINT64_MAX;
    if (r->sp)
        split_abandon(r->sp);
}

/* Moves the unread tail to the front and reads the next chunk. Returns -1 when reading
 * failed (reported), -2 when one item would outgrow MAX_EVENT. */
static int fill(struct rd *r)
{
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->base += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    uint64_t have = r->base + r->len;
    if (r->stop_at != NO_SPLIT && have >= r->read_end)
        split_fail(r);
    /* small inputs get a small buffer (the fuzzer loads thousands per second) */
    size_t want = chunk_size;
    if (r->gz) {
        /* the decompressed size is not known in advance */
    } else if (r->stop_at != NO_SPLIT) {
        if (r->read_end - have < want)
            want = (size_t)(r->read_end - have);
    } else {
        uint64_t left = r->size > have ? r->size - have : 0;
        if (left + 64 < want)
            want = (size_t)left + 64;
    }
    if (r->cap - r->len < want) {
        if (r->len > MAX_EVENT)
            return -2;
        size_t cap = r->cap ? r->cap : want;
        while (cap - r->len < want)
            cap *= 2;
        char *nb = realloc(r->buf, cap + 1);
        if (!nb) {
            say(r, DIAG_ERROR, "byte %llu: out of memory", (unsigned long long)r->base);
            return -1;
        }
        r->buf = nb;
        r->cap = cap;
    }
    if (r->gz) {
        size_t k = gz_stream_read(r->gz, r->buf + r->len, want);
        if (k == 0)
            r->eof = true;
        r->len += k;
    } else if (r->fd >= 0) {
        ssize_t k;
        do
            k = pread(r->fd, r->buf + r->len, want, (off_t)have);
        while (k < 0 && errno == EINTR);
        if (k < 0) {
            say(r, DIAG_ERROR, "byte %llu: read failed: %s", (unsigned long long)have, strerror(errno));
            r->eof = true;
            return -1;
        }
        if (k == 0)
            r->eof = true;
        r->len += (size_t)k;
    } else {
        size_t k = r->memlen - have < want ? (size_t)(r->memlen - have) : want;
        if (k)
            memcpy(r->buf + r->len, r->mem + have, k);
        r->len += k;
        if (have + k == r->memlen)
            r->eof = true;
    }
    report(r);
    if (progress_cancelled(r->p) || (r->second && atomic_load_explicit(&r->sp->abort, memory_order_relaxed)))
        r->cancelled = true;
    return 0;
}

static long scan_value(const char *p, size_t n)
{
    unsigned char c = (unsigned char)p[0];
    size_t e;
    if (c == '"')
        e = scan_string(p, 0, n, NULL);
    else if (c == '{' || c == '[')
        e = skip_nested(p, 0, n);
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

enum item { IT_EVENT, IT_VALUE, IT_KEY };

/* Scans the item at pos, reading more until it is complete. Returns its length, 0 when the
 * file ends inside it, -1 on a syntax error (ev->err set), -2 when it is too large,
 * -3 when cancelled or reading failed. */
static long take(struct rd *r, enum item what, struct ev *ev)
{
    for (;;) {
        const char *p = r->buf + r->pos;
        size_t n = r->len - r->pos;
        long res;
        if (what == IT_EVENT) {
            res = scan_event(p, n, ev);
        } else if (what == IT_VALUE) {
            res = scan_value(p, n);
            if (res < 0) {
                ev->err_at = 0;
                ev->err = "unexpected byte";
            }
        } else {
            res = (long)scan_string(p, 0, n, NULL);
        }
        if (res != 0)
            return res;
        if (r->eof)
            return 0;
        int f = fill(r);
        if (f == -2)
            return -2;
        if (f < 0 || r->cancelled)
            return -3;
    }
}

static void describe(char *out, size_t size, unsigned char c)
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(out, size, "'%c'", c);
    else
        snprintf(out, size, "byte 0x%02x", c);
}

/* Reads items until the file ends, reading stops, or (first part) the event ending at stop_at
 * has been read (r->reached). The state stays in r: a first part can be run again to read on. */
static void run(struct rd *r)
{
    struct ev ev;
    char what[32];
    if (!r->started) {
        r->started = true;
        if (fill(r) < 0) {
            r->broke = true;
            return;
        }
    }
    for (;;) {
        if (r->cancelled) {
            say(r, DIAG_INFO, "byte %llu: reading cancelled", (unsigned long long)(r->base + r->pos));
            r->broke = true;
            break;
        }
        r->pos = skip_ws(r->buf, r->pos, r->len);
        if (r->pos >= r->len) {
            if (r->eof)
                break;
            if (fill(r) < 0)
                break;
            continue;
        }
        unsigned char c = (unsigned char)r->buf[r->pos];
        uint64_t at = r->base + r->pos;
        if (at > r->stop_at)
            split_fail(r);
        if (r->st == S_START) {
            if (at == 0 && c == 0xEF && r->len - r->pos >= 3 && !memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3)) {
                r->pos += 3;
                continue;
            }
            if (c == '[') {
                r->st = S_ITEM;
            } else if (c == '{') {
                r->st = S_OBJ_KEY;
            } else {
                describe(what, sizeof what, c);
                say(r, DIAG_ERROR, "byte %llu: expected '[' or '{' at the start of a trace, found %s",
                    (unsigned long long)at, what);
                r->broke = true;
                break;
            }
            r->pos++;
            continue;
        }
        if (r->st == S_DONE) {
            describe(what, sizeof what, c);
            say(r, DIAG_WARN, "byte %llu: %s after the end of the trace ignored", (unsigned long long)at, what);
            break;
        }
        if (r->st == S_OBJ_KEY || r->st == S_OBJ_NEXT) {
            if (c == '}') {
                r->st = S_DONE;
                r->pos++;
                if (!r->saw_events)
                    say(r, DIAG_WARN, "byte %llu: the object has no \"traceEvents\" array", (unsigned long long)at);
                continue;
            }
            if (r->st == S_OBJ_NEXT) {
                if (c != ',')
                    goto syntax;
                r->st = S_OBJ_KEY;
                r->pos++;
                continue;
            }
            if (c != '"')
                goto syntax;
            long k = take(r, IT_KEY, &ev);
            if (k <= 0)
                goto incomplete;
            r->events_key = k == 13 && !memcmp(r->buf + r->pos, "\"traceEvents\"", 13);
            r->top_key = kineto_top_key(r->buf + r->pos, (size_t)k);
            r->pos += (size_t)k;
            r->st = S_OBJ_COLON;
            continue;
        }
        if (r->st == S_OBJ_COLON) {
            if (c != ':')
                goto syntax;
            r->pos++;
            r->st = S_OBJ_VALUE;
            continue;
        }
        if (r->st == S_OBJ_VALUE) {
            if (r->events_key && c == '[') {
                r->saw_events = true;
                r->pos++;
                r->st = S_ITEM;
                r->first_item = true;
                continue;
            }
            long k = take(r, IT_VALUE, &ev);
            if (k == -1)
                goto syntax;
            if (k <= 0)
                goto incomplete;
            kineto_top_value(&r->kt, r->top_key, r->buf + r->pos, (size_t)k);
            r->pos += (size_t)k;
            r->st = S_OBJ_NEXT;
            continue;
        }
        if (r->st == S_NEXT) {
            if (c == ',') {
                r->st = S_ITEM;
                r->first_item = false;
                r->pos++;
                continue;
            }
            if (c != ']')
                goto syntax;
        }
        /* S_ITEM or the ']' of S_NEXT */
        if (c == ']') {
            if (r->st == S_ITEM && !r->first_item)
                say(r, DIAG_INFO, "byte %llu: trailing comma before ']'", (unsigned long long)at);
            r->pos++;
            r->closed = true;
            r->st = r->saw_events ? S_OBJ_NEXT : S_DONE;
            continue;
        }
        if (c == '{') {
            long k = take(r, IT_EVENT, &ev);
            if (k == -1) {
                char body[160];
                snprintf(body, sizeof body, "%s; stopped reading", ev.err);
                say_count(r, DIAG_ERROR, r->base + r->pos + ev.err_at, body, CNT_KEPT);
                r->broke = true;
                break;
            }
            if (k <= 0)
                goto incomplete;
            handle_event(r, r->buf + r->pos, (uint32_t)k, r->base + r->pos, &ev);
            r->pos += (size_t)k;
            r->st = S_NEXT;
            if (r->base + r->pos == r->stop_at) {
                r->reached = true;
                return;
            }
            continue;
        }
        /* an array item that is not an object: skip it */
        {
            long k = take(r, IT_VALUE, &ev);
            if (k == -1)
                goto syntax;
            if (k <= 0)
                goto incomplete;
            warn_event(r, at, "array item is not an event object: skipped%s", "");
            r->pos += (size_t)k;
            r->st = S_NEXT;
            continue;
        }
syntax:
        {
            char body[64];
            describe(what, sizeof what, (unsigned char)r->buf[r->pos]);
            snprintf(body, sizeof body, "unexpected %s; stopped reading", what);
            say_count(r, DIAG_ERROR, r->base + r->pos, body, CNT_KEPT);
            r->broke = true;
            break;
        }
incomplete:
        if (r->cancelled) {
            say(r, DIAG_INFO, "byte %llu: reading cancelled", (unsigned long long)(r->base + r->pos));
        } else if (r->len - r->pos > MAX_EVENT) {
            char body[64];
            snprintf(body, sizeof body, "an item larger than %u MiB; stopped reading", MAX_EVENT >> 20);
            say_count(r, DIAG_ERROR, r->base + r->pos, body, CNT_KEPT);
        } else if (r->eof) {
            say_count(r, DIAG_ERROR, r->base + r->pos, "the file ends inside an event (truncated?); ", CNT_COMPLETE);
            r->closed = true;   /* reported here already */
        }
        r->broke = true;
        break;
    }
}

/* The messages about how reading ended; the result of the load. */
static int finish(struct rd *r, uint64_t end)
{
    if (!r->broke && !r->closed && r->st != S_START && r->st != S_DONE)
        say_count(r, DIAG_WARN, end, "the file ends before the closing ']' (an interrupted export?); ", CNT_READ);
    if (!r->broke && r->st == S_START)
        say(r, DIAG_ERROR, "byte 0: the file is empty");
    if (r->warns_dropped)
        say(r, DIAG_WARN, "%llu more event warnings not shown", (unsigned long long)r->warns_dropped);
    return (r->nevents || (!r->broke && r->st != S_START)) ? 0 : -1;
}

/* Unclosed B events end at the last time seen in the file. */
static void close_open_b(struct rd *r)
{
    uint64_t nopen = 0;
    for (uint32_t l = 0; l < r->nbe; l++) {
        struct be_stack *st = &r->be[l];
        while (st->n) {
            struct be_entry b = st->e[--st->n];
            model_add_slice_ids(r->m, l, b.ts, span_ns(b.ts, r->last_ts), b.name, b.cat, r->file, b.off, b.len);
            nopen++;
        }
    }
    if (nopen)
        diag_add(r->d, DIAG_WARN, r->path, "%llu B events without an E: closed at the last timestamp of the file",
                 (unsigned long long)nopen);
}

static void free_rd(struct rd *r)
{
    for (uint32_t l = 0; l < r->nbe; l++)
        free(r->be[l].e);
    free(r->be);
    free(r->buf);
    for (int k = 0; k < NF; k++)
        free(r->scratch[k]);
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i].text);
    free(r->notes);
}

/* --- two parts ----------------------------------------------------------------------------- */

/* The bytes [at, at + n) of the input into buf (or a pointer into memory); how many there are. */
static size_t peek(struct rd *r, uint64_t at, size_t n, char *buf, const char **out)
{
    if (at >= r->size)
        return 0;
    if (n > r->size - at)
        n = (size_t)(r->size - at);
    if (r->fd < 0) {
        *out = r->mem + at;
        return n;
    }
    ssize_t k;
    do
        k = pread(r->fd, buf, n, (off_t)at);
    while (k < 0 && errno == EINTR);
    *out = buf;
    return k > 0 ? (size_t)k : 0;
}

/* A guess at an event boundary at or after from: "}" "," "{" (blanks between) where the "{"
 * starts an object with a "ph" key followed by ',' or ']'. The guess may still be wrong (a
 * string or args holding the same text): the first part checks it. */
static bool find_boundary(struct rd *r, uint64_t from, char *buf, uint64_t *end, uint64_t *start)
{
    struct ev ev;
    size_t win = SPLIT_WINDOW / 16;
    for (uint64_t w = from; w < r->size && w - from < SPLIT_SEARCH; w += win, win = SPLIT_WINDOW) {
        const char *p;
        /* windows overlap by 64 KiB so that a short event across their edge is still seen */
        size_t n = peek(r, w, win + (64u << 10), buf, &p);
        for (size_t i = 0; i < n && i < win; i++) {
            const char *q = memchr(p + i, '}', (n < win ? n : win) - i);
            if (!q)
                break;
            i = (size_t)(q - p);
            size_t j = skip_ws(p, i + 1, n);
            if (j >= n || p[j] != ',')
                continue;
            j = skip_ws(p, j + 1, n);
            if (j >= n || p[j] != '{')
                continue;
            long k = scan_event(p + j, n - j, &ev);
            if (k <= 0 || ev.f[F_PH].type != 's')
                continue;
            size_t e = skip_ws(p, j + (size_t)k, n);
            if (e >= n || (p[e] != ',' && p[e] != ']'))
                continue;
            *end = w + i + 1;
            *start = w + j;
            return true;
        }
    }
    return false;
}

static void drop_buffer(struct rd *r)
{
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = 0;
    if (r->len)
        return;   /* unread bytes: still needed */
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

static void *part_main(void *arg)
{
    run(arg);
    drop_buffer(arg);   /* before the merge: less memory at its peak */
    return NULL;
}

/* Large files: room in the model for the events the bytes from..size likely hold (about one
 * slice per 200 bytes and one flow point per 400 in captures), so the columns are not grown
 * and copied step by step; capped, and untouched room costs address space only. */
static void reserve_for(struct model *m, uint64_t bytes)
{
    if (bytes < (8u << 20))
        return;
    uint64_t s = bytes / 200, f = bytes / 400;
    model_reserve(m, (size_t)(s < (16u << 20) ? s : (16u << 20)), (size_t)(f < (8u << 20) ? f : (8u << 20)));
}

/* Starts the second part when the input is large enough and a boundary is found. */
static struct split *split_begin(struct rd *r)
{
    if (r->gz || r->size < split_threshold || r->size < 16)
        return NULL;
    char *buf = r->fd >= 0 ? malloc(SPLIT_WINDOW + (64u << 10)) : NULL;
    const char *p;
    if (r->fd >= 0 && !buf)
        return NULL;
    /* the first byte: '[' a bare array, '{' the object form (its events array) */
    size_t n = peek(r, 0, 4096, buf, &p), i = 0;
    if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        i = 3;
    i = skip_ws(p, i, n);
    bool object = i < n && p[i] == '{';
    uint64_t end = 0, start = 0;
    uint64_t from = split_from != NO_SPLIT ? split_from : r->size / 2;
    bool found = i < n && (p[i] == '[' || p[i] == '{') && find_boundary(r, from, buf, &end, &start);
    free(buf);
    if (!found)
        return NULL;
    struct split *sp = calloc(1, sizeof *sp);
    struct rd *r2 = calloc(1, sizeof *r2);
    struct model *m2 = model_new(r->m->time_base);
    if (!sp || !r2 || !m2) {
        free(sp);
        free(r2);
        model_free(m2);
        return NULL;
    }
    reserve_for(m2, r->size - start);
    *r2 = (struct rd){ .m = m2, .d = r->d, .path = r->path, .file = r->file, .p = r->p, .fd = r->fd,
                       .mem = r->mem, .memlen = r->memlen, .size = r->size, .base = start,
                       .last_ts = INT64_MIN, .st = S_ITEM, .saw_events = object, .start_off = start,
                       .stop_at = NO_SPLIT, .read_end = UINT64_MAX, .second = true, .part = 1, .sp = sp };
    sp->r2 = r2;
    sp->m2 = m2;
    sp->end = end;
    sp->start = start;
    atomic_store(&sp->live, true);
    r->stop_at = r->read_end = end;
    r->sp = sp;
    r->part = 0;
    if (r->p)
        atomic_store_explicit(&r->p->bytes_done, 0, memory_order_relaxed);
    if (pthread_create(&sp->thread, NULL, part_main, r2) != 0) {
        r->stop_at = NO_SPLIT;
        r->read_end = UINT64_MAX;
        r->sp = NULL;
        free(r2);
        model_free(m2);
        free(sp);
        return NULL;
    }
    sp->running = true;
    return sp;
}

/* Waits for the second part (stopping it first when abort) and frees it unless keep. */
static void split_join(struct split *sp, bool abort, bool keep)
{
    if (abort)
        atomic_store(&sp->abort, true);
    if (sp->running)
        pthread_join(sp->thread, NULL);
    sp->running = false;
    atomic_store(&sp->live, false);
    if (!keep && sp->r2) {
        free_rd(sp->r2);
        free(sp->r2);
        sp->r2 = NULL;
        model_free(sp->m2);
        sp->m2 = NULL;
    }
}

static void split_abandon(struct split *sp)
{
    split_join(sp, true, false);
    last_split = 2;
}

/* Whether the second part read exactly what reading on from the boundary would have. Only B
 * stacks can differ: deeper than MAX_BE_DEPTH across the boundary they are cut elsewhere. */
static bool merge_exact(const struct rd *r1, const struct rd *r2)
{
    uint32_t max1 = 0;
    for (uint32_t l = 0; l < r1->nbe; l++)
        if (r1->be[l].n > max1)
            max1 = r1->be[l].n;
    return !max1 || (uint64_t)max1 + r2->be_max < MAX_BE_DEPTH;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Appends the second part to the first part's model and replays its messages in file order:
 * E events without a B in the second part close the first part's open B events. */
static void merge_parts(struct rd *r1, struct rd *r2)
{
    struct model *m = r1->m;
    uint32_t *smap = NULL, *lmap = NULL, *dead = NULL;
    size_t ndead = 0;
    uint32_t first = model_append(m, r2->m, &smap, &lmap);
    kineto_merge(&r1->kt, &r2->kt);
    for (size_t i = 0; i < r2->nnotes; i++) {
        const struct note *n = &r2->notes[i];
        switch (n->kind) {
        case N_MSG:
            diag_add(r1->d, (enum diag_level)n->level, r1->path, "%s", n->text ? n->text : "");
            break;
        case N_WARN:
            warn_text(r1, n->text ? n->text : "");
            break;
        case N_UTF8:
            if (!r1->utf8_warned) {
                r1->utf8_warned = true;
                diag_add(r1->d, DIAG_WARN, r1->path, "%s", n->text ? n->text : "");
            }
            break;
        case N_COUNT:
            emit_count(r1, (enum diag_level)n->level, n->at, n->text ? n->text : "", (enum cnt)n->cnt,
                       r1->nevents + n->count);
            break;
        case N_ORPHAN_E: {
            if (first == SLICE_NONE || n->slice == SLICE_NONE)
                break;
            uint32_t lane = lmap[n->lane], s = first + n->slice;
            struct be_stack *st = lane < r1->nbe ? &r1->be[lane] : NULL;
            if (st && st->n) {
                struct be_entry b = st->e[--st->n];
                model_set_slice_ids(m, s, b.ts, span_ns(b.ts, n->ts), b.name, b.cat, r1->file, b.off, b.len);
                break;
            }
            warn_event(r1, n->at, "E event without a matching B on its thread%s", "");
            uint32_t *nd = realloc(dead, (ndead + 1) * sizeof *nd);
            if (!nd) {
                m->oom = true;
                break;
            }
            dead = nd;
            dead[ndead++] = s;
            break;
        }
        }
    }
    if (ndead) {
        qsort(dead, ndead, sizeof *dead, cmp_u32);
        model_remove_slices(m, dead, ndead);
    }
    free(dead);
    /* B events still open in the second part go on top of the first part's */
    for (uint32_t l2 = 0; first != SLICE_NONE && l2 < r2->nbe; l2++) {
        struct be_stack *s2 = &r2->be[l2];
        for (uint32_t k = 0; k < s2->n; k++) {
            struct be_entry b = s2->e[k];
            b.name = smap[b.name];
            b.cat = smap[b.cat];
            if (!be_push(be_of(r1, lmap[l2]), b)) {
                m->oom = true;
                break;
            }
        }
    }
    free(smap);
    free(lmap);
    if (r2->last_ts > r1->last_ts)
        r1->last_ts = r2->last_ts;
    r1->warns_dropped += r2->warns_dropped;
    r1->nevents += r2->nevents;
    r1->st = r2->st;
    r1->broke = r2->broke;
    r1->closed = r1->closed || r2->closed;
}

/* How the compressed input ended, when not cleanly: what was read is kept, and the message
 * says where the data stopped in both the compressed file and the decompressed trace. */
static void gz_report(struct rd *r)
{
    struct gz_status st;
    gz_stream_status(r->gz, &st);
    unsigned long long in = st.in_bytes, total = r->size, out = st.out_bytes;
    switch (st.end) {
    case GZ_TRUNCATED:
        say(r, DIAG_ERROR, "the gzip data ends early (truncated .gz?) at compressed byte %llu of %llu, "
            "after %llu decompressed bytes; the %llu events before are shown", in, total, out,
            (unsigned long long)r->nevents);
        break;
    case GZ_CORRUPT: case GZ_IOERR: case GZ_NOMEM:
        say(r, DIAG_ERROR, "gzip: %s (compressed byte %llu of %llu, after %llu decompressed bytes); "
            "the %llu events before are shown", st.msg, in, total, out, (unsigned long long)r->nevents);
        break;
    case GZ_TRAILING:
        say(r, DIAG_WARN, "gzip: %s", st.msg);
        break;
    default:
        break;
    }
}

static int load(struct rd *r)
{
    r->last_ts = INT64_MIN;
    r->stop_at = NO_SPLIT;
    r->read_end = UINT64_MAX;
    r->st = S_START;
    r->first_item = true;
    r->file = model_add_file(r->m, r->path, r->size);
    if (r->p)
        atomic_store_explicit(&r->p->bytes_total, r->size, memory_order_relaxed);
    last_split = 0;
    last_split_at = 0;
    reserve_for(r->m, r->gz ? r->gz_hint : r->size);
    struct split *sp = split_begin(r);
    run(r);
    uint64_t end = 0;
    if (sp) {
        if (r->reached && sp->r2) {
            drop_buffer(r);
            split_join(sp, false, true);
            if (merge_exact(r, sp->r2)) {
                merge_parts(r, sp->r2);
                end = sp->r2->base + sp->r2->len;
                last_split = 1;
                last_split_at = sp->end;
            } else {
                /* read on from the boundary alone */
                split_abandon(sp);
                r->stop_at = NO_SPLIT;
                r->read_end = UINT64_MAX;
                r->reached = false;
                run(r);
            }
        }
        split_join(sp, true, false);
        r->sp = NULL;
        free(sp);
#ifdef __GLIBC__
        /* what the second part freed stays in its thread's arena, where the main thread's
         * allocations (finalize) cannot reuse it: give it back */
        malloc_trim(0);
#endif
    }
    if (!end)
        end = r->base + r->len;
    if (r->gz)
        gz_report(r);
    int rc = finish(r, end);
    close_open_b(r);
    kineto_finish(&r->kt, r->m, r->d, r->path);
    if (r->p) {
        atomic_store_explicit(&r->p->bytes_done, r->gz ? r->size : end, memory_order_relaxed);
        atomic_store_explicit(&r->p->events, r->nevents, memory_order_relaxed);
    }
    free_rd(r);
    return rc;
}

int trace_json_load(struct model *m, const char *path, struct diag *d, struct load_progress *p)
{
    struct rd *r = calloc(1, sizeof *r);
    if (!r) {
        diag_add(d, DIAG_ERROR, path, "out of memory");
        return -1;
    }
    r->m = m;
    r->d = d;
    r->path = path;
    r->p = p;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        diag_add(d, DIAG_ERROR, path, "cannot open: %s", strerror(errno));
        free(r);
        return -1;
    }
    struct stat sb;
    if (fstat(r->fd, &sb) == 0)
        r->size = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    unsigned char magic[2];
    if (pread(r->fd, magic, 2, 0) == 2 && gz_magic(magic, 2)) {
        r->gz_hint = gz_size_hint(r->fd, r->size);
        if (!(r->gz = gz_stream_open_fd(r->fd))) {
            diag_add(d, DIAG_ERROR, path, "out of memory");
            close(r->fd);
            free(r);
            return -1;
        }
    }
    int rc = load(r);
    gz_stream_close(r->gz);
    close(r->fd);
    free(r);
    return rc;
}

int trace_json_load_buffer(struct model *m, const char *name, const char *buf, size_t len, struct diag *d)
{
    struct rd *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->m = m;
    r->d = d;
    r->path = name ? name : "";
    r->fd = -1;
    r->mem = buf;
    r->memlen = len;
    r->size = len;
    if (!len)
        r->eof = true;
    if (gz_magic(buf, len) && !(r->gz = gz_stream_open_mem(buf, len))) {
        free(r);
        return -1;
    }
    int rc = load(r);
    gz_stream_close(r->gz);
    free(r);
    return rc;
}
