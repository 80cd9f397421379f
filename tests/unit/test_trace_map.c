/* Mapped trace files: a file that shrinks while mapped reads as zeros past its new end (no
 * SIGBUS), the mapping says so, and other mappings are not touched. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace_json_map.h"

static int temp_file(char *path, size_t len, char fill)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    char *b = malloc(len);
    memset(b, fill, len);
    ssize_t k = write(fd, b, len);
    free(b);
    if (k != (ssize_t)len) {
        close(fd);
        return -1;
    }
    return fd;
}

TEST(trace_map_shrunk_file_reads_zeros)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)ps * 4;
    char pa[] = "/tmp/aptop_map_XXXXXX", pb[] = "/tmp/aptop_map_XXXXXX";
    int fa = temp_file(pa, len, 'a'), fb = temp_file(pb, len, 'b');
    CHECK(fa >= 0 && fb >= 0);
    if (fa < 0 || fb < 0)
        return;
    struct trace_map a = { 0 }, b = { 0 };
    CHECK(trace_map_open(&a, fa, len));
    CHECK(trace_map_open(&b, fb, len));
    if (a.p && b.p) {
        CHECK(!trace_map_shrank(&a));
        CHECK_INT(ftruncate(fa, 100), 0);
        CHECK_INT(a.p[50], 'a');            /* still in the file */
        CHECK_INT(a.p[len - 1], 0);         /* lost: zeros, not SIGBUS */
        CHECK_INT(a.p[(size_t)ps + 1], 0);
        CHECK(trace_map_shrank(&a));
        CHECK(!trace_map_shrank(&b));
        CHECK_INT(b.p[len - 1], 'b');
    }
    trace_map_close(&a);
    trace_map_close(&b);
    CHECK(a.p == NULL);
    struct trace_map e = { 0 };
    CHECK(!trace_map_open(&e, fa, 0));      /* nothing to map */
    close(fa);
    close(fb);
    unlink(pa);
    unlink(pb);
}
