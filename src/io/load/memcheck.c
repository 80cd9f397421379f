#include "io/load/memcheck.h"
#include "model/index/rank_filter.h"
#include "io/files/gz_size.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

/* The bytes a reader of f goes through: a gzip file's decompressed size (io/files/gz_size.h). */
static uint64_t read_size(const struct capture_file *f)
{
    size_t n = strlen(f->path);
    return n > 3 && !strcasecmp(f->path + n - 3, ".gz") ? gz_decompressed_size(f->path, f->size) : f->size;
}

/* Peak bytes of loading f: the peak column of FILE_KINDS (io/discovery/file_kinds.h). */
static uint64_t file_estimate(const struct capture_file *f)
{
    uint64_t size = read_size(f);
    switch (f->kind) {
#define FK_PEAK(id, name, table, read, reader, peak, ...) case id: return peak(size);
    FILE_KINDS(FK_PEAK)
#undef FK_PEAK
    case FK_COUNT: break;
    }
    return size;
}

/* Fixed cost of the program and its libraries. */
#define BASE_BYTES (32ull << 20)

uint64_t memcheck_estimate(const struct capture *c, int rank)
{
    uint64_t sum = BASE_BYTES;
    for (size_t i = 0; i < c->nranks; i++) {
        const struct capture_rank *r = &c->ranks[i];
        if (!rank_selected(r->rank, rank))
            continue;
        for (size_t j = 0; j < r->nfiles; j++)
            if (capture_file_loadable(&r->files[j]))
                sum += file_estimate(&r->files[j]);
    }
    return sum;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* "Key:   123 kB" of a /proc file, in bytes; UINT64_MAX when absent. */
static uint64_t proc_kb(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return UINT64_MAX;
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            unsigned long long kb;
            if (sscanf(line + kl + 1, "%llu", &kb) == 1)
                v = (uint64_t)kb * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

/* A number (or "max") in a one-line file; UINT64_MAX when "max" or unreadable. */
static uint64_t read_num(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return UINT64_MAX;
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v);
    fclose(f);
    return ok == 1 ? (uint64_t)v : UINT64_MAX;
}

/* Room left under the memory.max of dir and of every parent up to /sys/fs/cgroup. */
static uint64_t cgroup_room(const char *dir)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", dir);
    uint64_t room = UINT64_MAX;
    for (;;) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/memory.max", d);
        uint64_t max = read_num(p);
        if (max != UINT64_MAX) {
            snprintf(p, sizeof p, "%s/memory.current", d);
            uint64_t cur = read_num(p);
            room = min_u64(room, cur != UINT64_MAX && cur < max ? max - cur : cur == UINT64_MAX ? max : 0);
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d || !strcmp(d, "/sys/fs/cgroup"))
            break;
        *slash = 0;
    }
    return room;
}

/* The process's cgroup v2 directory, from the "0::/path" line of /proc/self/cgroup. */
static int own_cgroup_dir(char *out, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[PATH_MAX];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "0::", 3)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, size, "/sys/fs/cgroup%s", line + 3);
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

uint64_t memcheck_available(const struct memcheck_env *env)
{
    uint64_t avail = proc_kb(env && env->meminfo_path ? env->meminfo_path : "/proc/meminfo", "MemAvailable");
    if (env && env->as_limit) {
        avail = min_u64(avail, env->as_limit);
    } else {
        struct rlimit rl;
        if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) {
            uint64_t used = proc_kb("/proc/self/status", "VmSize");
            uint64_t lim = (uint64_t)rl.rlim_cur;
            avail = min_u64(avail, used != UINT64_MAX && used < lim ? lim - used : used == UINT64_MAX ? lim : 0);
        }
    }
    if (env && env->cgroup_dir) {
        if (env->cgroup_dir[0])
            avail = min_u64(avail, cgroup_room(env->cgroup_dir));
    } else {
        char dir[PATH_MAX];
        if (!own_cgroup_dir(dir, sizeof dir))
            avail = min_u64(avail, cgroup_room(dir));
        /* cgroup v1 */
        uint64_t lim = read_num("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        uint64_t use = read_num("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        if (lim != UINT64_MAX && use != UINT64_MAX && lim < (1ull << 60))
            avail = min_u64(avail, use < lim ? lim - use : 0);
    }
    return avail;
}

static void human(uint64_t b, char *buf, size_t size)
{
    if (b >= 1ull << 30)
        snprintf(buf, size, "%.1f GiB", b / (double)(1ull << 30));
    else
        snprintf(buf, size, "%.0f MiB", b / (double)(1ull << 20));
}

int memcheck_capture_env(const struct capture *c, int rank, const struct memcheck_env *env, struct diag *d)
{
    const char *off = getenv("APTOP_NO_MEMCHECK");
    if (off && *off && strcmp(off, "0"))
        return 0;
    uint64_t need = memcheck_estimate(c, rank);
    uint64_t avail = memcheck_available(env);
    if (avail == UINT64_MAX || need <= avail)
        return 0;
    char n[32], a[32];
    human(need, n, sizeof n);
    human(avail, a, sizeof a);
    diag_add(d, DIAG_ERROR, c->root ? c->root : "",
             "loading needs about %s of memory but only %s is available; not loading it "
             "(load one rank with --rank N, free memory, or set APTOP_NO_MEMCHECK=1 to try anyway)",
             n, a);
    return 1;
}

int memcheck_capture(const struct capture *c, struct diag *d)
{
    return memcheck_capture_env(c, -1, NULL, d);
}
