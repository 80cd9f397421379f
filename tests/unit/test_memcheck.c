/* memcheck: the estimate from file sizes and the refusal against fake limits (a meminfo
 * file, an address-space limit, a cgroup directory) written under /tmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "io/load/memcheck.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Two ranks: rank 0 with a 4 GiB trace and a 100 MiB CSV, rank 1 with a 1 GiB trace. */
static void fake_capture(struct capture *c, struct capture_rank r[2], struct capture_file f[3])
{
    memset(c, 0, sizeof *c);
    memset(r, 0, 2 * sizeof *r);
    memset(f, 0, 3 * sizeof *f);
    f[0] = (struct capture_file){ .path = "r0/trace_view.json", .kind = FK_TRACE_JSON, .size = 4ull << 30 };
    f[1] = (struct capture_file){ .path = "r0/kernel_details.csv", .kind = FK_KERNEL_DETAILS, .size = 100ull << 20 };
    f[2] = (struct capture_file){ .path = "r1/trace_view.json", .kind = FK_TRACE_JSON, .size = 1ull << 30 };
    r[0] = (struct capture_rank){ .rank = 0, .device = -1, .files = f, .nfiles = 2 };
    r[1] = (struct capture_rank){ .rank = 1, .device = -1, .files = f + 2, .nfiles = 1 };
    c->root = "/data/big_capture";
    c->ranks = r;
    c->nranks = 2;
}

static bool has_error_naming(struct diag *d, const char *path, const char *text)
{
    for (size_t i = 0; i < diag_count(d); i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m))
            continue;
        bool ok = m.level == DIAG_ERROR && !strcmp(m.path, path) && strstr(m.text, text);
        free(m.path);
        free(m.text);
        if (ok)
            return true;
    }
    return false;
}

TEST(memcheck_estimate_scales_with_files_and_rank)
{
    struct capture c;
    struct capture_rank r[2];
    struct capture_file f[3];
    fake_capture(&c, r, f);
    uint64_t all = memcheck_estimate(&c, -1), r0 = memcheck_estimate(&c, 0), r1 = memcheck_estimate(&c, 1);
    /* more than a quarter of the trace bytes, and no 32-bit wrap on a 4 GiB file */
    CHECK(r0 > (4ull << 30) / 4 + (100ull << 20) / 2);
    CHECK(r1 > (1ull << 30) / 4);
    CHECK(r0 < (5ull << 30));
    CHECK(all > r0 && all > r1);
    CHECK(all < r0 + r1);   /* the fixed part counted once */
    /* a file with a problem is not loaded, so not counted */
    f[0].problem = "not readable";
    CHECK(memcheck_estimate(&c, 0) < r0 - (1ull << 30));
}

TEST(memcheck_refuses_against_fake_meminfo)
{
    char dir[] = "/tmp/aptop-memcheck-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char mi[256];
    snprintf(mi, sizeof mi, "%s/meminfo", dir);
    write_file(mi, "MemTotal:        4000000 kB\nMemFree:          100000 kB\nMemAvailable:    1048576 kB\n");
    struct capture c;
    struct capture_rank r[2];
    struct capture_file f[3];
    fake_capture(&c, r, f);
    struct memcheck_env env = { .meminfo_path = mi, .cgroup_dir = "", .as_limit = UINT64_MAX };
    CHECK(memcheck_available(&env) == 1048576ull * 1024);
    unsetenv("APTOP_NO_MEMCHECK");
    struct diag *d = diag_new();
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 1);
    CHECK(has_error_naming(d, "/data/big_capture", "only 1.0 GiB is available"));
    CHECK(has_error_naming(d, "/data/big_capture", "--rank"));
    diag_free(d);
    /* rank 1 alone (1 GiB trace) fits in 1 GiB */
    d = diag_new();
    CHECK_INT(memcheck_capture_env(&c, 1, &env, d), 0);
    CHECK_INT(diag_count(d), 0);
    /* plenty of memory: fits */
    write_file(mi, "MemTotal:  64000000 kB\nMemAvailable:   60000000 kB\n");
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 0);
    /* the override */
    write_file(mi, "MemAvailable:   1000 kB\n");
    setenv("APTOP_NO_MEMCHECK", "1", 1);
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 0);
    unsetenv("APTOP_NO_MEMCHECK");
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 1);
    diag_free(d);
    /* no meminfo at all and no other limit: nothing to compare with, so it loads */
    unlink(mi);
    d = diag_new();
    CHECK(memcheck_available(&env) == UINT64_MAX);
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 0);
    diag_free(d);
    rmdir(dir);
}

TEST(memcheck_address_space_and_cgroup_limits)
{
    char dir[] = "/tmp/aptop-memcheck-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char mi[256], cg[256], sub[300], p[400];
    snprintf(mi, sizeof mi, "%s/meminfo", dir);
    write_file(mi, "MemAvailable:   60000000 kB\n");
    struct capture c;
    struct capture_rank r[2];
    struct capture_file f[3];
    fake_capture(&c, r, f);
    /* RLIMIT_AS-like limit of 2 GiB */
    struct memcheck_env env = { .meminfo_path = mi, .cgroup_dir = "", .as_limit = 2ull << 30 };
    CHECK(memcheck_available(&env) == 2ull << 30);
    struct diag *d = diag_new();
    CHECK_INT(memcheck_capture_env(&c, 0, &env, d), 1);
    CHECK_INT(memcheck_capture_env(&c, 1, &env, d), 0);
    diag_free(d);
    /* cgroup: parent memory.max 3 GiB with 1 GiB used, child unlimited */
    snprintf(cg, sizeof cg, "%s/cg", dir);
    snprintf(sub, sizeof sub, "%s/child", cg);
    mkdir(cg, 0700);
    mkdir(sub, 0700);
    snprintf(p, sizeof p, "%s/memory.max", cg);
    write_file(p, "3221225472\n");
    snprintf(p, sizeof p, "%s/memory.current", cg);
    write_file(p, "1073741824\n");
    snprintf(p, sizeof p, "%s/memory.max", sub);
    write_file(p, "max\n");
    env.as_limit = UINT64_MAX;
    env.cgroup_dir = sub;
    CHECK(memcheck_available(&env) == 2ull << 30);
    d = diag_new();
    CHECK_INT(memcheck_capture_env(&c, -1, &env, d), 1);
    CHECK(has_error_naming(d, "/data/big_capture", "2.0 GiB is available"));
    diag_free(d);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    int st;
    free(test_run(cmd, &st));
}

TEST(memcheck_fixture_fits_here)
{
    struct diag *d = diag_new();
    struct capture c;
    if (capture_discover("fixtures/vllm_decode_2rank", &c, d)) {
        capture_free(&c);
        diag_free(d);
        SKIP("fixtures not generated");
    }
    uint64_t est = memcheck_estimate(&c, -1);
    CHECK(est > 32ull << 20);
    CHECK(est < 64ull << 20);
    CHECK_INT(memcheck_capture(&c, d), 0);
    capture_free(&c);
    diag_free(d);
}
