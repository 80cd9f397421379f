/* libFuzzer target: communication.json and communication_matrix.json from bytes, then the
 * rank analysis, the instances across ranks, the link matrix and rowsets over what was read. The first byte picks the reader(s). */
#include <stddef.h>
#include <stdint.h>

#include "io/tables/comm_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/comm_links.h"
#include "model/analysis/comm_match.h"
#include "model/index/diag.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    struct diag *d = diag_new();
    struct comm *c[2] = { NULL, NULL };
    /* rank 0 gets the input; rank 1 the same when mode bit 2 is set, so cross-rank code
     * (votes, alignment) sees matching keys */
    for (int r = 0; r < 2; r++) {
        if (r == 1 && !(mode & 4))
            break;
        if (mode & 1)
            comm_parse_buf(buf, len, "fuzz/communication.json", &c[r], d);
        if (mode & 2)
            comm_parse_matrix_buf(buf, len, "fuzz/communication_matrix.json", &c[r], d);
    }
    struct rank_data rd[2] = { { .rank = 0, .device = -1, .comm = c[0] }, { .rank = 1, .device = -1, .comm = c[1] } };
    struct session s = { .ranks = rd, .nranks = 2, .diag = d };
    struct rowset *(*fns[6])(const struct session *, int) = {
        comm_ops_rowset, comm_matrix_rowset, comm_ranks_rowset, comm_rank_steps_rowset,
        comm_ranks_ops_rowset, comm_links_rowset
    };
    for (int i = 0; i < 6; i++)
        rowset_free(fns[i](&s, -1));
    struct comm_instances ci;
    if (!comm_instances_build(&s, &ci))
        rowset_free(comm_instances_rowset(&s, &ci));
    comm_instances_done(&ci);
    comm_free(c[0]);
    comm_free(c[1]);
    diag_free(d);
    return 0;
}
