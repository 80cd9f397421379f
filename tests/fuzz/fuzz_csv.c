/* libFuzzer target: a CSV table from bytes, then every rowset built over it. The first byte
 * picks the table kind (low bits) and whether the sections run over it (bit 4). */
#include <stddef.h>
#include <stdint.h>

#include "io/tables/csv_table.h"
#include "model/index/diag.h"
#include "model/analysis/kernels.h"
#include "model/rowsets/rowset.h"
#include "model/index/table.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum table_kind kind = (enum table_kind)(data[0] % TK_COUNT);
    struct diag *d = diag_new();
    struct table *t = NULL;
    if (csv_table_load_buffer((const char *)data + 1, size - 1, "fuzz.csv", kind, &t, d) == 0 && t) {
        rowset_free(table_to_rowset(t, "t"));
        for (int g = KG_NAME; g <= KG_CORE; g++)
            rowset_free(kernels_aggregate(t, (enum kernels_group)g));
        rowset_free(kernels_instances(t));
        if (data[0] & 16) {
            struct rank_data rd[2] = { { .rank = 0 }, { .rank = 1 } };
            rd[0].tables[kind] = t;
            rd[1].tables[kind] = t;
            struct session s = { .ranks = rd, .nranks = 2 };
            struct report_opts o = { .rank = -1 };
            rowset_free(report_kernels(&s, &o));
            rowset_free(report_ops(&s, &o));
            rowset_free(report_apis(&s, &o));
            rowset_free(report_step_trace(&s, &o));
        }
    }
    table_free(t);
    diag_free(d);
    return 0;
}
