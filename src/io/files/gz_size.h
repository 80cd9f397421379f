/* The decompressed size of a gzip file, for the memory estimate: what the trailer says when
 * that is the only plausible reading of it, else measured on the start of the stream. */
#ifndef APTOP_GZ_SIZE_H
#define APTOP_GZ_SIZE_H
#include <stdint.h>

/* The decompressed bytes of the gzip file at path (file_size bytes on disk). The trailer's
 * ISIZE counts modulo 4 GiB and only the last member, so it is taken as is only when exactly
 * one of ISIZE + k * 4 GiB lies between half the file's size and deflate's largest ratio
 * (1032:1) times it. Otherwise the first SAMPLE bytes are decompressed and the ratio found
 * scales the file's size (the candidate nearest it is taken when one is within a factor 2).
 * file_size when the file cannot be read. */
uint64_t gz_decompressed_size(const char *path, uint64_t file_size);

#endif
