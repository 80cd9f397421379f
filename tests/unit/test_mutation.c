/* Mutation tests: copies of real captures and fixtures, each file truncated at several
 * points and with bytes flipped, go through the whole load path (capture_discover,
 * session_new, loader_run_sync, report_print of every section). The load must never crash
 * or hang, must name the file in a diagnostic when the cut made it invalid, and must keep
 * what came before the cut. Copies live under /tmp; the originals are only read. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../runner.h"
#include "io/discovery/capture.h"
#include "io/cache/index_cache.h"
#include "io/load/loader.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/table.h"
#include "report/report.h"

#define MUT_ALL_SECTIONS "summary,kernels,ops,apis,step_trace,flows,steps,phases,ranks,comm"
/* A load that takes longer than this is a hang: the process reports it and exits. */
#define MUT_HANG_SECONDS 60

static char mut_current[1200];  /* what is being loaded, for the hang report */
/* The index cache the loads go through (NULL: none); mutation_every_real_file sets it, so
 * that damaged inputs are also written to and read back from the cache. */
static const struct cache_opts *mut_cache;

static void mut_on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_mutation: load did not finish in time: ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, mut_current, strlen(mut_current)) < 0
        || write(2, "\n", 1) < 0)
        _exit(1);
    _exit(1);
}

/* --- small file helpers ------------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(n > 0 ? (size_t)n + 1 : 1);
    *len = n > 0 ? fread(b, 1, (size_t)n, f) : 0;
    b[*len] = 0;
    fclose(f);
    return b;
}

static int write_all(const char *path, const char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = n ? fwrite(b, 1, n, f) : 0;
    return fclose(f) || w != n ? -1 : 0;
}

/* Regular files under dir (recursive), sorted. */
struct flist { char **p; size_t n, cap; };

static void list_files(const char *dir, struct flist *l)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            list_files(p, l);
        } else if (S_ISREG(st.st_mode)) {
            if (l->n == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 32;
                l->p = realloc(l->p, l->cap * sizeof *l->p);
            }
            l->p[l->n++] = strdup(p);
        }
    }
    closedir(dp);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void flist_free(struct flist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->p[i]);
    free(l->p);
    memset(l, 0, sizeof *l);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Deterministic PRNG (xorshift64*), so every run mutates the same bytes. */
static uint64_t mut_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    mut_rng ^= mut_rng >> 12;
    mut_rng ^= mut_rng << 25;
    mut_rng ^= mut_rng >> 27;
    return mut_rng * 0x2545f4914f6cdd1dull;
}

/* --- one load ---------------------------------------------------------------------------- */

struct load_result {
    bool named;             /* a diagnostic names the file (path or base name) */
    uint64_t slices;        /* all ranks */
    size_t rows[TK_COUNT];  /* all ranks */
    int discover_rc;
};

static struct load_result load_once(const char *root, const char *file)
{
    struct load_result r;
    memset(&r, 0, sizeof r);
    struct diag *d = diag_new();
    struct capture c;
    memset(&c, 0, sizeof c);
    r.discover_rc = capture_discover(root, &c, d);
    struct session *s = session_new(&c, d);
    if (s) {
        struct loader_opts o = { .prefer_db = false, .rank = -1, .cache = mut_cache };
        loader_run_sync(&c, s, &o);
        FILE *null = fopen("/dev/null", "w");
        struct report_opts ro = { .sections = MUT_ALL_SECTIONS, .format = FMT_TEXT, .rank = -1 };
        report_print(s, &ro, null);
        ro.format = FMT_JSON;
        report_print(s, &ro, null);
        fclose(null);
        for (size_t i = 0; i < s->nranks; i++) {
            if (s->ranks[i].model)
                r.slices += s->ranks[i].model->nslices;
            for (int k = 0; k < TK_COUNT; k++)
                if (s->ranks[i].tables[k])
                    r.rows[k] += s->ranks[i].tables[k]->nrows;
        }
        session_free(s);
    }
    /* the file named in a diagnostic (by path, or by base name in the text) or as a
     * problem of the capture listing */
    const char *bn = base_of(file);
    for (size_t i = 0; i < diag_count(d) && !r.named; i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m))
            continue;
        if (m.level >= DIAG_WARN && (!strcmp(m.path, file) || strstr(m.text, bn) || strstr(m.path, bn)))
            r.named = true;
        free(m.path);
        free(m.text);
    }
    for (size_t i = 0; i < c.nranks && !r.named; i++)
        for (size_t j = 0; j < c.ranks[i].nfiles; j++)
            if (c.ranks[i].files[j].problem && !strcmp(c.ranks[i].files[j].path, file))
                r.named = true;
    capture_free(&c);
    diag_free(d);
    return r;
}

