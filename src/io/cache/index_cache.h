/* The index cache: what a reader made of some files (a finished timeline model, tables)
 * written to a file after a cold load, so the next open of the same files maps it instead
 * of parsing again: a rank's trace files give its model, a CSV file its table, a SQLite
 * export its model and tables.
 *
 * Where: $XDG_CACHE_HOME/aptop/ (else ~/.cache/aptop/), never inside a capture. One file per
 * set of input files, named by a hash of their identity (path, device, inode,
 * size, modification and change times) and of the cache format; the full identity text is kept inside the file
 * and compared too, so a hash collision is a miss, not a wrong timeline. A changed file
 * is a miss.
 *
 * A cache file is trusted only in a folder of the user's (cache_trust.h), after its header,
 * sizes and keyed checksum agree, every index in it (strings, lanes, slices, flows, files)
 * is within bounds and every scalar within range; anything else is
 * discarded with a note and rebuilt. Writes go to a temporary name and are renamed into
 * place, so a killed aptop never leaves a half file that is later read. The directory is
 * kept under a size limit by removing the least recently used files (a hit refreshes a
 * file's modification time). */
#ifndef APTOP_INDEX_CACHE_H
#define APTOP_INDEX_CACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/progress.h"
#include "model/index/table.h"

/* What one cache file holds: a model (or NULL) and up to CACHE_TABLES tables. Loaded
 * models point into the file's mapping (read-only: a model is immutable once finalized);
 * loaded tables are private copies (tables may still be joined or appended to). */
#define CACHE_TABLES 8
struct cache_parts {
    struct model *model;
    struct table *tables[CACHE_TABLES];
    size_t ntables;
    bool has_device;             /* the reader found the rank's device id */
    int device;
    int64_t shift;               /* ns already added to the model's times (a clock mapping) */
};

struct cache_opts {
    bool enabled;            /* --no-cache clears it */
    char dir[4096];          /* "" when no directory could be named (then disabled) */
    uint64_t max_bytes;      /* --cache-size: the directory's limit */
    uint64_t min_input;      /* --cache-min: trace files smaller than this in all are not cached */
};

/* Defaults: enabled, the XDG directory, 4 GiB, 8 MiB. */
void cache_opts_default(struct cache_opts *o);

/* The key naming the cache file of an identity text (FNV-1a over it; the text itself is
 * compared on load, so a collision is a miss). */
uint64_t cache_key_of(const char *identity, size_t len);

/* The identity of a set of files (in order): fills key (the hash naming the cache file)
 * and, when text is not NULL, the identity text (malloc'd). Returns -1 when a file cannot
 * be stat'ed (then nothing is cached). *bytes receives the files' total size. */
int cache_identity(const char *const *paths, size_t n, uint64_t *key, char **text, uint64_t *bytes);

/* The cached parts for that identity into *out (the caller owns them), or false on a
 * miss. A cache file that exists but cannot be trusted is removed and noted in d (as an
 * info message). The diagnostics the cold load gave are replayed into d, and
 * *failed_files (may be NULL) gets the number of its files that could not be read whole. */
bool index_cache_load_parts(const struct cache_opts *o, uint64_t key, const char *identity,
                            struct cache_parts *out, struct diag *d, int *failed_files);
/* The model alone (a cache file of a rank's trace files), or NULL. */
struct model *index_cache_load(const struct cache_opts *o, uint64_t key, const char *identity,
                               struct diag *d, int *failed_files);

/* Writes the parts (the model finalized, the tables finished) with the diagnostics
 * msgs[0..nmsgs) of their load and the number of files that load could not read whole.
 * Stops early,
 * leaving nothing behind, when p is cancelled. Then trims the directory to its limit.
 * Returns 0, or -1 when nothing was written (a note goes to d, never an error). */
int index_cache_store_parts(const struct cache_opts *o, uint64_t key, const char *identity,
                            const struct cache_parts *parts, const struct diag_msg *msgs, size_t nmsgs,
                            int failed_files, struct load_progress *p, struct diag *d);
/* The model alone. */
int index_cache_store(const struct cache_opts *o, uint64_t key, const char *identity,
                      const struct model *m, const struct diag_msg *msgs, size_t nmsgs, int failed_files,
                      struct load_progress *p, struct diag *d);

/* --cache-info: the directory, its files (size, last use) and the total. */
void index_cache_info(const struct cache_opts *o, FILE *out);
/* --cache-clear: removes every cache file; returns how many. */
int index_cache_clear(const struct cache_opts *o);
/* Removes least recently used files until the directory holds at most o->max_bytes, and
 * temporary files whose writer is gone. */
void index_cache_trim(const struct cache_opts *o);

/* Recomputes a cache file's checksum after its bytes were edited, so that the fuzz target
 * and tests reach the checks behind the checksum. Returns 0, or -1. */
int index_cache_reseal(const char *path);

#endif
