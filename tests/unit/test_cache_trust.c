/* Whom the index cache trusts (io/cache/cache_trust.h): a folder of another user or writable by
 * others is not used (one warning); a planted link is never written through; a link to a
 * FIFO, a FIFO or another user's file is never read and never blocks; a cache file made in
 * another folder (another secret) is refused; a scalar out of range is refused even with
 * its checksum made right; a trace rewritten in place with its size and modification time
 * put back is a miss. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/cache/cache_trust.h"
#include "io/cache/index_cache.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "util/siphash.h"

#include "../runner.h"
#include "helpers.h"

#define TRACE "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
#define FIXTURES_OR_SKIP() do { if (access(TRACE, R_OK) != 0) SKIP("fixtures not generated (make fixtures)"); } while (0)

/* The reference vectors of the SipHash paper (appendix A: key 00..0f, message 00..0e) and of
 * its reference code (the empty message, 8 bytes). */
TEST(cache_trust_siphash_reference_vectors)
{
    const uint64_t key[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
    unsigned char msg[16];
    for (int i = 0; i < 16; i++)
        msg[i] = (unsigned char)i;
    CHECK(siphash24(key, msg, 15) == 0xa129ca6149be45e5ull);
    CHECK(siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(siphash24(key, msg, 8) == 0x93f5f5799a932462ull);
}

/* A fresh cache folder build/test_cache/NAME (removed first), made 0700. */
static void fresh(struct cache_opts *o, const char *name)
{
    cache_opts_default(o);
    o->enabled = true;
    o->min_input = 0;
    snprintf(o->dir, sizeof o->dir, "build/test_cache/%s", name);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && chmod 0700 '%s'", o->dir, o->dir, o->dir);
    CHECK(system(cmd) == 0);
}

static struct model *cold(const char *path)
{
    struct diag *d = diag_new();
    struct model *m = model_new(TIME_LOCAL_US);
    trace_json_load(m, path, d, NULL);
    model_finalize(m);
    diag_free(d);
    return m;
}

/* The trace's identity and key; stores its model with the clock shift given. */
static int store(const struct cache_opts *o, const char *path, ns_t shift, uint64_t *key, char **id,
                 struct diag *d)
{
    const char *paths[1] = { path };
    uint64_t bytes;
    CHECK(cache_identity(paths, 1, key, id, &bytes) == 0);
    struct model *m = cold(path);
    struct cache_parts parts = { .model = m, .shift = shift };
    int rc = index_cache_store_parts(o, *key, *id, &parts, NULL, 0, 0, NULL, d);
    model_free(m);
    return rc;
}

static const char *idx_path(const struct cache_opts *o, uint64_t key, const char *suffix)
{
    static char path[4400];
    snprintf(path, sizeof path, "%s/%016llx%s", o->dir, (unsigned long long)key, suffix);
    return path;
}

static bool loads(const struct cache_opts *o, uint64_t key, const char *id, struct diag *d)
{
    struct cache_parts parts;
    bool hit = index_cache_load_parts(o, key, id, &parts, d, NULL);
    if (hit) {
        model_free(parts.model);
        for (size_t i = 0; i < parts.ntables; i++)
            table_free(parts.tables[i]);
    }
    return hit;
}

static size_t count_has(struct diag *d, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < diag_count(d); i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m) != 0)
            continue;
        n += strstr(m.text, text) != NULL;
        free(m.path);
        free(m.text);
    }
    return n;
}

/* A folder others may write, and (as root, as CI runs) one owned by another uid or reached
 * through a link into another user's folder: a good cache file planted there is not read,
 * nothing is written there, and the warning comes once per folder. */
TEST(cache_trust_foreign_or_open_folder_is_not_used)
{
    FIXTURES_OR_SKIP();
    struct cache_opts own, other;
    fresh(&own, "trust_own");
    fresh(&other, "trust_open");
    uint64_t key;
    char *id = NULL;
    struct diag *d = diag_new();
    CHECK(store(&own, TRACE, 0, &key, &id, d) == 0);
    CHECK(loads(&own, key, id, d));
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'/ && cp '%s/secret' '%s/'", idx_path(&own, key, ".idx"), other.dir,
             own.dir, other.dir);
    CHECK(system(cmd) == 0);
    CHECK(chmod(other.dir, 0777) == 0);
    CHECK(!loads(&other, key, id, d));
    CHECK(!loads(&other, key, id, d));
    CHECK(store(&other, TRACE, 0, &key, &id, d) < 0);
    CHECK_INT(count_has(d, "index cache not used: the folder is writable by other users"), 1);
    CHECK(access(idx_path(&other, key, ".idx"), F_OK) == 0);   /* not removed either */

    if (geteuid() == 0) {
        /* another user's folder, straight or through a link from ours */
        CHECK(chmod(other.dir, 0700) == 0);
        CHECK(chown(other.dir, 4242, 4242) == 0);
        struct cache_opts link;
        fresh(&link, "trust_link");
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && ln -s trust_open '%s'", link.dir, link.dir);
        CHECK(system(cmd) == 0);
        struct diag *d2 = diag_new();
        CHECK(!loads(&other, key, id, d2));   /* warned about above already */
        CHECK(!loads(&link, key, id, d2));
        CHECK(!loads(&link, key, id, d2));
        CHECK_INT(count_has(d2, "owned by uid 4242"), 1);   /* once for the link's name */
        diag_free(d2);
    }
    free(id);
    diag_free(d);
}