/* --- what a cut must do ------------------------------------------------------------------ */

/* End (exclusive) of the first complete "ph":"X" event of a trace, or 0 when none is found
 * in the first 1 MiB. Events are the objects one level inside the outer array. */
static size_t first_x_event_end(const char *b, size_t n)
{
    int depth = 0, ev_depth = -1;
    bool in_str = false;
    size_t ev_start = 0;
    if (n > (1u << 20))
        n = 1u << 20;
    for (size_t i = 0; i < n; i++) {
        char ch = b[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
            continue;
        }
        if (ch == '"') {
            in_str = true;
        } else if (ch == '[' || ch == '{') {
            depth++;
            if (ch == '[' && ev_depth < 0)
                ev_depth = depth + 1;
            if (ch == '{' && depth == ev_depth)
                ev_start = i;
        } else if (ch == ']' || ch == '}') {
            if (ch == '}' && depth == ev_depth) {
                const char *ph = memmem(b + ev_start, i - ev_start, "\"ph\"", 4);
                if (ph) {
                    const char *q = ph + 4;
                    while (q < b + i && (*q == ' ' || *q == ':'))
                        q++;
                    if (q + 2 < b + i && !memcmp(q, "\"X\"", 3))
                        return i + 1;
                }
            }
            depth--;
        }
    }
    return 0;
}

enum ftype { FT_TRACE, FT_JSON, FT_CSV, FT_DB, FT_OTHER };

static enum ftype ftype_of(const char *path, const char *b, size_t n)
{
    const char *bn = base_of(path);
    if (n >= 16 && !memcmp(b, "SQLite format 3", 16))
        return FT_DB;
    if (has_suffix(bn, ".csv"))
        return FT_CSV;
    if (has_suffix(bn, ".json")) {
        if (!strcmp(bn, "trace_view.json") || !strncmp(bn, "msprof", 6))
            return FT_TRACE;
        if (!strncmp(bn, "communication", 13) || !strncmp(bn, "profiler_info", 13))
            return FT_JSON;
    }
    return FT_OTHER;
}

/* Offset of the last non-space byte + 1 (a cut at or after it leaves valid JSON). */
static size_t json_end(const char *b, size_t n)
{
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\n' || b[n - 1] == '\r' || b[n - 1] == '\t'))
        n--;
    return n;
}

