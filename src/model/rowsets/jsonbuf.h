/* JSON text built piece by piece, for nested report values (RS_RAW cells): strings escaped
 * as the report escapes them, ns as exact µs with 3 decimals. */
#ifndef APTOP_JSONBUF_H
#define APTOP_JSONBUF_H
#include <stdbool.h>
#include <stddef.h>

#include "model/index/model.h"

/* Zero-initialise; p is NUL-terminated once anything was put; free(p) when done. oom: memory
 * ran out (the text is then incomplete: do not use it). */
struct jbuf { char *p; size_t n, cap; bool oom; };

void jput(struct jbuf *b, const char *s, size_t len);
void jputs(struct jbuf *b, const char *s);
/* A JSON string: invalid UTF-8 bytes as the text \xNN, C1 and bidi controls as \uNNNN. */
void jstr(struct jbuf *b, const char *s);
/* ns as µs with 3 decimals, exact; NS_NONE as null. */
void jus(struct jbuf *b, ns_t v);

#endif
