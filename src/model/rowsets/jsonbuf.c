/* JSON text built piece by piece, for nested report values (RS_RAW cells). */
#include "model/rowsets/jsonbuf.h"
#include "util/grow.h"
#include "util/utf8.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rowsets/escape.h"

void jput(struct jbuf *b, const char *s, size_t len)
{
    if (b->oom)
        return;
    char *np = grow_array(b->p, &b->cap, b->n + len + 1, 1);
    if (!np) {
        b->oom = true;
        return;
    }
    b->p = np;
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = 0;
}

void jputs(struct jbuf *b, const char *s) { jput(b, s, strlen(s)); }

/* A JSON string as the report writes them: invalid UTF-8 bytes as the text \xNN. */
void jstr(struct jbuf *b, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s);
    char e[16];
    jputs(b, "\"");
    for (size_t i = 0; i < len; ) {
        size_t n = utf8_seq_len(u + i, len - i);
        uint32_t bad = n > 1 ? unsafe_code_point(u + i, n) : 0;
        if (u[i] == '"' || u[i] == '\\') {
            snprintf(e, sizeof e, "\\%c", u[i]);
            i++;
        } else if (u[i] < 0x20 || u[i] == 0x7f) {
            snprintf(e, sizeof e, "\\u%04x", u[i]);
            i++;
        } else if (n == 0) {
            snprintf(e, sizeof e, "\\\\x%02x", u[i]);
            i++;
        } else if (bad) {
            snprintf(e, sizeof e, "\\u%04x", (unsigned)bad);
            i += n;
        } else {
            jput(b, s + i, n);
            i += n;
            continue;
        }
        jputs(b, e);
    }
    jputs(b, "\"");
}

/* ns as µs with 3 decimals, exact. */
void jus(struct jbuf *b, ns_t v)
{
    char t[48];
    if (v == NS_NONE) {
        jputs(b, "null");
        return;
    }
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    snprintf(t, sizeof t, "%s%" PRIu64 ".%03" PRIu64, v < 0 ? "-" : "", a / 1000, a % 1000);
    jputs(b, t);
}