struct mut_stats { int loads, cuts_checked, named_missing, kept_checked, flips; double secs; };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Mutates one file of the copy at root, loads after each mutation, restores it. */
static void mutate_file(const char *root, const char *file, int npoints, int nflips, struct mut_stats *st)
{
    size_t n;
    char *orig = read_all(file, &n);
    if (!orig)
        return;
    enum ftype ft = ftype_of(file, orig, n);
    size_t x_end = ft == FT_TRACE ? first_x_event_end(orig, n) : 0;
    size_t jend = json_end(orig, n);
    /* cut points: 0, 1, a few inside the first event, then spread over the file */
    size_t pts[16];
    int np = 0;
    pts[np++] = 0;
    if (n > 1)
        pts[np++] = 1;
    if (x_end > 2) {
        pts[np++] = x_end / 2;          /* mid-token inside the first X event */
        pts[np++] = x_end + 1;          /* just after it */
    }
    while (np < npoints && n > 2) {
        size_t p = (size_t)(rnd() % (n - 1)) + 1;
        pts[np++] = p;
    }
    for (int i = 0; i < np; i++) {
        size_t cut = pts[i];
        if (cut >= n)
            continue;
        if (write_all(file, orig, cut))
            continue;
        snprintf(mut_current, sizeof mut_current, "%s cut at %zu of %zu", file, cut, n);
        struct load_result r = load_once(root, file);
        st->loads++;
        /* a cut that certainly leaves the file invalid must be reported against it */
        bool invalid = (cut == 0 && ft != FT_OTHER) || (ft == FT_TRACE && cut < jend) || (ft == FT_JSON && cut < jend)
                       || (ft == FT_DB && cut < 100);
        if (invalid) {
            st->cuts_checked++;
            if (!r.named) {
                st->named_missing++;
                test_fail(__FILE__, __LINE__, "%s: no diagnostic names the file", mut_current);
            }
        }
        if (ft == FT_TRACE && x_end && cut > x_end) {
            st->kept_checked++;
            if (r.slices == 0)
                test_fail(__FILE__, __LINE__, "%s: no slice kept though the first X event ends at %zu",
                          mut_current, x_end);
        }
        if (ft == FT_CSV && cut > 0) {
            /* the header and first record end at the second newline: a cut well after it
             * keeps at least that record when the file is a table the loader reads */
            const char *nl = memchr(orig, '\n', n);
            const char *nl2 = nl ? memchr(nl + 1, '\n', n - (size_t)(nl + 1 - orig)) : NULL;
            if (nl2 && cut > (size_t)(nl2 - orig) + 1 && !strcmp(base_of(file), "kernel_details.csv")) {
                st->kept_checked++;
                if (r.rows[TK_KERNELS] == 0)
                    test_fail(__FILE__, __LINE__, "%s: no kernel row kept", mut_current);
            }
        }
    }
    /* flips: a few random bytes set to random values (controls, quotes, high bytes) */
    char *m = malloc(n ? n : 1);
    for (int k = 0; k < nflips && n > 0; k++) {
        memcpy(m, orig, n);
        int nb = 1 + (int)(rnd() % 8);
        for (int j = 0; j < nb; j++)
            m[rnd() % n] = (char)(rnd() & 0xff);
        if (write_all(file, m, n))
            continue;
        snprintf(mut_current, sizeof mut_current, "%s with %d flipped bytes (flip set %d)", file, nb, k);
        load_once(root, file);
        st->loads++;
        st->flips++;
    }
    free(m);
    write_all(file, orig, n);
    free(orig);
}

/* Copies src to a fresh temporary directory; returns the copy's root (malloc'd) or NULL. */
static char *copy_capture(const char *src)
{
    char tmpl[] = "/tmp/aptop-mut-XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s/cap'", src, tmpl);
    int stc;
    free(test_run(cmd, &stc));
    if (stc != 0)
        return NULL;
    char *root = malloc(strlen(tmpl) + 8);
    sprintf(root, "%s/cap", tmpl);
    return root;
}

static void remove_copy(char *root)
{
    char cmd[1200];
    char *slash = strrchr(root, '/');
    *slash = 0;   /* the mkdtemp directory */
    if (!strncmp(root, "/tmp/aptop-mut-", 15)) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        int stc;
        free(test_run(cmd, &stc));
    }
    free(root);
}

/* Runs the mutations over every file of a copy of src; files bigger than big_bytes get
 * fewer points. */
static void mutate_capture(const char *src, int npoints, int nflips, size_t big_bytes)
{
    struct stat sst;
    if (stat(src, &sst))
        SKIP("capture not found (run make fixtures)");
    char *root = copy_capture(src);
    CHECK(root != NULL);
    if (!root)
        return;
    /* the untouched copy must load */
    struct load_result base = load_once(root, "");
    CHECK_INT(base.discover_rc, 0);
    struct flist l = { 0 };
    list_files(root, &l);
    if (l.n)
        qsort(l.p, l.n, sizeof *l.p, cmp_str);
    struct mut_stats st = { 0 };
    double t0 = now_s();
    signal(SIGALRM, mut_on_alarm);
    for (size_t i = 0; i < l.n; i++) {
        const char *bn = base_of(l.p[i]);
        if (!strcmp(bn, "EXPECTED.json") || !strcmp(bn, "README.md"))
            continue;
        struct stat fs;
        if (stat(l.p[i], &fs) || fs.st_size == 0)
            continue;
        bool big = (size_t)fs.st_size > big_bytes;
        alarm(MUT_HANG_SECONDS);
        mutate_file(root, l.p[i], big ? 4 : npoints, big ? 1 : nflips, &st);
        alarm(0);
    }
    st.secs = now_s() - t0;
    printf("  %s: %zu files, %d loads (%d cut checks, %d kept checks, %d flip sets), %.1f s\n",
           src, l.n, st.loads, st.cuts_checked, st.kept_checked, st.flips, st.secs);
    CHECK(st.loads > 0);
    flist_free(&l);
    remove_copy(root);
}

