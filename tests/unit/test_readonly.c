/* The read-only promise: copies of a real text capture, of WAL-mode SQLite captures and of a
 * fixture made read-only are hashed (names, modes, sizes, mtimes, contents) before and after
 * every kind of use of the real binary (--list, report of every section in every format,
 * --prefer db, --rank); nothing may be created, changed or left behind (no -wal, -shm,
 * -journal). Tests run as root, where permissions stop nothing, so the hash is the check.
 * The UI part is in tests/ui/test_hardening_ui.c. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"

#define RO_SECTIONS "summary,kernels,ops,apis,step_trace,flows,steps,phases,ranks,comm"

static const char *ro_bin(void)
{
    const char *b = getenv("APTOP_BIN");
    return b ? b : "build/aptop";
}

struct ro_buf { char *s; size_t n, cap; };

static void ro_append(struct ro_buf *b, const char *line)
{
    size_t l = strlen(line);
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, line, l + 1);
    b->n += l;
}

static uint64_t fnv_file(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ull;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 0x100000001b3ull;
    fclose(f);
    return h;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line per entry under dir (sorted, recursive): path, mode, size, mtime, content hash. */
static void tree_state(const char *dir, const char *rel, struct ro_buf *out)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++) {
        char p[2048], r[2048], line[4400];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        snprintf(r, sizeof r, "%s/%s", rel, names[i]);
        struct stat st;
        if (lstat(p, &st) == 0) {
            snprintf(line, sizeof line, "%s mode=%o size=%lld mtime=%lld.%09ld hash=%016llx\n", r,
                     (unsigned)st.st_mode, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec, S_ISREG(st.st_mode) ? (unsigned long long)fnv_file(p) : 0ull);
            ro_append(out, line);
            if (S_ISDIR(st.st_mode))
                tree_state(p, r, out);
        }
        free(names[i]);
    }
    free(names);
}

static char *tree_hash(const char *dir)
{
    struct ro_buf b = { 0 };
    ro_append(&b, "");
    tree_state(dir, ".", &b);
    return b.s;
}

