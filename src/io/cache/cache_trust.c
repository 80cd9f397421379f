/* Whom the index cache trusts: see cache_trust.h. */
#include "io/cache/cache_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/siphash.h"

#define SECRET_NAME "secret"

const char *cache_dir_distrust(const char *dir, char *buf, size_t size)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return errno == ENOENT ? NULL : "cannot be examined";
    if (!S_ISDIR(st.st_mode))
        return "not a folder";
    if (st.st_uid != geteuid()) {
        snprintf(buf, size, "owned by uid %lu, not by this user (uid %lu)", (unsigned long)st.st_uid,
                 (unsigned long)geteuid());
        return buf;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "writable by other users";
    return NULL;
}

/* the folders already warned about: one warning each per process */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char *warned[16];
static size_t nwarned;

static bool first_warning(const char *dir)
{
    pthread_mutex_lock(&warned_lock);
    bool first = true;
    for (size_t i = 0; i < nwarned && first; i++)
        first = strcmp(warned[i], dir) != 0;
    if (first && nwarned < sizeof warned / sizeof *warned && (warned[nwarned] = strdup(dir)))
        nwarned++;
    pthread_mutex_unlock(&warned_lock);
    return first;
}

bool cache_dir_trusted(const char *dir, struct diag *d)
{
    char buf[160];
    const char *why = cache_dir_distrust(dir, buf, sizeof buf);
    if (!why)
        return true;
    if (first_warning(dir))
        diag_add(d, DIAG_WARN, dir, "index cache not used: the folder is %s", why);
    return false;
}

/* an open file fit to be read or written as the user's own cache file */
static const char *not_own_file(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return "cannot be examined";
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_uid != geteuid())
        return "owned by another user";
    return NULL;
}

int cache_open_read(const char *path, const char **why)
{
    *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            *why = "a symbolic link";
        return -1;
    }
    if ((*why = not_own_file(fd))) {
        close(fd);
        return -1;
    }
    return fd;
}

int cache_create(const char *path)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        /* a leftover of this pid, or something planted: removed (a link goes, not its target) */
        if (unlink(path) < 0)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* The secret file's 16 bytes, when it is the user's own regular file readable by no one else. */
static bool read_secret(const char *path, uint64_t key[2])
{
    const char *why;
    int fd = cache_open_read(path, &why);
    if (fd < 0)
        return false;
    struct stat st;
    unsigned char b[16];
    bool ok = fstat(fd, &st) == 0 && !(st.st_mode & (S_IRWXG | S_IRWXO)) && st.st_size == (off_t)sizeof b
              && pread(fd, b, sizeof b, 0) == (ssize_t)sizeof b;
    close(fd);
    if (ok) {
        memcpy(&key[0], b, 8);
        memcpy(&key[1], b + 8, 8);
    }
    return ok;
}

bool cache_secret(const char *dir, uint64_t key[2])
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/" SECRET_NAME, dir);
    if (read_secret(path, key))
        return true;
    /* made whole under a temporary name, then linked into place: another aptop starting at
     * the same time either wins the link and both read its secret, or loses and reads the
     * winner's */
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        return false;
    snprintf(tmp, sizeof tmp, "%s/" SECRET_NAME ".tmp.%ld", dir, (long)getpid());
    int fd = cache_create(tmp);
    if (fd < 0)
        return false;
    bool written = write(fd, b, sizeof b) == (ssize_t)sizeof b;
    written = close(fd) == 0 && written;
    if (written && link(tmp, path) < 0 && errno != EEXIST)
        written = false;
    unlink(tmp);
    return written && read_secret(path, key);
}

uint64_t cache_seal(const uint64_t key[2], const uint64_t *words, size_t n, uint64_t checksum)
{
    uint64_t buf[32];
    if (n > 31)
        n = 31;
    memcpy(buf, words, n * sizeof *words);
    buf[n] = checksum;
    return siphash24(key, buf, (n + 1) * sizeof *buf);
}
