/* libFuzzer target: the gzip path of the trace reader. Mode byte 0: the rest is taken as
 * compressed bytes behind a gzip header (so the inflater meets arbitrary deflate data, bad
 * trailers, concatenated members, garbage after the end). Mode 1: the rest is a trace,
 * compressed here and cut at a point the next two bytes choose (truncated .gz). The reader
 * then finalizes whatever it kept. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(const unsigned char *buf, size_t n, size_t chunk)
{
    trace_json_set_chunk_size(chunk);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    if (m && d) {
        trace_json_load_buffer(m, "fuzz/trace.json.gz", (const char *)buf, n, d);
        model_finalize(m);
    }
    model_free(m);
    diag_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t chunk = 64 + data[1];
    if (data[0] & 1) {
        const char *json = (const char *)data + 3;
        size_t n = size - 3;
        z_stream z;
        memset(&z, 0, sizeof z);
        if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return 0;
        size_t cap = deflateBound(&z, n) + 32;
        unsigned char *out = malloc(cap);
        if (!out) {
            deflateEnd(&z);
            return 0;
        }
        z.next_in = (unsigned char *)json;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        deflate(&z, Z_FINISH);
        size_t len = cap - z.avail_out;
        deflateEnd(&z);
        size_t cut = len ? (size_t)data[2] * len / 255 : 0;
        load(out, data[2] == 255 ? len : cut, chunk);
        free(out);
    } else {
        /* a minimal gzip header (magic, deflate, no flags) in front of the fuzz bytes */
        unsigned char *buf = malloc(size - 3 + 10);
        if (!buf)
            return 0;
        static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
        memcpy(buf, hdr, 10);
        memcpy(buf + 10, data + 3, size - 3);
        load(buf, size - 3 + 10, chunk);
        free(buf);
    }
    return 0;
}
