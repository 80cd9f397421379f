/* SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed
 * 64-bit hash that one who does not know the 128-bit key cannot compute or forge. The index
 * cache seals its files with it. */
#ifndef APTOP_UTIL_SIPHASH_H
#define APTOP_UTIL_SIPHASH_H
#include <stddef.h>
#include <stdint.h>

/* The hash of n bytes under key[0] (bytes 0..7 of the key, little-endian) and key[1]. */
uint64_t siphash24(const uint64_t key[2], const void *data, size_t n);

#endif