TEST(mutation_fixture_vllm_decode_2rank)
{
    mutate_capture("fixtures/vllm_decode_2rank", 6, 2, 1u << 20);
}

TEST(mutation_fixture_prof_classb)
{
    mutate_capture("fixtures/prof_classb", 8, 3, 1u << 20);
}

TEST(mutation_fixture_broken)
{
    /* already-broken inputs, broken again; each case folder is a capture of its own */
    static const char *cases[] = { "truncated_trace", "mid_event", "bad_csv", "gbk_names", "escapes" };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char p[256];
        snprintf(p, sizeof p, "fixtures/broken/%s", cases[i]);
        mutate_capture(p, 6, 2, 1u << 20);
    }
}

TEST(mutation_real_text_rank0)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
    mutate_capture(dir, 6, 1, 256u << 10);
}

TEST(mutation_real_db_rank0)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt");
    mutate_capture(dir, 6, 2, 4u << 20);
}

/* Every file of ../shared/real, whatever its kind (JSON, gzip, CSV, SQLite, ...), alone in a
 * folder under its own name, cut short, with bytes flipped, with bytes inserted and with a
 * range deleted; each damaged copy loaded twice through the index cache (the cold load
 * writes it, the second reads it back). Never a crash or a hang (ASan and UBSan in make
 * check); bounded by a time budget, the number of loads printed. */
#define MUT_EVERY_BUDGET_S 150.0
TEST(mutation_every_real_file)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    struct flist l = { 0 };
    list_files(real, &l);
    qsort(l.p, l.n, sizeof *l.p, cmp_str);
    char root[] = "/tmp/aptop-mut-every-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    struct cache_opts co;
    cache_opts_default(&co);
    co.enabled = true;
    co.min_input = 0;
    co.max_bytes = 64u << 20;
    snprintf(co.dir, sizeof co.dir, "%s/cache", root);
    mut_cache = &co;
    double t0 = now_s();
    int loads = 0, files = 0;
    bool out_of_time = false;
    for (size_t i = 0; i < l.n && !out_of_time; i++) {
        if (has_suffix(l.p[i], ".md"))
            continue;
        size_t n = 0;
        char *b = read_all(l.p[i], &n);
        if (!b || n > (4u << 20)) {
            free(b);
            continue;
        }
        files++;
        char dir[1200], copy[1400];
        snprintf(dir, sizeof dir, "%s/f%zu", root, i);
        mkdir(dir, 0700);
        snprintf(copy, sizeof copy, "%s/%s", dir, base_of(l.p[i]));
        char *m = malloc(n + 128);
        for (int kind = 0; kind < 4 && m; kind++) {
            size_t len = n, at = n ? (size_t)(rnd() % n) : 0;
            memcpy(m, b, n);
            if (kind == 0) {                       /* cut short */
                len = at;
            } else if (kind == 1) {                /* bytes flipped */
                for (int k = 0; k < 8 && n; k++)
                    m[rnd() % n] ^= (char)(1 + rnd() % 255);
            } else if (kind == 2) {                /* bytes inserted */
                memmove(m + at + 64, m + at, n - at);
                for (int k = 0; k < 64; k++)
                    m[at + k] = (char)(rnd() & 0xff);
                len = n + 64;
            } else {                               /* a range deleted */
                size_t del = n - at < 4096 ? n - at : (size_t)(rnd() % 4096);
                memmove(m + at, m + at + del, n - at - del);
                len = n - del;
            }
            if (write_all(copy, m, len) < 0)
                continue;
            snprintf(mut_current, sizeof mut_current, "%s (mutation %d)", l.p[i], kind);
            alarm(MUT_HANG_SECONDS);
            load_once(dir, copy);
            load_once(dir, copy);   /* from the index cache the first load wrote */
            alarm(0);
            loads += 2;
            if (now_s() - t0 > MUT_EVERY_BUDGET_S)
                out_of_time = true;
        }
        free(m);
        free(b);
        unlink(copy);
        rmdir(dir);
    }
    mut_cache = NULL;
    printf("  every real file: %d files, %d loads, %.1f s%s\n", files, loads, now_s() - t0,
           out_of_time ? " (time budget reached: the rest left out)" : "");
    CHECK(loads > 0);
    index_cache_clear(&co);
    rmdir(co.dir);
    rmdir(root);
    flist_free(&l);
}
