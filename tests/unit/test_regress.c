/* Replays every input kept under tests/fuzz/regress/<target>/ (inputs that once crashed or
 * hung a fuzz target) and tests/fuzz/corpus/<target>/ through the very entry points the
 * fuzz targets use, so `make check` covers them under ASan+UBSan even without clang.
 * The fuzz sources are included here with their entry point renamed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../runner.h"

/* the fuzz sources are built with clang; gcc's -Wextra says more about them */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#define LLVMFuzzerTestOneInput regress_fuzz_trace
#include "../fuzz/fuzz_trace.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_csv
#include "../fuzz/fuzz_csv.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_db
#include "../fuzz/fuzz_db.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_comm
#include "../fuzz/fuzz_comm.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_capture
#include "../fuzz/fuzz_capture.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_cache
#include "../fuzz/fuzz_cache.c"
#undef LLVMFuzzerTestOneInput
/* the remaining targets' file-scope names are renamed so they meet no local of this file */
#define LLVMFuzzerTestOneInput regress_fuzz_clock
#define write_to fuzz_clock_write_to
#include "../fuzz/fuzz_clock.c"
#undef write_to
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_diff
#define split fuzz_diff_split
#include "../fuzz/fuzz_diff.c"
#undef split
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_fuzz_gzip
#define load fuzz_gzip_load
#include "../fuzz/fuzz_gzip.c"
#undef load
#undef LLVMFuzzerTestOneInput
#pragma GCC diagnostic pop

typedef int (*regress_entry)(const uint8_t *, size_t);

/* A hand-made input with its exact length (it may hold NUL bytes). */
struct seed { const char *s; size_t n; };
#define SEED(lit) { lit, sizeof lit - 1 }

static void run_seeds(const struct seed *sd, size_t n, regress_entry fn)
{
    for (size_t i = 0; i < n; i++)
        fn((const uint8_t *)sd[i].s, sd[i].n);
    trace_json_set_chunk_size(4u << 20);
}

/* Inputs larger than this are left out of the replay (the fuzzers run with -max_len=65536;
 * corpus seeds from fixtures may be bigger and would only slow the suite). */
#define REGRESS_MAX_BYTES (1u << 20)
/* A time budget per target and directory so a grown corpus cannot stretch the suite. */
#define REGRESS_BUDGET_S 4.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > REGRESS_MAX_BYTES) {
        fclose(f);
        return NULL;
    }
    uint8_t *b = malloc((size_t)st.st_size + 1);
    *len = b ? fread(b, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    return b;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of folder (sorted, so runs are repeatable); returns the count. */
static size_t replay_dir(const char *folder, regress_entry fn, double budget_s)
{
    DIR *dp = opendir(folder);
    if (!dp)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    size_t ran = 0;
    double t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        size_t len = 0;
        uint8_t *b = now_s() - t0 < budget_s ? slurp(path, &len) : NULL;
        if (b) {
            fn(b, len);
            ran++;
            free(b);
        }
        free(names[i]);
    }
    free(names);
    trace_json_set_chunk_size(4u << 20);    /* the trace target changes it; restore the default */
    return ran;
}

/* Regular files in folder that a replay would read. */
static size_t count_files(const char *folder)
{
    DIR *dp = opendir(folder);
    size_t n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)))
        n += e->d_name[0] != '.';
    if (dp)
        closedir(dp);
    return n;
}

static size_t replay_target(const char *name, regress_entry fn)
{
    char folder[256];
    snprintf(folder, sizeof folder, "tests/fuzz/regress/%s", name);
    size_t n = replay_dir(folder, fn, 1e9);     /* every kept finding, whatever it costs */
    /* a kept finding too large to replay would pass unseen */
    if (n != count_files(folder))
        test_fail(__FILE__, __LINE__, "%s: %zu of %zu kept inputs replayed", folder, n, count_files(folder));
    snprintf(folder, sizeof folder, "tests/fuzz/corpus/%s", name);
    n += replay_dir(folder, fn, REGRESS_BUDGET_S);
    return n;
}

