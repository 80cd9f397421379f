/* SipHash-2-4 as the paper states it: see siphash.h. */
#include "util/siphash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

struct sip { uint64_t v0, v1, v2, v3; };

static void round_(struct sip *s)
{
    s->v0 += s->v1; s->v1 = ROTL(s->v1, 13); s->v1 ^= s->v0; s->v0 = ROTL(s->v0, 32);
    s->v2 += s->v3; s->v3 = ROTL(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = ROTL(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = ROTL(s->v1, 17); s->v1 ^= s->v2; s->v2 = ROTL(s->v2, 32);
}

static void absorb(struct sip *s, uint64_t m)
{
    s->v3 ^= m;
    round_(s);
    round_(s);
    s->v0 ^= m;
}

/* the message's bytes as little-endian words, whatever the machine's byte order */
static uint64_t le64(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t i = n; i-- > 0;)
        w = w << 8 | p[i];
    return w;
}

uint64_t siphash24(const uint64_t key[2], const void *data, size_t n)
{
    const unsigned char *p = data;
    struct sip s = { key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
                     key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull };
    size_t whole = n & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8)
        absorb(&s, le64(p + i, 8));
    /* the last block: the bytes left, and the length's low byte on top */
    absorb(&s, le64(p + whole, n - whole) | (uint64_t)(n & 0xff) << 56);
    s.v2 ^= 0xff;
    for (int i = 0; i < 4; i++)
        round_(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
