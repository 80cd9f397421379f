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
/* Interns s (NULL as "") and returns its stable copy: the way a struct that owns a table keeps
 * a name without a free() of its own. NULL when memory ran out. */
const char *strtab_keep(struct strtab *t, const char *s);

/* The constructor of every struct that interns its own strings: a zeroed `type` whose member
 * `str` is a new string table and, for STRTAB_NAMED_NEW, whose `const char *` member `field`
 * holds a copy of name kept in that table (NULL as ""). NULL when memory ran out; the struct's
 * destructor frees the table. */
void *strtab_owner_new(size_t size, size_t table_at, size_t name_at, const char *name);
#define STRTAB_OWNER_NEW(type) ((type *)strtab_owner_new(sizeof(type), offsetof(type, str), SIZE_MAX, NULL))
#define STRTAB_NAMED_NEW(type, field, name) \
    ((type *)strtab_owner_new(sizeof(type), offsetof(type, str), offsetof(type, field), name))
size_t strtab_len(const struct strtab *t, uint32_t id);
uint32_t strtab_count(const struct strtab *t);
size_t strtab_bytes(const struct strtab *t);

#endif
