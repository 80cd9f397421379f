/* libFuzzer target: the streaming memory CSV reader from bytes, then the figures built over
 * it. The first byte picks the file name (so the kind: memory_record, operator_memory,
 * npu_module_mem, npu_mem, static_op_mem, or one decided by its header). */
#include <stddef.h>
#include <stdint.h>

#include "io/tables/memory_read.h"
#include "model/index/diag.h"
#include "model/analysis/memory.h"
#include "model/rowsets/memory_rowsets.h"
#include "model/rowsets/rowset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "memory_record.csv", "operator_memory.csv", "npu_module_mem.csv",
                                         "npu_mem_1.csv", "static_op_mem.csv", "x.csv" };
    if (size < 1)
        return 0;
    struct diag *d = diag_new();
    struct memory *m = memory_new();
    memory_read_csv_buffer((const char *)data + 1, size - 1, names[data[0] % 6], m, d);
    memory_finish(m);
    rowset_free(memory_series_rowset(m, 0, NULL));
    rowset_free(memory_ops_rowset(m, 0, MO_COST, NULL));
    rowset_free(memory_static_rowset(m, 0, NULL));
    ns_t lo, hi;
    if (memory_span(m, &lo, &hi))
        rowset_free(memory_alive_rowset(m, 0, lo + (hi - lo) / 2, 16));
    memory_free(m);
    diag_free(d);
    return 0;
}
