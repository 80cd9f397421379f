/* The decompressed size of a gzip file (io/files/gz_size.h) and the memory estimate built on it:
 * every real .json.gz gives the size Python's gzip module reads; a file large enough that
 * the trailer's ISIZE (modulo 4 GiB) has two readings, and a file of two members (the
 * trailer names the last one only), give their true size; a long stream whose trailer says
 * too little is measured on its start; the estimate of a gzip capture counts its
 * decompressed bytes, not its compressed ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/discovery/capture.h"
#include "io/files/gz_size.h"
#include "io/load/memcheck.h"
#include "model/index/diag.h"

#include "../runner.h"

/* Appends a gzip member of the text made by line(i) for i < lines to path. Returns the
 * decompressed bytes written. */
static uint64_t append_member(const char *path, unsigned long lines, int pseudo_random)
{
    gzFile g = gzopen(path, "ab1");
    CHECK(g != NULL);
    if (!g)
        return 0;
    uint64_t n = 0, x = 88172645463325252ull;
    char buf[128];
    for (unsigned long i = 0; i < lines; i++) {
        int k;
        if (pseudo_random) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift: text that compresses little */
            k = snprintf(buf, sizeof buf, "{\"ts\":\"%016llx%016llx\"},\n", (unsigned long long)x,
                         (unsigned long long)(x * 2654435761u));
        } else {
            k = snprintf(buf, sizeof buf, "{\"ph\":\"X\",\"name\":\"MatMul\",\"ts\":%lu,\"dur\":3},\n", i);
        }
        CHECK(gzwrite(g, buf, (unsigned)k) == k);
        n += (uint64_t)k;
    }
    gzclose(g);
    return n;
}

static uint64_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* What Python's gzip module reads from path (every member), or -1. */
static long long python_gzip_size(const char *path)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "python3 -c 'import gzip,sys; print(len(gzip.open(sys.argv[1]).read()))' '%s'", path);
    FILE *p = popen(cmd, "r");
    long long n = -1;
    if (p) {
        if (fscanf(p, "%lld", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void each_real_gz(const char *dir, int *seen)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.json.gz' -type f | sort", dir);
    FILE *p = popen(cmd, "r");
    char line[4096];
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        long long want = python_gzip_size(line);
        uint64_t got = gz_decompressed_size(line, size_of(line));
        if (want < 0 || got != (uint64_t)want)
            test_fail(__FILE__, __LINE__, "%s: %llu bytes, Python's gzip reads %lld", line, (unsigned long long)got, want);
        (*seen)++;
    }
    if (p)
        pclose(p);
}

TEST(gz_size_of_every_real_gzip_equals_python)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    int seen = 0;
    each_real_gz(real, &seen);
    CHECK(seen > 0);
}

TEST(gz_size_when_the_trailer_has_two_readings_or_names_the_last_member)
{
    mkdir("build/test_cache", 0700);
    /* over 4.2 MB compressed: ISIZE and ISIZE + 4 GiB are both possible */
    const char *big = "build/test_cache/gz_size_big.json.gz";
    unlink(big);
    uint64_t want = append_member(big, 300000, 1);
    CHECK(size_of(big) > 4200000);
    CHECK(gz_decompressed_size(big, size_of(big)) == want);

    /* two members, the last a small one: the trailer says 60-odd bytes */
    const char *two = "build/test_cache/gz_size_two.json.gz";
    unlink(two);
    want = append_member(two, 100000, 0);
    want += append_member(two, 1, 0);
    CHECK(gz_decompressed_size(two, size_of(two)) == want);

    /* two members past what is measured: an estimate from the start, not the last member's 60 bytes */
    const char *long_two = "build/test_cache/gz_size_long.json.gz";
    unlink(long_two);
    want = append_member(long_two, 1000000, 0);
    want += append_member(long_two, 1, 0);
    uint64_t got = gz_decompressed_size(long_two, size_of(long_two));
    CHECK(got > want / 4 * 3 && got < want / 4 * 5);
    unlink(big);
    unlink(two);
    unlink(long_two);
}

/* A capture of one .json.gz trace is estimated from what it holds decompressed. */
TEST(gz_size_memory_estimate_counts_decompressed_bytes)
{
    mkdir("build/test_cache", 0700);
    const char *trace = "build/test_cache/gz_size_estimate.pt.trace.json.gz";
    unlink(trace);
    gzFile g = gzopen(trace, "wb1");
    CHECK(g != NULL);
    if (!g)
        return;
    uint64_t plain = 0;
    plain += (uint64_t)gzputs(g, "{\"schemaVersion\":1,\"traceEvents\":[\n");
    for (unsigned long i = 0; i < 400000; i++) {
        char buf[160];
        int k = snprintf(buf, sizeof buf, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
                         "\"ts\":%lu,\"dur\":3},\n", 1000 + i * 5);
        CHECK(gzwrite(g, buf, (unsigned)k) == k);
        plain += (uint64_t)k;
    }
    plain += (uint64_t)gzputs(g, "{\"ph\":\"X\",\"name\":\"end\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1}]}\n");
    gzclose(g);
    struct diag *d = diag_new();
    struct capture c;
    if (capture_discover(trace, &c, d) != 0 || c.nranks != 1 || c.ranks[0].nfiles != 1) {
        test_fail(__FILE__, __LINE__, "the gzip trace was not discovered as one file of one rank");
    } else {
        CHECK(c.ranks[0].files[0].kind == FK_TRACE_JSON);
        uint64_t with = memcheck_estimate(&c, -1);
        struct capture_file *f = &c.ranks[0].files[0];
        char *problem = f->problem;
        f->problem = (char *)"left out";   /* the same capture without the trace: the fixed part */
        uint64_t base = memcheck_estimate(&c, -1);
        f->problem = problem;
        CHECK(plain > 10 * size_of(trace));
        CHECK(with - base >= plain / 2 - 1);   /* the trace's index: half of what it holds */
    }
    capture_free(&c);
    diag_free(d);
    unlink(trace);
}