/* Prints the lines of a not in b (what changed), for a failing check. */
static void show_changes(const char *a, const char *b)
{
    char *bc = strdup(b);
    for (char *save = NULL, *l = strtok_r(bc, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (!strstr(a, l))
            printf("    after only:  %s\n", l);
    free(bc);
    char *ac = strdup(a);
    for (char *save = NULL, *l = strtok_r(ac, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (!strstr(b, l))
            printf("    before only: %s\n", l);
    free(ac);
}

static char *ro_copy(const char *src, bool readonly)
{
    char tmpl[] = "/tmp/aptop-ro-XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "cp -Rp '%s' '%s/cap' && chmod -R u+w '%s/cap'%s%s%s", src, tmpl, tmpl,
             readonly ? " && chmod -R a-w '" : "", readonly ? tmpl : "", readonly ? "/cap'" : "");
    int st;
    free(test_run(cmd, &st));
    if (st)
        return NULL;
    char *root = malloc(strlen(tmpl) + 8);
    sprintf(root, "%s/cap", tmpl);
    return root;
}

static void ro_remove(char *root)
{
    char cmd[2200];
    char *slash = strrchr(root, '/');
    *slash = 0;
    if (!strncmp(root, "/tmp/aptop-ro-", 14)) {
        snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", root, root);
        int st;
        free(test_run(cmd, &st));
    }
    free(root);
}

/* Runs every non-interactive use on the copy and checks the tree after each. */
static void ro_check_all_uses(const char *src, bool readonly)
{
    if (access(ro_bin(), X_OK))
        SKIP("aptop binary not built");
    char *root = ro_copy(src, readonly);
    CHECK(root != NULL);
    if (!root)
        return;
    char *before = tree_hash(root);
    static const char *const uses[] = {
        "--list", "report", "report --section " RO_SECTIONS,
        "report --format json --section " RO_SECTIONS, "report --format csv --section " RO_SECTIONS,
        "report --prefer db --section " RO_SECTIONS, "report --prefer db --format json --section " RO_SECTIONS,
        "report --rank 0 --section " RO_SECTIONS, "report --top 3 --section kernels,comm",
    };
    int runs = 0;
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        char cmd[2400];
        snprintf(cmd, sizeof cmd, "%s %s '%s' >/dev/null 2>&1", ro_bin(), uses[i], root);
        int st;
        free(test_run(cmd, &st));
        if (st != 0)
            test_fail(__FILE__, __LINE__, "`aptop %s` on %s exited %d", uses[i], src, st);
        runs++;
        char *after = tree_hash(root);
        if (strcmp(before, after)) {
            test_fail(__FILE__, __LINE__, "`aptop %s` changed %s", uses[i], src);
            show_changes(before, after);
        }
        free(after);
    }
    printf("  %s%s: %d uses, tree unchanged\n", src, readonly ? " (read-only copy)" : "", runs);
    free(before);
    ro_remove(root);
}

TEST(readonly_real_text_capture)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/test/data/pytorch/text/level1");
    ro_check_all_uses(dir, false);
}

TEST(readonly_real_wal_db_captures)
{
    REAL_OR_SKIP(full, "Ascend-msinsight/server/src/test/test_data/full_db");
    ro_check_all_uses(full, false);
    REAL_OR_SKIP(rank0, "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt");
    ro_check_all_uses(rank0, false);
}

TEST(readonly_fixture_read_only_dir)
{
    if (access("fixtures/vllm_decode_2rank", R_OK))
        SKIP("fixtures missing: make fixtures");
    ro_check_all_uses("fixtures/vllm_decode_2rank", true);
    if (access("fixtures/prof_classb", R_OK) == 0)
        ro_check_all_uses("fixtures/prof_classb", true);
}

/* The check itself: a tree that does change is seen to change. */
TEST(readonly_hash_sees_changes)
{
    char dir[] = "/tmp/aptop-ro-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[256];
    snprintf(p, sizeof p, "%s/a.db", dir);
    FILE *f = fopen(p, "w");
    fputs("x", f);
    fclose(f);
    char *h0 = tree_hash(dir);
    snprintf(p, sizeof p, "%s/a.db-shm", dir);
    f = fopen(p, "w");
    fclose(f);
    char *h1 = tree_hash(dir);
    CHECK(strcmp(h0, h1) != 0);
    unlink(p);
    char *h2 = tree_hash(dir);
    snprintf(p, sizeof p, "%s/a.db", dir);
    f = fopen(p, "r+");
    fputs("y", f);
    fclose(f);
    char *h3 = tree_hash(dir);
    CHECK(strcmp(h2, h3) != 0);
    unlink(p);
    rmdir(dir);
    free(h0);
    free(h1);
    free(h2);
    free(h3);
}

/* XDG_CACHE_HOME or XDG_CONFIG_HOME pointing inside the capture: nothing is written there
 * (not even a folder made before the check), the cache is off for the run with a warning
 * that says why, and the report is still printed. */
TEST(readonly_xdg_folders_inside_the_capture)
{
    if (access(ro_bin(), X_OK))
        SKIP("aptop binary not built");
    if (access("fixtures/vllm_decode_2rank", R_OK))
        SKIP("fixtures missing: make fixtures");
    char *root = ro_copy("fixtures/vllm_decode_2rank", false);
    CHECK(root != NULL);
    if (!root)
        return;
    char *before = tree_hash(root);
    char cmd[4400], script[256];
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME='%s/xdg' %s report --cache-min 0 --section summary '%s' 2>&1",
             root, ro_bin(), root);
    int st;
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "warning") && strstr(out, "inside the capture") && strstr(out, "Events"));
    free(out);
    /* the explorer (off-screen) changes a table's sort: a setting it would save */
    CHECK(test_temp_file("ro-script", "loaded\nkeys 3\nwait Kernels\nkeys > > I\nkeys !\ndump\n", script, sizeof script));
    snprintf(cmd, sizeof cmd, "XDG_CONFIG_HOME='%s/cfg' XDG_CACHE_HOME='%s/rank0/xdg' %s --cache-min 0 --script '%s' '%s' 2>&1",
             root, root, ro_bin(), script, root);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "settings not saved"));   /* said once on the status line, kept in ! */
    free(out);
    unlink(script);
    char *after = tree_hash(root);
    if (strcmp(before, after)) {
        test_fail(__FILE__, __LINE__, "XDG folders inside the capture: the capture changed");
        show_changes(before, after);
    }
    free(before);
    free(after);
    ro_remove(root);
}
