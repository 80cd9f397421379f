/* Read-only file mappings: the bytes read in place, pages let go and read again, a file
 * shrunk under its mapping read as zeros (and said), and a SIGBUS that is not a mapping's
 * still ending the process. Loads of traces through mappings are in test_trace_json.c. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runner.h"
#include "io/files/mapped_file.h"

#define PAGE 4096u

/* A new file of size bytes, byte i holding 1 + i % 251 (never 0); its descriptor, its path
 * in path (a mkstemp template). */
static int pattern_file(char *path, size_t size)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    char *b = malloc(size);
    for (size_t i = 0; b && i < size; i++)
        b[i] = (char)(1 + i % 251);
    bool ok = b && write(fd, b, size) == (ssize_t)size;
    free(b);
    if (!ok) {
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

/* How many of the bytes [from, to) of the mapping differ from the pattern. */
static size_t pattern_misses(const struct mapped_file *mf, size_t from, size_t to)
{
    size_t bad = 0;
    for (size_t i = from; i < to; i++)
        bad += mf->data[i] != (char)(1 + i % 251);
    return bad;
}

TEST(mapped_file_reads_in_place_and_pages_let_go_read_again)
{
    char path[] = "/tmp/aptop-map-XXXXXX";
    int fd = pattern_file(path, 16 * PAGE + 77);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    struct mapped_file mf;
    CHECK(mapped_file_open(&mf, fd, 16 * PAGE + 77));
    if (mf.data) {
        CHECK_INT(mf.size, 16 * PAGE + 77);
        CHECK_INT(pattern_misses(&mf, 0, mf.size), 0);
        mapped_file_release(&mf, 100, 9 * PAGE + 5);   /* pages 1 to 8 */
        CHECK_INT(pattern_misses(&mf, 0, mf.size), 0);
        mapped_file_release(&mf, 0, mf.size);
        CHECK_INT(pattern_misses(&mf, 0, mf.size), 0);
        uint64_t at = 0;
        CHECK(!mapped_file_was_cut(&mf, &at));
        mapped_file_close(&mf);
        CHECK(mf.data == NULL);
    }
    struct mapped_file empty;
    CHECK(!mapped_file_open(&empty, fd, 0));   /* nothing to map */
    CHECK(empty.data == NULL);
    mapped_file_close(&empty);   /* closing what was never open does nothing */
    close(fd);
    unlink(path);
}

/* A pattern file of size bytes mapped into *mf, for the tests that cut it under the mapping;
 * -1 when skipped (an emulator that cannot tell where a fault was) or not made. */
static int map_cuttable_pattern(char *path, size_t size, struct mapped_file *mf)
{
    if (test_emulated("s390x")) {
        test_skip("qemu-s390x gives a fault's SIGBUS a wrong address");
        return -1;
    }
    int fd = pattern_file(path, size);
    CHECK(fd >= 0);
    if (fd >= 0)
        CHECK(mapped_file_open(mf, fd, size));
    return fd;
}

/* The file shrinks under its mapping: the bytes before its new end are still there, the
 * pages after it read as zeros instead of raising SIGBUS, and the mapping says from where. */
TEST(mapped_file_shrunk_under_it_reads_zeros_and_says_where)
{
    char path[] = "/tmp/aptop-map-XXXXXX";
    size_t size = 8 * PAGE;
    struct mapped_file mf;
    int fd = map_cuttable_pattern(path, size, &mf);
    if (fd < 0)
        return;
    if (mf.data) {
        CHECK_INT(pattern_misses(&mf, 0, size), 0);   /* every page mapped once */
        CHECK_INT(ftruncate(fd, 3 * PAGE + 100), 0);
        CHECK_INT(pattern_misses(&mf, 0, 3 * PAGE + 100), 0);
        volatile const char *p = mf.data;
        CHECK_INT(p[5 * PAGE + 1], 0);   /* past the end: a zero, not a crash */
        size_t nonzero = 0;
        for (size_t i = 3 * PAGE + 100; i < size; i++)
            nonzero += p[i] != 0;
        CHECK_INT(nonzero, 0);
        uint64_t at = 0;
        CHECK(mapped_file_was_cut(&mf, &at));
        CHECK_INT(at, 4 * PAGE);   /* the first page past the end, read by the loop */
        mapped_file_close(&mf);
    }
    /* the next mapping of that slot starts uncut */
    CHECK(mapped_file_open(&mf, fd, 3 * PAGE + 100));
    if (mf.data) {
        uint64_t at = 0;
        CHECK_INT(pattern_misses(&mf, 0, 3 * PAGE + 100), 0);
        CHECK(!mapped_file_was_cut(&mf, &at));
        mapped_file_close(&mf);
    }
    close(fd);
    unlink(path);
}

/* Populating ahead reads nothing differently: the bytes are the file's, a range past the
 * mapping is left alone, and populating over pages the file no longer has (it shrank) neither
 * crashes nor counts as a cut: the cut is found where those pages are read. */
TEST(mapped_file_populated_ahead_reads_the_same)
{
    char path[] = "/tmp/aptop-map-XXXXXX";
    size_t size = 8 * PAGE;
    struct mapped_file mf;
    int fd = map_cuttable_pattern(path, size, &mf);
    if (fd < 0)
        return;
    if (mf.data) {
        mapped_file_populate(&mf, 100, 5 * PAGE + 3);
        mapped_file_populate(&mf, 0, size + PAGE);   /* past the end: ignored */
        CHECK_INT(pattern_misses(&mf, 0, size), 0);
        CHECK_INT(ftruncate(fd, 3 * PAGE + 100), 0);
        mapped_file_populate(&mf, 0, size);
        uint64_t at = 0;
        CHECK(!mapped_file_was_cut(&mf, &at));
        CHECK_INT(pattern_misses(&mf, 0, 3 * PAGE + 100), 0);
        volatile const char *p = mf.data;
        CHECK_INT(p[6 * PAGE], 0);   /* read past the new end: a zero, and now a cut */
        CHECK(mapped_file_was_cut(&mf, &at));
        mapped_file_close(&mf);
    }
    close(fd);
    unlink(path);
}

/* Many mappings at once: each its own, the ones past the registry's room declined. */
TEST(mapped_file_many_at_once)
{
    char path[] = "/tmp/aptop-map-XXXXXX";
    int fd = pattern_file(path, 2 * PAGE);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    struct mapped_file mf[80];
    int open_now = 0;
    for (int k = 0; k < 80; k++)
        open_now += mapped_file_open(&mf[k], fd, 2 * PAGE);
    CHECK(open_now >= 32 && open_now < 80);
    for (int k = 0; k < 80; k++) {
        if (mf[k].data)
            CHECK_INT(pattern_misses(&mf[k], 0, 2 * PAGE), 0);
        mapped_file_close(&mf[k]);
    }
    struct mapped_file again;
    CHECK(mapped_file_open(&again, fd, 2 * PAGE));   /* all given back */
    mapped_file_close(&again);
    close(fd);
    unlink(path);
}

/* A SIGBUS that is no mapping's (sent, not a fault) goes on to what was there before: the
 * process ends, it does not go on as if nothing happened. */
TEST(mapped_file_other_sigbus_still_ends_the_process)
{
    char path[] = "/tmp/aptop-map-XXXXXX";
    int fd = pattern_file(path, PAGE);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    struct mapped_file mf;
    CHECK(mapped_file_open(&mf, fd, PAGE));   /* the handler is in place */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* quiet: under the sanitizers the handler before is theirs, and it reports */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        raise(SIGBUS);
        _exit(0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0));
    mapped_file_close(&mf);
    close(fd);
    unlink(path);
}
