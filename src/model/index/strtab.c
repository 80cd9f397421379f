#include "model/index/strtab.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

#define BLOCK_SIZE (1u << 20)

struct entry { const char *s; uint32_t len; uint32_t hash; };

struct strtab {
    struct entry *entries;   /* by id */
    uint32_t count, cap;
    uint32_t *slots;         /* open addressing: id + 1, 0 = empty */
    uint32_t nslots;
    char **blocks;           /* append-only storage so returned pointers never move */
    size_t nblocks, block_used, block_cap, bytes;
};

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static char *store(struct strtab *t, const char *s, size_t len)
{
    if (len + 1 > BLOCK_SIZE || t->nblocks == 0 || t->block_used + len + 1 > t->block_cap) {
        size_t cap = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;
        char **nb = grow_exact(t->blocks, (size_t)t->nblocks + 1, sizeof *nb);
        if (!nb)
            return NULL;
        t->blocks = nb;
        if (!(nb[t->nblocks] = malloc(cap)))
            return NULL;
        t->nblocks++;
        t->block_used = 0;
        t->block_cap = cap;
    }
    char *p = t->blocks[t->nblocks - 1] + t->block_used;
    memcpy(p, s, len);
    p[len] = 0;
    t->block_used += len + 1;
    t->bytes += len + 1;
    return p;
}

static int grow_slots(struct strtab *t)
{
    uint32_t n = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t id = 0; id < t->count; id++) {
        uint32_t i = t->entries[id].hash & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    return 0;
}

struct strtab *strtab_new(void)
{
    struct strtab *t = calloc(1, sizeof *t);
    if (t && strtab_intern(t, "", 0) != 0) {
        strtab_free(t);
        return NULL;
    }
    return t;
}

void *strtab_owner_new(size_t size, size_t table_at, size_t name_at, const char *name)
{
    unsigned char *owner = calloc(1, size);
    struct strtab *t = owner ? strtab_new() : NULL;
    const char *kept = t && name_at != SIZE_MAX ? strtab_keep(t, name) : NULL;
    if (!t || (name_at != SIZE_MAX && !kept)) {
        strtab_free(t);
        free(owner);
        return NULL;
    }
    memcpy(owner + table_at, &t, sizeof t);
    if (name_at != SIZE_MAX)
        memcpy(owner + name_at, &kept, sizeof kept);
    return owner;
}

void strtab_free(struct strtab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nblocks; i++)
        free(t->blocks[i]);
    FREE_ALL(t->blocks, t->entries, t->slots, t);
}

uint32_t strtab_find(const struct strtab *t, const char *s, size_t len)
{
    if (!t->nslots)
        return UINT32_MAX;
    uint32_t h = hash_bytes(s, len);
    for (uint32_t i = h & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
        const struct entry *e = &t->entries[t->slots[i] - 1];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            return t->slots[i] - 1;
    }
    return UINT32_MAX;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len)
{
    if (len > UINT32_MAX - 1)
        len = UINT32_MAX - 1;
    uint32_t id = strtab_find(t, s, len);
    if (id != UINT32_MAX)
        return id;
    if ((t->count + 1) * 2 > t->nslots && grow_slots(t) < 0)
        return UINT32_MAX;
    if (t->count == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 1024;
        struct entry *ne = grow_exact(t->entries, cap, sizeof *ne);
        if (!ne)
            return UINT32_MAX;
        t->entries = ne;
        t->cap = cap;
    }
    char *p = store(t, s, len);
    if (!p)
        return UINT32_MAX;
    uint32_t h = hash_bytes(s, len);
    id = t->count++;
    t->entries[id] = (struct entry){ p, (uint32_t)len, h };
    uint32_t i = h & (t->nslots - 1);
    while (t->slots[i])
        i = (i + 1) & (t->nslots - 1);
    t->slots[i] = id + 1;
    return id;
}

uint32_t strtab_intern_cstr(struct strtab *t, const char *s)
{
    return strtab_intern(t, s, strlen(s));
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
    return id < t->count ? t->entries[id].s : "";
}

size_t strtab_len(const struct strtab *t, uint32_t id)
{
    return id < t->count ? t->entries[id].len : 0;
}

uint32_t strtab_count(const struct strtab *t) { return t->count; }

size_t strtab_bytes(const struct strtab *t)
{
    return t->bytes + (size_t)t->cap * sizeof(struct entry) + (size_t)t->nslots * sizeof(uint32_t);
}

const char *strtab_keep(struct strtab *t, const char *s)
{
    uint32_t id = strtab_intern_cstr(t, s ? s : "");
    return id == UINT32_MAX ? NULL : strtab_get(t, id);
}
