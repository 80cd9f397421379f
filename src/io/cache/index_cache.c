/* The index cache file: see index_cache.h for what it is and where it lives.
 *
 * Layout (native byte order and sizes; the header says which, another machine's file is a
 * miss):
 *   header        struct cache_header
 *   identity      the identity text (see cache_identity), padded to 8 bytes
 *   contents      struct cache_contents, then the model section (cache_model.c) when there
 *                 is a model, the table sections (cache_table.c), the load's diagnostics
 * Every block starts on an 8-byte boundary. The header's checksum is the seal (cache_trust.h)
 * of the header's other words and of a sum over everything after the header: it covers
 * every byte and every scalar, and only the user's secret makes it. */
#include "io/cache/index_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/cache/cache_io.h"
#include "io/cache/cache_model.h"
#include "io/cache/cache_table.h"
#include "io/cache/cache_trust.h"
#include "io/files/mapped_file.h"
#include "util/temp_files.h"

#define CACHE_MAGIC "APTOPIX\0"
#define CACHE_FORMAT 6   /* 4: a lane's kind may differ from its process's (Step Trace thread);
                           * 5: a flow may be joined by correlation id (struct flow.by_correlation);
                           * 6: a counter track has a unit (struct counter_track.unit) */
#define CACHE_ENDIAN 0x0102030405060708ull

struct cache_header {
    char magic[8];
    uint64_t format, endian, header_size, sizeof_flow, sizeof_ptr;
    uint64_t key, identity_len, payload_len, checksum;
};

struct cache_contents { uint64_t has_model, ntables, nmsgs, failed_files, has_device; int64_t device, shift; };

/* The header's words before the checksum, sealed with the sum of the rest of the file. */
#define SEALED_WORDS (offsetof(struct cache_header, checksum) / sizeof(uint64_t))
static uint64_t seal_of(const uint64_t key[2], const struct cache_header *h, const struct cache_sum *s)
{
    uint64_t words[SEALED_WORDS];
    memcpy(words, h, sizeof words);
    return cache_seal(key, words, SEALED_WORDS, cache_sum_end(s));
}

static void write_contents(struct cw *w, const struct cache_parts *parts, const struct diag_msg *msgs,
                           size_t nmsgs, int failed_files)
{
    struct cache_contents cc = { parts->model != NULL, parts->ntables, nmsgs,
                                 failed_files > 0 ? (uint64_t)failed_files : 0, parts->has_device,
                                 parts->has_device ? parts->device : -1, parts->shift };
    cw_put(w, &cc, sizeof cc);
    if (parts->model)
        cache_write_model(w, parts->model);
    for (size_t i = 0; i < parts->ntables; i++)
        cache_write_table(w, parts->tables[i]);
    for (size_t i = 0; i < nmsgs; i++) {
        uint64_t hdr[3] = { (uint64_t)msgs[i].level, strlen(msgs[i].path), strlen(msgs[i].text) };
        cw_put(w, hdr, sizeof hdr);
        cw_put(w, msgs[i].path, hdr[1]);
        cw_put(w, msgs[i].text, hdr[2]);
    }
    cw_flush(w);
}

/* mkdir -p: the cache directory and the folders above it that are missing. */
static int make_dirs(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = 0;
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            return -1;
        *c = '/';
    }
    return mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