/* A link planted where the temporary file goes: the file it points to is left as it was,
 * and the cache file is still written. */
TEST(cache_trust_planted_link_is_not_written_through)
{
    FIXTURES_OR_SKIP();
    struct cache_opts o;
    fresh(&o, "trust_plant");
    const char *victim = "build/test_cache/trust_victim.txt";
    FILE *f = fopen(victim, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("keep me", f);
    fclose(f);
    const char *paths[1] = { TRACE };
    uint64_t key, bytes;
    char *id = NULL;
    CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".tmp.%ld", (long)getpid());
    char target[4300];
    CHECK(realpath(victim, target) != NULL);
    CHECK(symlink(target, idx_path(&o, key, tmp)) == 0);
    struct diag *d = diag_new();
    free(id);
    id = NULL;
    CHECK(store(&o, TRACE, 0, &key, &id, d) == 0);
    char buf[64] = "";
    f = fopen(victim, "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    if (f)
        fclose(f);
    CHECK(strcmp(buf, "keep me") == 0);
    CHECK(loads(&o, key, id, d));
    free(id);
    diag_free(d);
}

/* Opening the cache file in a child that an alarm ends: a blocked open is a failure here,
 * not a test that hangs. Returns whether it loaded; *blocked when the alarm fired. */
static bool load_in_child(const struct cache_opts *o, uint64_t key, const char *id, bool *blocked,
                          bool *noted)
{
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        alarm(5);
        struct diag *d = diag_new();
        char r[2] = { loads(o, key, id, d) ? 'y' : 'n', test_diag_has(d, "index cache discarded", NULL) ? 'y' : 'n' };
        if (write(pfd[1], r, 2) != 2)
            _exit(3);
        _exit(0);
    }
    close(pfd[1]);
    char r[2] = { 0, 0 };
    ssize_t got = read(pfd[0], r, 2);
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    *blocked = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
    *noted = got == 2 && r[1] == 'y';
    return got == 2 && r[0] == 'y';
}

/* A FIFO as the cache file, a link to one, and (as root) another user's file: none is read,
 * none blocks, each is discarded with a note. */
TEST(cache_trust_fifo_link_or_foreign_file_is_not_read)
{
    FIXTURES_OR_SKIP();
    struct cache_opts o;
    fresh(&o, "trust_fifo");
    const char *paths[1] = { TRACE };
    uint64_t key, bytes;
    char *id = NULL;
    CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
    const char *fifo = "build/test_cache/trust_fifo.pipe";
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    char target[4300];
    CHECK(realpath(fifo, target) != NULL);
    bool blocked, noted;

    CHECK(symlink(target, idx_path(&o, key, ".idx")) == 0);
    CHECK(!load_in_child(&o, key, id, &blocked, &noted));
    CHECK(!blocked);
    CHECK(noted);

    unlink(idx_path(&o, key, ".idx"));
    CHECK(mkfifo(idx_path(&o, key, ".idx"), 0600) == 0);
    CHECK(!load_in_child(&o, key, id, &blocked, &noted));
    CHECK(!blocked);
    CHECK(noted);

    if (geteuid() == 0) {
        unlink(idx_path(&o, key, ".idx"));
        struct diag *d = diag_new();
        free(id);
        id = NULL;
        CHECK(store(&o, TRACE, 0, &key, &id, d) == 0);
        CHECK(loads(&o, key, id, d));
        CHECK(chown(idx_path(&o, key, ".idx"), 4242, 4242) == 0);
        CHECK(!loads(&o, key, id, d));
        CHECK(test_diag_has(d, "index cache discarded", "another user"));
        diag_free(d);
    }
    unlink(fifo);
    free(id);
}

/* A cache file copied from another cache folder (another secret) fails its checksum, even
 * though every byte is what this aptop would write. */
