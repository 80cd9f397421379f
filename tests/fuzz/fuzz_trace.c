/* libFuzzer target: the streaming trace reader on arbitrary bytes, then finalize and a few
 * queries over whatever was kept. The first byte picks the chunk size, so events straddle
 * chunk boundaries at every position; the input's length picks whether it is read in parts
 * (cut near the middle or a third, and parts taken over from 2 bytes on). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    trace_json_set_chunk_size(data[0] < 128 ? 64 + data[0] : 4u << 20);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    if (!m || !d)
        goto out;
    unsigned parts = size % 4;   /* 0: one reader */
    trace_json_set_split(parts ? 0 : UINT64_MAX, parts == 3 ? (size - 1) / 3 : UINT64_MAX);
    trace_json_set_sharing(parts >= 2 ? 2 : 8u << 20);
    trace_json_load_buffer(m, "fuzz/trace_view.json", (const char *)data + 1, size - 1, d);
    trace_json_set_split(32u << 20, UINT64_MAX);
    trace_json_set_sharing(8u << 20);
    model_finalize(m);
    for (uint32_t l = 0; l < m->nlanes; l++) {
        ns_t t0 = m->t_min, t1 = m->t_max;
        if (t0 == NS_NONE)
            break;
        ns_t mid = t0 / 2 + t1 / 2;
        (void)model_busy(m, l, t0, mid);
        uint32_t s = model_slice_at(m, l, mid);
        if (s != SLICE_NONE) {
            const uint32_t *ix;
            (void)model_parent(m, s);
            (void)model_self(m, s);
            (void)model_next_in_row(m, s);
            (void)model_flows_from(m, s, &ix);
            (void)model_flows_to(m, s, &ix);
        }
        uint32_t f, e;
        model_row_range(m, l, 0, t0, mid, &f, &e);
    }
    size_t n;
    free(model_aggregate(m, NULL, 0, LANE_OTHER, INT64_MIN, INT64_MAX, &n));
out:
    model_free(m);
    diag_free(d);
    return 0;
}