int index_cache_store_parts(const struct cache_opts *o, uint64_t key, const char *identity,
                            const struct cache_parts *parts, const struct diag_msg *msgs, size_t nmsgs,
                            int failed_files, struct load_progress *p, struct diag *d)
{
    if (!o->enabled || !o->dir[0] || (parts->model && !parts->model->finalized) || parts->ntables > CACHE_TABLES
        || (!parts->model && !parts->ntables))
        return -1;
    if (make_dirs(o->dir) < 0) {
        diag_add(d, DIAG_WARN, o->dir, "index cache not written: %s", strerror(errno));
        return -1;
    }
    uint64_t secret[2];
    if (!cache_dir_trusted(o->dir, d))
        return -1;
    if (!cache_secret(o->dir, secret)) {
        diag_add(d, DIAG_INFO, o->dir, "index cache not written: its secret cannot be read or made");
        return -1;
    }
    char final[4200], tmp[4300];
    snprintf(final, sizeof final, "%s/%016llx.idx", o->dir, (unsigned long long)key);
    snprintf(tmp, sizeof tmp, "%s/%016llx.tmp.%ld", o->dir, (unsigned long long)key, (long)getpid());
    int tmp_slot = temp_files_add(tmp);   /* removed if a signal ends the program meanwhile */
    int fd = cache_create(tmp);
    if (fd < 0) {
        temp_files_forget(tmp_slot);
        diag_add(d, DIAG_WARN, o->dir, "index cache not written: %s", strerror(errno));
        return -1;
    }
    struct cw w = { .fd = fd, .cap = 1 << 20, .p = p };
    w.buf = malloc(w.cap);
    struct cache_header h = { .magic = CACHE_MAGIC, .format = CACHE_FORMAT, .endian = CACHE_ENDIAN,
                              .header_size = sizeof h, .sizeof_flow = sizeof(struct flow),
                              .sizeof_ptr = sizeof(void *), .key = key, .identity_len = strlen(identity) };
    if (!w.buf || pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || lseek(fd, sizeof h, SEEK_SET) < 0) {
        w.failed = true;
    } else {
        cache_sum_init(&w.sum);
        cw_put(&w, identity, h.identity_len);
        write_contents(&w, parts, msgs, nmsgs, failed_files);
    }
    if (!w.failed) {
        h.payload_len = w.written - pad8(h.identity_len);
        h.checksum = seal_of(secret, &h, &w.sum);
        if (pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
            w.failed = true;
    }
    free(w.buf);
    if (close(fd) < 0)
        w.failed = true;
    if (w.failed || rename(tmp, final) < 0) {
        int e = errno;
        unlink(tmp);
        temp_files_forget(tmp_slot);
        if (!progress_cancelled(p))
            diag_add(d, DIAG_WARN, o->dir, "index cache not written: %s", e ? strerror(e) : "write failed");
        return -1;
    }
    temp_files_forget(tmp_slot);
    index_cache_trim(o);
    return 0;
}

int index_cache_store(const struct cache_opts *o, uint64_t key, const char *identity,
                      const struct model *m, const struct diag_msg *msgs, size_t nmsgs, int failed_files,
                      struct load_progress *p, struct diag *d)
{
    struct cache_parts parts = { .model = (struct model *)m };
    return m ? index_cache_store_parts(o, key, identity, &parts, msgs, nmsgs, failed_files, p, d) : -1;
}

/* --- reading ---------------------------------------------------------------------------- */
static void free_parts(struct cache_parts *parts)
{
    model_free(parts->model);
    for (size_t i = 0; i < parts->ntables; i++)
        table_free(parts->tables[i]);
    memset(parts, 0, sizeof *parts);
}

/* The contents after the identity; the mapping is gone when this returns false, else it
 * belongs to out->model (or is unmapped already when there is none). */
static bool read_contents(struct cr *r, struct cache_parts *out, struct diag *d, int *failed_files)
{
    memset(out, 0, sizeof *out);
    const struct cache_contents *cc = cr_take(r, sizeof *cc, "the contents");
    if (!cc || cc->ntables > CACHE_TABLES || cc->nmsgs > r->len || cc->has_model > 1
        || (!cc->has_model && !cc->ntables) || cc->has_device > 1 || cc->failed_files > 1000000
        || cc->shift <= -CACHE_NS_LIMIT || cc->shift >= CACHE_NS_LIMIT) {
        cr_fail(r, "impossible contents");
        mapped_file_unmap(r->base, r->len);
        return false;
    }
    uint64_t ntables = cc->ntables, nmsgs = cc->nmsgs, failed = cc->failed_files;
    out->has_device = cc->has_device && cc->device >= 0 && cc->device < (1 << 20);
    out->device = out->has_device ? (int)cc->device : -1;
    out->shift = cc->shift;
    bool owned = false;   /* the model holds the mapping */
    if (cc->has_model) {
        if (!(out->model = cache_read_model(r)))
            return false;
        owned = true;
    }
    for (uint64_t i = 0; i < ntables && !r->bad; i++)
        if ((out->tables[i] = cache_read_table(r)))
            out->ntables = (size_t)i + 1;
    struct diag_msg *msgs = calloc((size_t)nmsgs + 1, sizeof *msgs);
    size_t n = 0;
    if (!msgs)
        cr_fail(r, "out of memory");
    for (uint64_t i = 0; i < nmsgs && !r->bad; i++) {
        const uint64_t *mh = cr_take(r, 3 * sizeof(uint64_t), "a diagnostic");
        const char *path = mh ? cr_take(r, mh[1], "a diagnostic's path") : NULL;
        const char *text = path ? cr_take(r, mh[2], "a diagnostic's text") : NULL;
        if (text && mh[0] > DIAG_ERROR)
            cr_fail(r, "a diagnostic of an unknown level");
        if (r->bad)
            break;
        msgs[n].level = (enum diag_level)mh[0];
        msgs[n].path = strndup(path, (size_t)mh[1]);
        msgs[n].text = strndup(text, (size_t)mh[2]);
        n++;
        if (!msgs[n - 1].path || !msgs[n - 1].text)
            cr_fail(r, "out of memory");
    }
    if (!r->bad && r->off != r->len)
        cr_fail(r, "bytes after the end");
    if (!r->bad) {
        for (size_t i = 0; i < n; i++)
            diag_add(d, msgs[i].level, msgs[i].path, "%s", msgs[i].text);
        *failed_files = failed > 1000000 ? 1000000 : (int)failed;
    }
    for (size_t i = 0; i < n; i++) {
        free(msgs[i].path);
        free(msgs[i].text);
    }
    free(msgs);
    if (r->bad) {
        free_parts(out);   /* unmaps with the model */
        if (!owned)
            mapped_file_unmap(r->base, r->len);
        return false;
    }
    if (!owned)
        mapped_file_unmap(r->base, r->len);
    return true;
}

bool index_cache_load_parts(const struct cache_opts *o, uint64_t key, const char *identity,
                            struct cache_parts *out, struct diag *d, int *failed_files)
{
    int failed_dummy;
    if (!failed_files)
        failed_files = &failed_dummy;
    *failed_files = 0;
    memset(out, 0, sizeof *out);
    if (!o->enabled || !o->dir[0] || !cache_dir_trusted(o->dir, d))
        return false;
    char path[4200];
    snprintf(path, sizeof path, "%s/%016llx.idx", o->dir, (unsigned long long)key);
    const char *why = NULL;
    uint64_t secret[2];
    int fd = cache_open_read(path, &why);
    if (fd < 0 && !why)
        return false;   /* a miss */
    if (fd >= 0 && !cache_secret(o->dir, secret)) {
        close(fd);
        return false;   /* nothing can be trusted without it; the store says why */
    }
    struct stat st = { 0 };
    struct cache_header h;
    size_t idlen = strlen(identity);
    if (why)
        ;   /* not a file of the user's: removed below */
    else if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        why = "shorter than its header";
    else if (memcmp(h.magic, CACHE_MAGIC, 8) || h.header_size != sizeof h)
        why = "not an index cache file";
    else if (h.format != CACHE_FORMAT || h.endian != CACHE_ENDIAN || h.sizeof_flow != sizeof(struct flow)
             || h.sizeof_ptr != sizeof(void *))
        why = "written by another version of aptop";
    else if (h.key != key || h.identity_len != idlen) {
        close(fd);
        return false;   /* another identity under this name: a plain miss */
    } else if (h.identity_len > (uint64_t)st.st_size || h.payload_len > (uint64_t)st.st_size
               || (uint64_t)st.st_size != sizeof h + pad8((size_t)h.identity_len) + h.payload_len)
        why = "truncated or padded (its sizes do not match)";
    /* read-only, populated (the pages come straight from the page cache) and under the
     * mapped-file handler: a cache file cut while in use reads as zeros, not a SIGBUS */
    struct mapped_file mf = { NULL, 0, -1 };
    void *map = NULL;
    if (!why) {
        if (mapped_file_open(&mf, fd, (uint64_t)st.st_size)) {
            map = (void *)mf.data;
            mapped_file_populate(&mf, 0, mf.size);
        } else {
            why = "could not be mapped";
        }
    }
    struct cache_sum s;
    if (!why && cache_sum_file(fd, sizeof h, ((uint64_t)st.st_size - sizeof h) & ~(uint64_t)7, &s) < 0)
        why = "truncated while read";
    if (fd >= 0)
        close(fd);
    if (!why) {
        unsigned char *base = map;
        if (memcmp(base + sizeof h, identity, idlen) != 0) {
            mapped_file_close(&mf);
            return false;   /* a hash collision: another set of files */
        }
        if (seal_of(secret, &h, &s) != h.checksum) {
            why = "damaged, or not made by this user (checksum mismatch)";
        } else {
            struct cr r = { .base = base, .len = (size_t)st.st_size, .off = sizeof h + pad8(idlen) };
            map = NULL;   /* read_contents owns it from here on */
            uint64_t cut_at;
            bool ok = read_contents(&r, out, d, failed_files);
            if (ok && mapped_file_was_cut(&mf, &cut_at)) {   /* zeros read for its bytes */
                free_parts(out);   /* unmaps with the model */
                ok = false;
                r.why = "cut by another program while read";
            }
            if (ok) {
                utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);   /* a hit counts as a use for the trim */
                return true;
            }
            why = r.why ? r.why : "inconsistent";
        }
    }
    if (map)
        mapped_file_close(&mf);
    unlink(path);
    diag_add(d, DIAG_INFO, path, "index cache discarded (%s); the files are read again", why);
    return false;
}

struct model *index_cache_load(const struct cache_opts *o, uint64_t key, const char *identity,
                               struct diag *d, int *failed_files)
{
    struct cache_parts parts;
    if (!index_cache_load_parts(o, key, identity, &parts, d, failed_files))
        return NULL;
    if (parts.ntables || !parts.model) {   /* not a timeline's cache file */
        free_parts(&parts);
        return NULL;
    }
    return parts.model;
}

int index_cache_reseal(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    uint64_t secret[2];
    if (!slash || (*slash = 0, !cache_secret(dir, secret)))
        return -1;
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    struct stat st;
    struct cache_header h;
    int rc = -1;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof h && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h) {
        size_t len = (size_t)st.st_size - sizeof h;
        unsigned char *buf = malloc(len + 8);
        if (buf && pread(fd, buf, len, sizeof h) == (ssize_t)len) {
            memset(buf + len, 0, 8);
            struct cache_sum s;
            cache_sum_init(&s);
            cache_sum_add(&s, buf, len & ~(size_t)7);
            h.checksum = seal_of(secret, &h, &s);
            rc = pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h ? 0 : -1;
        }
        free(buf);
    }
    close(fd);
    return rc;
}