TEST(regress_fuzz_trace_inputs)
{
    /* hand-made inputs first: they always run, corpus or not */
    static const struct seed seeds[] = {
        SEED("\xff[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"1.5\",\"dur\":2}"),
        SEED("\x01{\"traceEvents\":[{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1},{\"ph\":\"E\""),
        SEED("\x10["), SEED("\x00"), SEED("\x7f{\"traceEvents\":"),
        SEED("\x00[{\"ph\":\"X\",\"ts\":1e308,\"dur\":-1e308,\"pid\":1,\"tid\":1}]"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_trace);
    size_t n = replay_target("fuzz_trace", regress_fuzz_trace);
    printf("  fuzz_trace: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_csv_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x00Name,Type,Start Time(us),Duration(us)\na,b,\"1\t\",2\n"),
        SEED("\x11Step,Computing\n1,\n\"unterminated"), SEED("\x05"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_csv);
    size_t n = replay_target("fuzz_csv", regress_fuzz_csv);
    printf("  fuzz_csv: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_db_inputs)
{
    static const struct seed seeds[] = {
        SEED("SQLite format 3\0\x10\x00\x01\x01"), SEED(""), SEED("garbage"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_db);
    size_t n = replay_target("fuzz_db", regress_fuzz_db);
    printf("  fuzz_db: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_comm_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x07{\"step1\":{\"p2p\":{},\"collective\":{\"hcom_allReduce__1_1\":{\"Communication Time Info\":{\"Elapse Time(ms)\":1}}}}}"),
        SEED("\x03{"), SEED("\x05[]"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_comm);
    size_t n = replay_target("fuzz_comm", regress_fuzz_comm);
    printf("  fuzz_comm: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_capture_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x00{\"rank_id\": 5}"), SEED("\x01{\"rank_id\": \"-1\"}"), SEED("\x00{\"rank_id\": 1e99}"),
        SEED("\x02{"), SEED("\x03[{\"ph\":\"X\""), SEED("\x04Name,Type\n"), SEED("\x07SQLite format 3"),
        SEED("\x00"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_capture);
    size_t n = replay_target("fuzz_capture", regress_fuzz_capture);
    printf("  fuzz_capture: %zu kept inputs replayed\n", n);
}

/* The cache of the fuzz target's built-in trace with every byte position damaged in turn
 * (checksum made right again), so every field's check is met; then any kept inputs. */
TEST(regress_fuzz_cache_inputs)
{
    static const uint8_t xors[] = { 0xff, 0x01 };
    for (uint32_t off = 0; off < 1900; off++) {   /* the built-in cache is 1880 bytes */
        for (size_t k = 0; k < sizeof xors; k++) {
            uint8_t in[6] = { 1, (uint8_t)off, (uint8_t)(off >> 8), 0, 0, xors[k] };
            regress_fuzz_cache(in, sizeof in);
        }
    }
    static const struct seed seeds[] = {
        SEED("\x00[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]"), SEED("\x00"),
        SEED("\x00[{\"ph\":\"X\""), SEED("\x01"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_cache);
    size_t n = replay_target("fuzz_cache", regress_fuzz_cache);
    printf("  fuzz_cache: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_clock_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x00"),
        SEED("\x01clock_monotonic_raw: 18446744073709551615\ncntvct: 1\n"),
        SEED("\x02[\"Start Info\"]\nclock_monotonic_raw: -9223372036854775808\n"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_clock);
    size_t n = replay_target("fuzz_clock", regress_fuzz_clock);
    printf("  fuzz_clock: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_diff_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x00"),
        SEED("\x01\n\n\n"),
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_diff);
    size_t n = replay_target("fuzz_diff", regress_fuzz_diff);
    printf("  fuzz_diff: %zu kept inputs replayed\n", n);
}

TEST(regress_fuzz_gzip_inputs)
{
    static const struct seed seeds[] = {
        SEED("\x1f\x8b"),
        SEED("\x00\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"),   /* a header and nothing after */
    };
    run_seeds(seeds, sizeof seeds / sizeof seeds[0], regress_fuzz_gzip);
    size_t n = replay_target("fuzz_gzip", regress_fuzz_gzip);
    printf("  fuzz_gzip: %zu kept inputs replayed\n", n);
}
