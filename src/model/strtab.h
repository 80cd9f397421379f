/* Interned strings: each distinct byte string gets one uint32_t id, stable for the table's
 * life. Id 0 is the empty string. Strings are copied in; pointers returned by strtab_get stay
 * valid until strtab_free (they live in append-only blocks). Not thread-safe: one writer. */
#ifndef APTOP_STRTAB_H
#define APTOP_STRTAB_H
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
/* Returns the id of s[0..len) (any bytes, NUL included), adding it when new.
 * UINT32_MAX when memory ran out. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len);
uint32_t strtab_intern_cstr(struct strtab *t, const char *s);
/* Looks up without adding: UINT32_MAX when absent. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t len);
const char *strtab_get(const struct strtab *t, uint32_t id);
size_t strtab_len(const struct strtab *t, uint32_t id);
uint32_t strtab_count(const struct strtab *t);
size_t strtab_bytes(const struct strtab *t);

#endif
