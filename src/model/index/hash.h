/* A 64-bit integer mixer for the open-addressing maps of the model and the readers: keys
 * that differ in a few low bits (ids, timestamps) spread over the whole table. */
#ifndef APTOP_HASH_H
#define APTOP_HASH_H
#include <stdint.h>

static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#endif
