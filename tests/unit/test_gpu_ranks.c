/* Collectives across GPU ranks from the NCCL kernels, Kineto memory curves and accelerators
 * that are not GPUs: on the generated captures of tools/gen_gpu_ranks_fixtures.py (planted
 * straggler rank 2, rank 3's clock 7 µs ahead; a variant where rank 1's sequence leaves the
 * others'; an MTIA trace), on hand-made args, and against the independent checks
 * (tests/checks/gpu_ranks_check.py, kineto_memory_check.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "io/trace/kineto.h"
#include "io/trace/trace_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/comm_match.h"
#include "model/analysis/memory.h"


/* The wait in ns of member m, exact from its text. */
static long long member_wait_ns(const struct session *s, const struct comm_instances *ci, uint32_t m)
{
    char buf[48];
    const char *w = comm_member_wait(s, ci, m, buf, sizeof buf);
    long long a = 0, b = 0;
    return w && sscanf(w, "%lld.%6lld", &a, &b) == 2 ? a * 1000000 + b : -1;
}

TEST(gpu_ranks_waits_from_aligned_arrivals)
{
    struct test_loaded l;
    if (!test_load(&l, "fixtures/gpu_ranks")) {
        CHECK(!"fixtures/gpu_ranks did not load (make fixtures)");
        test_unload(&l);
        return;
    }
    CHECK_INT(l.s->nranks, 4);
    struct comm_instances ci;
    CHECK_INT(comm_instances_build(l.s, &ci), 0);
    CHECK_INT(ci.n, 9);             /* 3 steps x (allreduce, allgather on "0"; broadcast on "1") */
    CHECK_INT(ci.ndiv, 0);
    CHECK_INT(ci.align, ALIGN_COMM_JSON);
    /* rank k arrives 3k µs after rank 0 (rank 2: 400 µs late), every collective ends together:
     * waits 406, 403, 0, 397 µs, rank 3's 7 µs clock lead taken out by the alignment */
    static const long long want[4] = { 406000, 403000, 0, 397000 };
    size_t checked = 0;
    for (size_t t = 0; t < ci.n; t++) {
        const struct comm_instance *in = &ci.inst[t];
        CHECK_INT(in->n, 4);
        CHECK(in->last != COMM_NO_INSTANCE && l.s->ranks[ci.mem[in->last].rank].rank == 2);
        CHECK(in->caused.any);
        for (uint32_t m = in->first; m < in->first + in->n; m++) {
            int r = l.s->ranks[ci.mem[m].rank].rank;
            checked += member_wait_ns(l.s, &ci, m) == want[r];
            CHECK_INT(ci.transit[m], 150000);
        }
        char buf[64];
        CHECK_STR(decimal_sum_text(&in->caused, buf, sizeof buf), "1.206000");
    }
    CHECK_INT(checked, 36);
    comm_instances_done(&ci);
    /* the straggler verdict and the clock offsets */
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(l.s, &a), 0);
    CHECK(a.waited_for >= 0 && a.r[a.waited_for].rank == 2);
    CHECK(a.align == ALIGN_COMM_JSON);
    for (size_t i = 0; i < a.n; i++) {
        CHECK_INT(a.r[i].offset, a.r[i].rank == 3 ? -7000 : 0);
        CHECK_INT(a.r[i].waited_on, a.r[i].rank == 2 ? 9 : 0);
        char buf[64];
        CHECK_STR(decimal_sum_text(&a.r[i].wait_sum, buf, sizeof buf),
                  a.r[i].rank == 0 ? "3.654000" : a.r[i].rank == 1 ? "3.627000" : a.r[i].rank == 2 ? "0.000000" : "3.573000");
    }
    rank_analysis_done(&a);
    test_unload(&l);
}