TEST(cache_trust_file_from_another_folder_is_refused)
{
    FIXTURES_OR_SKIP();
    struct cache_opts a, b;
    fresh(&a, "trust_a");
    fresh(&b, "trust_b");
    uint64_t key;
    char *id = NULL;
    struct diag *d = diag_new();
    CHECK(store(&a, TRACE, 0, &key, &id, d) == 0);
    CHECK(store(&b, TRACE, 0, &key, &id, d) == 0);   /* b has a secret of its own */
    CHECK(loads(&b, key, id, d));
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", idx_path(&a, key, ".idx"), b.dir);
    CHECK(system(cmd) == 0);
    CHECK(!loads(&b, key, id, d));
    CHECK(test_diag_has(d, "index cache discarded", "checksum"));
    free(id);
    diag_free(d);
}

/* Overwrites the first 8-byte-aligned occurrence of n bytes `was` in the file with `now`;
 * false when there is none. */
static bool patch(const char *path, const void *was, const void *now, size_t n)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return false;
    unsigned char buf[64];
    bool done = false;
    for (long off = 0; !done && fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n; off += 8)
        if (!memcmp(buf, was, n)) {
            fseek(f, off, SEEK_SET);
            done = fwrite(now, 1, n, f) == n;
        }
    fclose(f);
    return done;
}

/* Each scalar set out of range, the checksum then made right again (the secret is at hand
 * here): the file is refused, never loaded with a time near INT64_MIN. */
TEST(cache_trust_scalars_out_of_range_are_refused)
{
    FIXTURES_OR_SKIP();
    struct cache_opts o;
    fresh(&o, "trust_range");
    struct model *m = cold(TRACE);
    CHECK(m && m->nslices > 0);
    if (!m || !m->nslices) {
        model_free(m);
        return;
    }
    const ns_t shift = 0x5eed5eed5eedll;   /* a value to find in the file */
    struct { ns_t was[3], now[3]; size_t n; } cases[] = {
        { { m->t_min, m->t_max }, { INT64_MIN + 1, m->t_max }, 16 },       /* the span's start */
        { { m->t_min, m->t_max }, { m->t_min, INT64_MAX }, 16 },           /* its end */
        { { m->t_min, m->t_max }, { m->t_max, m->t_min }, 16 },            /* reversed */
        { { m->t_min, m->t_max }, { m->t_min + 1, m->t_max }, 16 },        /* a slice before it */
        { { shift }, { INT64_MIN }, 8 },                                   /* the clock shift */
        { { shift }, { INT64_MAX }, 8 },
        { { m->dur[0], m->dur[1], m->dur[2] }, { INT64_MAX, m->dur[1], m->dur[2] }, 24 },   /* a duration */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t key;
        char *id = NULL;
        struct diag *d = diag_new();
        CHECK(store(&o, TRACE, shift, &key, &id, d) == 0);
        CHECK(loads(&o, key, id, d));
        if (!patch(idx_path(&o, key, ".idx"), cases[i].was, cases[i].now, cases[i].n))
            test_fail(__FILE__, __LINE__, "case %zu: the value to change is not in the file", i);
        CHECK(index_cache_reseal(idx_path(&o, key, ".idx")) == 0);
        if (loads(&o, key, id, d))
            test_fail(__FILE__, __LINE__, "case %zu: a scalar out of range was accepted", i);
        CHECK(test_diag_has(d, "index cache discarded", NULL));
        free(id);
        diag_free(d);
    }
    model_free(m);
}

/* A trace rewritten in place, the same size, its modification time put back (touch -r):
 * another identity, so the cache file of the old bytes is not used. */
TEST(cache_trust_same_size_rewrite_with_restored_mtime_is_a_miss)
{
    FIXTURES_OR_SKIP();
    struct cache_opts o;
    fresh(&o, "trust_rewrite");
    const char *t = "build/test_cache/trust_rewrite.json";
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", TRACE, t);
    CHECK(system(cmd) == 0);
    uint64_t key;
    char *id = NULL;
    struct diag *d = diag_new();
    CHECK(store(&o, t, 0, &key, &id, d) == 0);
    CHECK(loads(&o, key, id, d));
    struct stat before;
    CHECK(stat(t, &before) == 0);
    /* file times tick with the kernel's clock: past a tick, the rewrite's change time differs */
    nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
    int fd = open(t, O_WRONLY);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, " ", 1, before.st_size - 1) == 1);   /* the byte after the last ']' */
    close(fd);
    struct timespec ts[2] = { before.st_atim, before.st_mtim };
    CHECK(utimensat(AT_FDCWD, t, ts, 0) == 0);
    struct stat after;
    CHECK(stat(t, &after) == 0);
    CHECK(after.st_size == before.st_size && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    const char *paths[1] = { t };
    uint64_t key2, bytes;
    char *id2 = NULL;
    CHECK(cache_identity(paths, 1, &key2, &id2, &bytes) == 0);
    CHECK(key2 != key);
    CHECK(!loads(&o, key2, id2, d));
    free(id);
    free(id2);
    diag_free(d);
}
