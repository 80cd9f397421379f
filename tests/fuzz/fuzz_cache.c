/* libFuzzer target: the index cache reader. The first byte picks the mode:
 *   even: the rest is a trace; its model goes through the cache and must come back with the
 *         same counts;
 *   odd:  the rest is a list of (4-byte offset, 1-byte xor) patches applied to the cache of
 *         a small built-in trace, whose checksum is then made right again, so the checks
 *         behind the checksum (sizes, bounds of every index) meet damaged structure. A
 *         model that loads is queried over every lane. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../scratch.h"
#include "io/cache/index_cache.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char builtin[] =
    "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"Python\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"Ascend Hardware\"}},"
    "{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":\"10.5\",\"dur\":5,\"args\":{\"a\":1}},"
    "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":\"11\",\"dur\":1},"
    "{\"ph\":\"s\",\"cat\":\"async_npu\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":\"11\"},"
    "{\"ph\":\"f\",\"cat\":\"async_npu\",\"id\":7,\"bp\":\"e\",\"pid\":2,\"tid\":3,\"ts\":\"20\"},"
    "{\"ph\":\"X\",\"name\":\"MatMul\",\"pid\":2,\"tid\":3,\"ts\":\"20\",\"dur\":3},"
    "{\"ph\":\"C\",\"name\":\"freq\",\"pid\":2,\"ts\":\"20\",\"args\":{\"MHz\":1800}}]";

static void query(const struct model *m)
{
    if (m->t_min == NS_NONE)
        return;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        (void)model_busy(m, l, m->t_min, m->t_max);
        uint32_t s = model_slice_at(m, l, m->t_min / 2 + m->t_max / 2);
        if (s != SLICE_NONE) {
            (void)model_parent(m, s);
            (void)model_self(m, s);
            (void)model_next_in_row(m, s);
            const uint32_t *f;
            (void)model_flows_from(m, s, &f);
            (void)model_flows_to(m, s, &f);
        }
        for (uint32_t d = 0; d < m->lanes[l].ndepth; d++) {
            uint32_t a, b;
            model_row_range(m, l, d, m->t_min, m->t_max, &a, &b);
        }
    }
    char buf[256];
    for (uint32_t l = 0; l < m->nlanes; l++)
        model_lane_label(m, l, buf, sizeof buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static struct cache_opts o;
    if (!o.dir[0]) {
        cache_opts_default(&o);
        snprintf(o.dir, sizeof o.dir, "/tmp/aptop-fuzz-cache-%ld", (long)getpid());
        o.enabled = true;
        o.min_input = 0;
        scratch_remove_at_exit(o.dir);   /* the cache makes it */
    }
    bool patch = data[0] & 1;
    struct diag *d = diag_new();
    struct model *m = model_new(TIME_LOCAL_US);
    if (patch)
        trace_json_load_buffer(m, "fuzz/trace_view.json", builtin, sizeof builtin - 1, d);
    else
        trace_json_load_buffer(m, "fuzz/trace_view.json", (const char *)data + 1, size - 1, d);
    model_finalize(m);
    const char *identity = "fuzz\n";
    if (index_cache_store(&o, 1, identity, m, NULL, 0, 0, NULL, d) == 0) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%016llx.idx", o.dir, 1ull);
        if (patch) {
            FILE *f = fopen(path, "r+b");
            if (f) {
                fseek(f, 0, SEEK_END);
                long len = ftell(f);
                for (size_t i = 1; i + 5 <= size && len > 0; i += 5) {
                    uint32_t off;
                    memcpy(&off, data + i, 4);
                    fseek(f, (long)(off % (uint32_t)len), SEEK_SET);
                    int c = fgetc(f);
                    fseek(f, (long)(off % (uint32_t)len), SEEK_SET);
                    fputc((c < 0 ? 0 : c) ^ data[i + 4], f);
                }
                fclose(f);
            }
            index_cache_reseal(path);
        }
        struct model *w = index_cache_load(&o, 1, identity, d, NULL);
        if (w) {
            if (!patch && (w->nslices != m->nslices || w->nflows != m->nflows || w->nlanes != m->nlanes))
                abort();   /* a clean round trip must give the same model */
            query(w);
            model_free(w);
        }
        unlink(path);
    }
    model_free(m);
    diag_free(d);
    return 0;
}