TEST(gpu_ranks_sequence_that_leaves_the_others_is_said)
{
    struct test_loaded l;
    if (!test_load(&l, "fixtures/gpu_ranks_diverge")) {
        CHECK(!"fixtures/gpu_ranks_diverge did not load (make fixtures)");
        test_unload(&l);
        return;
    }
    struct comm_instances ci;
    CHECK_INT(comm_instances_build(l.s, &ci), 0);
    /* rank 1 calls a broadcast where the others call their 4th collective on group "0" */
    CHECK_INT(ci.ndiv, 1);
    if (ci.ndiv == 1) {
        const struct comm_divergence *v = &ci.div[0];
        CHECK_INT(l.s->ranks[v->rank].rank, 1);
        CHECK_INT(v->ord, 3);
        char note[256];
        comm_divergence_text(l.s, v, note, sizeof note);
        CHECK_STR(note, "rank 1 leaves the sequence of communicator 0 at its call 4: broadcast of 16 where rank 0 "
                        "calls allgather of 65536");
    }
    /* from there, rank 1's ops on "0" are in no instance; the instances before keep it */
    size_t with3 = 0, with4 = 0;
    for (size_t t = 0; t < ci.n; t++) {
        with3 += ci.inst[t].n == 3;
        with4 += ci.inst[t].n == 4;
    }
    CHECK_INT(with3, 3);
    CHECK_INT(with4, 6);
    comm_instances_done(&ci);
    struct rowset *rs = comm_ranks_ops_rowset(l.s, -1);
    CHECK(rs && strstr(rs->caption, "4 ops not lined up with the other ranks'"));
    rowset_free(rs);
    test_unload(&l);
}

TEST(gpu_ranks_kineto_memory_curves_per_device)
{
    struct test_loaded l;
    if (!test_load(&l, "fixtures/gpu_ranks")) {
        CHECK(!"fixtures/gpu_ranks did not load (make fixtures)");
        test_unload(&l);
        return;
    }
    for (size_t i = 0; i < l.s->nranks; i++) {
        const struct memory *m = l.s->ranks[i].memory;
        CHECK(m && m->from_events && m->nseries == 2);
        if (!m || m->nseries != 2)
            continue;
        int r = l.s->ranks[i].rank;
        char want[16];
        snprintf(want, sizeof want, "cuda:%d", r);
        const struct mem_series *gpu = NULL, *cpu = NULL;
        for (size_t k = 0; k < m->nseries; k++) {
            const char *name = strtab_get(m->str, m->series[k].component);
            if (!strcmp(name, want))
                gpu = &m->series[k];
            else if (!strcmp(name, "cpu"))
                cpu = &m->series[k];
        }
        CHECK(gpu && cpu);
        if (!gpu || !cpu)
            continue;
        /* the planted peak of step 2 */
        CHECK_INT(gpu->peak[MK_ALLOCATED], 1000000000LL + r * 1000000LL + 500000000LL + r * 10000000LL + 2 * 4096);
        CHECK_INT(gpu->peak[MK_RESERVED], 2147483648LL + 1073741824LL);
        CHECK_INT(gpu->peak[MK_ACTIVE], MEM_NONE);
        CHECK_INT(gpu->rows, 9);
        CHECK_INT(gpu->peak_t[MK_ALLOCATED], 1700000000020060000LL + (r == 3 ? 7000 : 0));
        CHECK_INT(cpu->peak[MK_ALLOCATED], 4096);
    }
    test_unload(&l);
}

/* An MTIA trace: its device slices are device lanes (kernels, busy time), and it is said to
 * have an MTIA device, not "0 GPUs". */
TEST(gpu_ranks_mtia_device_lanes)
{
    struct test_loaded l;
    if (!test_load(&l, "fixtures/kineto_mtia")) {
        CHECK(!"fixtures/kineto_mtia did not load (make fixtures)");
        test_unload(&l);
        return;
    }
    const struct model *m = l.s->ranks[0].model;
    size_t dev = 0;
    for (uint32_t i = 0; m && i < m->nlanes; i++)
        if (m->lanes[i].kind == LANE_DEVICE)
            dev += m->lanes[i].count;
    CHECK_INT(dev, 6);
    bool said = false, zero = false;
    for (size_t i = 0; i < diag_count(l.d); i++) {
        char buf[512];
        diag_format(l.d, i, buf, sizeof buf);
        said |= strstr(buf, "1 MTIA device with events") != NULL;
        zero |= strstr(buf, "0 GPUs") != NULL;
    }
    CHECK(said);
    CHECK(!zero);
    test_unload(&l);
}

