/* The decompressed size of a gzip file: see gz_size.h. */
#include "io/files/gz_size.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/files/gz_stream.h"

#define WRAP ((uint64_t)1 << 32)          /* ISIZE counts modulo this */
#define MAX_RATIO 1032u                   /* deflate's largest expansion */
#define SAMPLE_OUT ((uint64_t)32 << 20)   /* decompressed bytes measured when the trailer is unclear */

/* Decompressed bytes per compressed byte over the start of the stream, as out/in; *whole when
 * the stream ended inside the sample (then *out is its exact size). false when unreadable. */
static int sample(int fd, uint64_t *out, uint64_t *in, int *whole)
{
    struct gz_stream *g = gz_stream_open_fd(fd);
    char *buf = malloc(1 << 20);
    int ok = g && buf;
    *out = 0;
    *whole = 0;
    size_t n = 0;
    while (ok && *out < SAMPLE_OUT && (n = gz_stream_read(g, buf, 1 << 20)) > 0)
        *out += n;
    if (ok) {
        struct gz_status st;
        gz_stream_status(g, &st);
        *whole = n == 0 && st.end == GZ_COMPLETE;
        *in = gz_stream_in_done(g);
        ok = *in > 0;
    }
    free(buf);
    gz_stream_close(g);
    return ok;
}

uint64_t gz_decompressed_size(const char *path, uint64_t file_size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return file_size;
    uint64_t isize = gz_size_hint(fd, file_size);
    uint64_t lo = file_size / 2;
    uint64_t hi = file_size > (UINT64_MAX - (1 << 20)) / MAX_RATIO ? UINT64_MAX : file_size * MAX_RATIO + (1 << 20);
    /* the candidates ISIZE + k * 4 GiB in [lo, hi] */
    uint64_t first = isize >= lo ? isize : isize + (lo - isize + WRAP - 1) / WRAP * WRAP;
    uint64_t count = first > hi ? 0 : (hi - first) / WRAP + 1;
    if (count == 1) {
        close(fd);
        return first;
    }
    uint64_t out, in;
    int whole;
    if (!sample(fd, &out, &in, &whole)) {
        close(fd);
        return file_size;
    }
    close(fd);
    if (whole)
        return out;
    uint64_t est = (uint64_t)((double)out / (double)in * (double)file_size);   /* an estimate, not a figure */
    if (count) {
        uint64_t k = est > first ? (est - first + WRAP / 2) / WRAP : 0;
        if (k > count - 1)
            k = count - 1;
        uint64_t near = first + k * WRAP;
        if (near / 2 <= est && est / 2 <= near)
            return near;
    }
    return est;
}
