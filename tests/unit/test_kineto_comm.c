/* Communication of GPU traces: the NCCL kernels' times exact to the ns in the comm ops. */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace/trace_json.h"
#include "model/analysis/comm.h"

/* An integer-µs timestamp of 16 digits: 1683564901713424 µs is not a double of µs divided
 * from ns exactly (it came out as ...423.750). */
TEST(kineto_comm_times_exact_to_the_ns)
{
    static const char *json =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 1683564901713424, \"dur\": 31.001},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 1683564901713999.999, \"dur\": 2}\n"
        "]}\n";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "nccl.json", json, strlen(json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    struct comm *c = comm_from_kernels(m, NULL, NULL, 0);
    CHECK(c && c->nops == 2);
    if (c && c->nops == 2) {
        CHECK_INT(c->ops[0].start_ns, 1683564901713424000LL);
        CHECK_INT(c->ops[0].elapse_ns, 31001);
        CHECK_STR(comm_op_text(c, &c->ops[0], CF_START), "1683564901713424.000");
        CHECK_STR(comm_op_text(c, &c->ops[0], CF_ELAPSE), "0.031001");
        CHECK_INT(c->ops[1].start_ns, 1683564901713999999LL);
        CHECK_INT(c->ops[1].kind, COMM_P2P);
    }
    comm_free(c);
    model_free(m);
    diag_free(d);
}