TEST(gpu_ranks_kineto_args_values)
{
    static const char a[] = "{\"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, \"x\": {\"Rank\": 3},"
                            " \"Process Group Name\": \"c180dae7743d700d8e30df1902fc6b1e_0\", \"neg\": -12,"
                            " \"frac\": 1.5, \"big\": 18446744073709551616, \"Rank\": 7}";
    const char *s;
    size_t n;
    int64_t v;
    CHECK(kineto_obj_str(a, strlen(a), "Collective name", &s, &n) && n == 9 && !memcmp(s, "allreduce", 9));
    CHECK(kineto_obj_str(a, strlen(a), "Process Group Name", &s, &n) && n == 34);
    CHECK(kineto_obj_int(a, strlen(a), "In msg nelems", &v) && v == 1048576);
    CHECK(kineto_obj_int(a, strlen(a), "neg", &v) && v == -12);
    CHECK(!kineto_obj_int(a, strlen(a), "frac", &v));          /* not an integer */
    CHECK(!kineto_obj_int(a, strlen(a), "big", &v));           /* beyond int64 */
    CHECK(kineto_obj_int(a, strlen(a), "Rank", &v) && v == 7);  /* the first level only */
    CHECK(!kineto_obj_str(a, strlen(a), "In msg nelems", &s, &n));
    CHECK(!kineto_obj_int(a, strlen(a), "absent", &v));
}

/* Without communicator args, kernels pair by stream (the k-th stream holding NCCL kernels by
 * its first one) and the collective comes from the kernel's name. */
TEST(gpu_ranks_kernel_ops_without_args)
{
    static const char *json =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllGather_RING_LL(x)\", \"pid\": 0, \"tid\": 31,"
        " \"ts\": 200, \"dur\": 5},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)\","
        " \"pid\": 0, \"tid\": 15, \"ts\": 100, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 10}\n"
        "]}\n";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "nccl.json", json, strlen(json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    struct comm *c = comm_from_kernels(m, NULL, NULL, 0);
    CHECK(c && c->nops == 2);
    if (c && c->nops == 2) {
        /* stream 15's kernel comes first: it is stream #1 */
        CHECK_STR(strtab_get(c->str, c->ops[0].communicator), "stream #1");
        CHECK_STR(strtab_get(c->str, c->ops[0].coll), "AllReduce");
        CHECK_STR(strtab_get(c->str, c->ops[1].communicator), "stream #2");
        CHECK_STR(strtab_get(c->str, c->ops[1].coll), "AllGather");
        CHECK_INT(c->ops[0].nelems, -1);
    }
    comm_free(c);
    model_free(m);
    diag_free(d);
}

TEST(gpu_ranks_equal_independent_checks)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    const char *names[] = { "gpu_ranks", "kineto_memory" };
    for (size_t i = 0; i < 2; i++) {
        int st = -1;
        char *out = test_check(names[i], &st);
        CHECK_INT(st, 0);
        if (test_failed_now() && out)
            fprintf(stderr, "%s", out);
        free(out);
    }
}

/* The advisor names the planted straggler from the waits found across ranks, and each other
 * rank's communication wait (3 x 9 collectives of 397-406 µs). */
TEST(gpu_ranks_advice_names_the_straggler)
{
    int st = -1;
    char *out = test_aptop(&st, "report --format json --section advice fixtures/gpu_ranks 2>&1");
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "rank 2 is the straggler (it waited least in 9 shared collectives): the others wait "
                             "3.618 ms more in collectives than it does"));
    CHECK(out && strstr(out, "communication ops wait 3.654 ms (3.654 ms summed over 9 ops"));
    if (test_failed_now() && out)
        fprintf(stderr, "%s", out);
    free(out);
}
