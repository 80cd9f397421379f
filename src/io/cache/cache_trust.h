/* Whom the index cache trusts. The cache folder, the files in it and the secret that seals
 * them must all be the user's own: a folder owned by another user or writable by others is
 * not used (a warning, once per folder); a cache file is opened without following a symbolic
 * link and without blocking, and must be a regular file of the user; a new file is created
 * only where nothing exists (O_EXCL | O_NOFOLLOW). Every cache file is sealed by a keyed
 * hash (SipHash) of its header and its checksum under a secret kept in the folder (mode
 * 0600), so a file made elsewhere, by another user or on another machine, is not accepted. */
#ifndef APTOP_CACHE_TRUST_H
#define APTOP_CACHE_TRUST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"

/* NULL when dir (followed if a link) is a folder of the user writable by no one else, else
 * what is wrong with it ("owned by uid 1001", "writable by others", "not a folder"). A folder
 * that does not exist is NULL too (it is created 0700 when written). */
const char *cache_dir_distrust(const char *dir, char *buf, size_t size);
/* The same as a yes/no; when no, a warning naming the folder and why goes to d, once per
 * folder in this process. */
bool cache_dir_trusted(const char *dir, struct diag *d);

/* A cache file opened to read: O_NOFOLLOW | O_NONBLOCK, then it must be a regular file of
 * the user. -1 when there is none (a miss: *why NULL) or it is not to be trusted (*why). */
int cache_open_read(const char *path, const char **why);
/* A new file created to write (0600), never through a link or over an existing file (one
 * left there is removed first). -1 and errno on failure. */
int cache_create(const char *path);

/* The folder's 128-bit secret, made on first use (from getrandom). false when it cannot be
 * read or made, or is not a regular 0600 file of the user: then nothing is cached. */
bool cache_secret(const char *dir, uint64_t key[2]);
/* The seal of a cache file: the keyed hash of its n header words and its checksum. */
uint64_t cache_seal(const uint64_t key[2], const uint64_t *words, size_t n, uint64_t checksum);

#endif
