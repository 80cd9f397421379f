/* A rowset that memory ran out for says so: rowset_row counts the rows it could not add, the
 * text writer ends the table with how many are not shown, and report_print's status is then
 * the out-of-memory one. Memory is made to run out for real in a child process: under
 * AddressSanitizer by its allocation cap (the child is this binary again, with the cap in
 * ASAN_OPTIONS), else by an address-space limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/rowsets/rowset.h"
#include "model/rowsets/rowset_write.h"

#include "../runner.h"

#define CHILD_ENV "APTOP_TEST_ROWSET_OOM_CHILD"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The child's part: rows until memory runs out, then the table as text on stdout. */
static void fill_until_out_of_memory(void)
{
#ifndef UNDER_ASAN
    /* 64 MiB of address space beyond what the process has: the rowset's doubling meets it */
    unsigned long long kb = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f) && sscanf(line, "VmSize: %llu kB", &kb) != 1)
        ;
    if (f)
        fclose(f);
    struct rlimit rl = { (rlim_t)(kb * 1024 + (64ull << 20)), (rlim_t)(kb * 1024 + (64ull << 20)) };
    setrlimit(RLIMIT_AS, &rl);
#endif
    struct rowset *rs = rowset_new("rows");
    if (!rs)
        _exit(3);
    size_t c = rowset_col(rs, "n", "N", RS_INT, 0);
    for (int k = 0; k < 7; k++)
        rowset_col(rs, k ? "pad" : "pad0", "Pad", RS_INT, 0);
    size_t added = 0;
    for (size_t i = 0; i < ((size_t)1 << 30) && !rs->lost_rows; i++) {
        size_t r = rowset_row(rs);
        if (r != SIZE_MAX) {
            rowset_int(rs, r, c, (int64_t)i);
            added++;
        }
    }
    rowset_truncate(rs, 3);   /* a short table to print: the note is what is looked for */
    rowset_write(rs, FMT_TEXT, stdout);
    printf("lost=%zu added=%zu\n", rs->lost_rows, added);
    fflush(stdout);
    _exit(rs->lost_rows == 1 ? 0 : 4);
}

TEST(rowset_out_of_memory_says_rows_are_missing)
{
    if (getenv(CHILD_ENV))
        fill_until_out_of_memory();
    if (test_emulated(NULL))
        SKIP("it starts its own binary again, which qemu-user runs only with binfmt support");
    char cmd[4200];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        SKIP("/proc/self/exe not readable");
    self[n] = 0;
    snprintf(cmd, sizeof cmd,
             CHILD_ENV "=1 ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=0 "
             "'%s' rowset_out_of_memory_says_rows_are_missing 2>/dev/null", self);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p)
        return;
    char out[8192] = "";
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    int st = pclose(p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (!strstr(out, "(1 more row not shown: memory ran out)"))
        test_fail(__FILE__, __LINE__, "the table does not say a row is missing:\n%s", out);
    CHECK(strstr(out, "lost=1 added=") != NULL);
}
