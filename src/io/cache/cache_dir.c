/* The index cache's directory: where it is, what names a cache file (the identity of the
 * files it was built from), the size limit with least-recently-used removal, and the
 * --cache-info / --cache-clear commands. The file format is in index_cache.c. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/cache/index_cache.h"
#include "io/cache/cache_trust.h"
#include "util/grow.h"

void cache_opts_default(struct cache_opts *o)
{
    memset(o, 0, sizeof *o);
    o->enabled = true;
    o->max_bytes = (uint64_t)4 << 30;
    o->min_input = (uint64_t)8 << 20;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(o->dir, sizeof o->dir, "%s/aptop", xdg);
    else if (home && home[0] == '/')
        n = snprintf(o->dir, sizeof o->dir, "%s/.cache/aptop", home);
    if (n < 0 || (size_t)n >= sizeof o->dir) {
        o->dir[0] = 0;
        o->enabled = false;
    }
}

uint64_t cache_key_of(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

int cache_identity(const char *const *paths, size_t n, uint64_t *key, char **text, uint64_t *bytes)
{
    size_t cap = 256, len = 0;
    char *t = malloc(cap);
    if (!t)
        return -1;
    len = (size_t)snprintf(t, cap, "aptop index %s\n", APTOP_VERSION);
    *bytes = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char real[PATH_MAX];
        if (stat(paths[i], &st) < 0 || !realpath(paths[i], real)) {
            free(t);
            return -1;
        }
        *bytes += (uint64_t)st.st_size;
        size_t need = strlen(real) + 160;
        if (len + need > cap) {
            cap = (len + need) * 2;
            char *nt = grow_exact(t, cap, 1);
            if (!nt) {
                free(t);
                return -1;
            }
            t = nt;
        }
        /* the change time too: a rewrite that keeps the size and puts the modification
         * time back (touch -r) cannot put it back */
        len += (size_t)snprintf(t + len, cap - len, "%s\t%llu\t%llu\t%lld\t%lld.%09ld\t%lld.%09ld\n", real,
                                (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                                (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
    }
    *key = cache_key_of(t, len);
    if (text)
        *text = t;
    else
        free(t);
    return 0;
}

/* A cache file (name ends .idx), or a temporary one (.tmp.PID) when tmp_pid is not NULL. */
static bool is_cache_name(const char *name, long *tmp_pid)
{
    size_t n = strlen(name);
    if (n == 20 && strcmp(name + 16, ".idx") == 0)
        return true;
    const char *t = strstr(name, ".tmp.");
    if (tmp_pid && t && t - name == 16) {
        *tmp_pid = strtol(t + 5, NULL, 10);
        return true;
    }
    return false;
}

struct entry { char name[64]; uint64_t size; struct timespec used; };

static int cmp_used(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* The directory's cache files, oldest use first; temporary files of writers that are gone
 * are removed on the way. */
static struct entry *list(const struct cache_opts *o, size_t *n, uint64_t *total)
{
    *n = 0;
    *total = 0;
    char why[160];
    if (cache_dir_distrust(o->dir, why, sizeof why))
        return NULL;   /* another user's folder: nothing in it is touched */
    DIR *dir = opendir(o->dir);
    if (!dir)
        return NULL;
    size_t cap = 16;
    struct entry *e = malloc(cap * sizeof *e);
    struct dirent *de;
    char path[4400];
    while (e && (de = readdir(dir))) {
        long pid = 0;
        if (!is_cache_name(de->d_name, &pid) || strlen(de->d_name) >= sizeof e->name)
            continue;
        snprintf(path, sizeof path, "%s/%s", o->dir, de->d_name);
        if (pid) {
            if (pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
                unlink(path);
            continue;
        }
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (*n == cap) {
            struct entry *ne = grow_exact(e, 2 * cap, sizeof *e);
            if (!ne)
                break;
            e = ne;
            cap *= 2;
        }
        snprintf(e[*n].name, sizeof e[*n].name, "%s", de->d_name);
        e[*n].size = (uint64_t)st.st_size;
        e[*n].used = st.st_mtim;
        *total += e[*n].size;
        (*n)++;
    }
    closedir(dir);
    if (e)
        qsort(e, *n, sizeof *e, cmp_used);
    return e;
}

void index_cache_trim(const struct cache_opts *o)
{
    size_t n;
    uint64_t total;
    struct entry *e = list(o, &n, &total);
    char path[4400];
    for (size_t i = 0; e && i < n && total > o->max_bytes; i++) {
        snprintf(path, sizeof path, "%s/%s", o->dir, e[i].name);
        if (unlink(path) == 0)
            total -= e[i].size;
    }
    free(e);
}

void index_cache_info(const struct cache_opts *o, FILE *out)
{
    if (!o->dir[0]) {
        fprintf(out, "index cache: no directory (neither XDG_CACHE_HOME nor HOME is set)\n");
        return;
    }
    size_t n;
    uint64_t total;
    struct entry *e = list(o, &n, &total);
    char buf[160];
    const char *distrust = cache_dir_distrust(o->dir, buf, sizeof buf);
    fprintf(out, "index cache: %s%s\n", o->dir, o->enabled ? "" : " (disabled by --no-cache)");
    if (distrust)
        fprintf(out, "not used: the folder is %s\n", distrust);
    fprintf(out, "limit %.1f MiB; %zu file%s, %.1f MiB\n", (double)o->max_bytes / 1048576.0, n,
            n == 1 ? "" : "s", (double)total / 1048576.0);
    if (n)
        fprintf(out, "%-20s  %12s  %s\n", "file", "size (MiB)", "last used (UTC)");
    for (size_t i = n; e && i-- > 0;) {
        char when[32];
        struct tm tm;
        time_t t = e[i].used.tv_sec;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
        fprintf(out, "%-20s  %12.1f  %s\n", e[i].name, (double)e[i].size / 1048576.0, when);
    }
    free(e);
}

int index_cache_clear(const struct cache_opts *o)
{
    size_t n;
    uint64_t total;
    struct entry *e = list(o, &n, &total);
    int removed = 0;
    char path[4400];
    for (size_t i = 0; e && i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", o->dir, e[i].name);
        removed += unlink(path) == 0;
    }
    free(e);
    return removed;
}
