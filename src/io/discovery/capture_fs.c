/* Capture discovery's file-system helpers: path strings and bounded, sorted directory
 * listings. */
#include "io/discovery/capture.h"
#include "util/oom.h"
#include "util/grow.h"
#include "io/discovery/capture_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- small string helpers ------------------------------------------------------------ */

bool cap_starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

bool cap_ends_with_ci(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

char *cap_xstrdup(const char *s)
{
    char *r = strdup(s ? s : "");
    if (!r)
        oom_exit("a file name", strlen(s ? s : "") + 1);
    return r;
}

void *cap_grow_one(void *arr, size_t n, size_t elem)
{
    char *r = grow_exact_or_exit(arr, n + 1, elem, "the capture's file list");
    memset(r + n * elem, 0, elem);
    return r;
}

char *cap_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    bool slash = la && a[la - 1] == '/';
    char *r = malloc(la + lb + 2);
    if (!r)
        oom_exit("a file name", la + lb + 2);
    memcpy(r, a, la);
    if (!slash)
        r[la++] = '/';
    memcpy(r + la, b, lb + 1);
    return r;
}

const char *cap_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* The directory part of path ("." when none); malloc'd. Trailing slashes are ignored. */
char *cap_dir_name(const char *path)
{
    char *p = cap_xstrdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    char *s = strrchr(p, '/');
    if (!s) {
        free(p);
        return cap_xstrdup(".");
    }
    if (s == p)
        s[1] = 0;
    else
        *s = 0;
    return p;
}

/* Base name without trailing slashes, copied into buf. */
const char *cap_clean_base(const char *path, char *buf, size_t size)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t len = n - start;
    if (len >= size)
        len = size - 1;
    memcpy(buf, path + start, len);
    buf[len] = 0;
    return buf;
}

/* ---- directory listing --------------------------------------------------------------- */

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Sorted entries of dir (symlinks followed for the type); err set when it cannot be opened. */
void cap_list_dir(const char *dir, struct listing *l)
{
    memset(l, 0, sizeof *l);
    DIR *d = opendir(dir);
    if (!d) {
        l->err = errno;
        return;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (l->n >= MAX_ENTRIES) {
            l->truncated = true;
            break;
        }
        l->e = grow_array_or_exit(l->e, &cap, l->n + 1, sizeof *l->e, "a folder listing");
        char *full = cap_join(dir, de->d_name);
        struct stat st;
        bool ok = stat(full, &st) == 0;
        free(full);
        l->e[l->n].name = cap_xstrdup(de->d_name);
        l->e[l->n].is_dir = ok && S_ISDIR(st.st_mode);
        l->e[l->n].is_reg = ok && S_ISREG(st.st_mode);
        l->n++;
    }
    closedir(d);
    if (l->n)
        qsort(l->e, l->n, sizeof *l->e, cmp_entry);
}

void cap_listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].name);
    free(l->e);
    memset(l, 0, sizeof *l);
}

const struct entry *cap_find_entry(const struct listing *l, const char *name, bool dir)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->e[i].name, name) && (dir ? l->e[i].is_dir : l->e[i].is_reg))
            return &l->e[i];
    return NULL;
}

bool cap_has_dir_prefix(const struct listing *l, const char *prefix)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].is_dir && cap_starts_with(l->e[i].name, prefix))
            return true;
    return false;
}

/* device_<digits> → the number, else -1. */
int cap_device_dir_id(const char *name)
{
    if (!cap_starts_with(name, "device_") || !name[7])
        return -1;
    long v = 0;
    for (const char *p = name + 7; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 100000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return (int)v;
}
