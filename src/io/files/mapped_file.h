/* Files: the bytes under every reader. Data flow: a trace reader (io/trace) maps its file here
 * or reads it through gz_stream.h when it is gzip-compressed (gz_size.h tells the loader's
 * memory estimate how large it unpacks); the index cache maps its files here too. Nothing in
 * this folder knows a format.
 *
 * A file mapped read-only, so that a reader scans the page cache in place instead of copying
 * every byte into a buffer first (the copy was about a tenth of a large load's CPU time).
 *
 * A mapping outlives its file's size: when another program shrinks the file meanwhile, a read
 * of a page past the new end raises SIGBUS. Every open mapping is registered; the SIGBUS
 * handler puts zero pages over the rest of a registered mapping, marks it cut and lets the
 * reader go on: zeros are no JSON, so reading stops there, and mapped_file_was_cut tells the
 * reader to say why. A SIGBUS elsewhere goes to the handler that was there before.
 *
 * Every mapping of a file another program can change goes through here: the traces, and the
 * index-cache files whose mapping a model read from the cache keeps (model.h `mapped`). The
 * handler runs in the thread that faulted, so no thread may block SIGBUS (util/signals.h). */
#ifndef APTOP_MAPPED_FILE_H
#define APTOP_MAPPED_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mapped_file {
    const char *data;   /* size bytes; NULL when not mapped */
    uint64_t size;
    int slot;           /* its place among the registered mappings */
};

/* Maps the size bytes of the regular file open on fd. False when it cannot (not 64-bit, too
 * many mappings open at once, mmap failed): the caller reads with pread instead. */
bool mapped_file_open(struct mapped_file *mf, int fd, uint64_t size);

/* The pages of [from, to) will not be read again: they leave the process's resident memory
 * (they stay in the page cache). Offsets are rounded inwards to pages. */
void mapped_file_release(const struct mapped_file *mf, uint64_t from, uint64_t to);
/* Maps bytes [from, to) of the file into the process in one call, ahead of reading them: a
 * page fault per 64 KiB or so of a 1 GiB trace was a tenth of its load (16.7 K faults to 1 K,
 * CPU 1.68 to 1.39 s). Advice only: nothing happens where the kernel does not have it, and a
 * file cut meanwhile is found when read, as without it. */
void mapped_file_populate(const struct mapped_file *mf, uint64_t from, uint64_t to);

/* Whether the file shrank under the mapping, so that zeros were read in place of its bytes
 * from *at (a page boundary) on. */
bool mapped_file_was_cut(const struct mapped_file *mf, uint64_t *at);

void mapped_file_close(struct mapped_file *mf);
/* The same for a mapping known only by its address and size (a model that owns the mapping
 * of its cache file keeps no struct mapped_file): unregistered, then unmapped. The form of a
 * model's unmap callback. */
void mapped_file_unmap(void *data, size_t size);

#endif
