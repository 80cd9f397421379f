/* Kineto (PyTorch profiler) traces and gzip input: the object form's metadata, GPU streams
 * as device lanes named from deviceProperties, GPU annotations kept off the kernels, exact
 * fractional timestamps, ac2g flows from the runtime call to the kernel, and gzipped input
 * (whole, in small chunks, truncated, corrupt, concatenated, under any name). */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/discovery/capture.h"
#include "io/files/gz_stream.h"
#include "io/trace/kineto.h"
#include "io/trace/trace_args.h"
#include "io/trace/trace_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/engine_annot.h"
#include "model/analysis/kernels.h"
#include "model/analysis/steps.h"

static const char *kineto_json =
    "{\"schemaVersion\": 1,\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"numSms\": 132}],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8,"
    "   \"pg_config\": [{\"ranks\": [0, 1], \"rank\": 9}]},\n"
    " \"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 25286, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 25286, \"tid\": 0, \"args\": {\"labels\": \"CPU\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 0, \"tid\": 0, \"args\": {\"labels\": \"GPU 0\"}},\n"
    "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"stream 7 \"}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#6\", \"pid\": 25286, \"tid\": 25286,"
    " \"ts\": 1428625731600.5, \"dur\": 100}," "\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 25286, \"tid\": 25286,"
    " \"ts\": 1428625731601.125, \"dur\": 10.5},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 25286, \"tid\": 25286,"
    " \"ts\": 1428625731602.001, \"dur\": 4.2, \"args\": {\"correlation\": 675771}},\n"
    "{\"ph\": \"s\", \"id\": 675771, \"pid\": 25286, \"tid\": 25286, \"ts\": 1428625731602.001, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 25286, \"tid\": 25286, \"ts\": 1428625731603},\n"
    "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": 1428625731700},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#6\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 1428625731610, \"dur\": 80},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void add_kernel<float>()\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 1428625731622.25, \"dur\": 18.112, \"args\": {\"correlation\": 675771, \"stream\": 7}},\n"
    "{\"ph\": \"f\", \"id\": 675771, \"pid\": 0, \"tid\": 7, \"ts\": 1428625731622.25, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 1428625731650, \"dur\": 1.5},\n"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"threading.py(1032): _bootstrap\", \"pid\": 0, \"tid\": 0,"
    " \"ts\": 1428625731500, \"dur\": 300}\n"
    "],\n"
    " \"traceName\": \"/tmp/x.json\", \"baseTimeNanoseconds\": 1751410836000000000}\n";

/* gzip of buf (one member), malloc'd. */
static unsigned char *gzip_of(const char *buf, size_t n, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)buf;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static uint32_t slice_named(const struct model *m, const char *name, const char *cat)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name) && (!cat || !strcmp(model_str(m, m->cat[s]), cat)))
            return s;
    return SLICE_NONE;
}

static void check_kineto_model(const struct model *m)
{
    uint32_t k = slice_named(m, "void add_kernel<float>()", "kernel");
    CHECK(k != SLICE_NONE);
    if (k == SLICE_NONE)
        return;
    /* fractional µs exact to the ns */
    CHECK_INT(m->start[k], 1428625731622250LL);
    CHECK_INT(m->dur[k], 18112);
    const struct lane *ln = &m->lanes[m->lane[k]];
    CHECK_INT(ln->kind, LANE_DEVICE);
    CHECK_STR(model_str(m, m->procs[ln->proc].name), "GPU 0 (NVIDIA H100 80GB HBM3)");
    /* the GPU annotation is on a lane of its own, not a device lane */
    uint32_t a = slice_named(m, "ProfilerStep#6", "gpu_user_annotation");
    CHECK(a != SLICE_NONE);
    if (a != SLICE_NONE) {
        CHECK_INT(m->lanes[m->lane[a]].kind, LANE_DEVICE_ANNOT);
        CHECK_STR(model_str(m, m->procs[m->lanes[m->lane[a]].proc].name), "GPU 0 annotations");
    }
    /* the python thread on the GPU's pid is a host lane */
    uint32_t py = slice_named(m, "threading.py(1032): _bootstrap", NULL);
    CHECK(py != SLICE_NONE);
    if (py != SLICE_NONE)
        CHECK_INT(m->lanes[m->lane[py]].kind, LANE_PYTHON);
    uint32_t rt = slice_named(m, "cudaLaunchKernel", NULL);
    CHECK(rt != SLICE_NONE);
    CHECK_INT(m->lanes[m->lane[rt]].kind, LANE_PYTHON);
    /* ac2g: runtime launch -> kernel */
    const uint32_t *ix;
    size_t nf = model_flows_to(m, k, &ix);
    CHECK_INT(nf, 1);
    if (nf == 1)
        CHECK_INT(m->flows[ix[0]].src, rt);
    /* instants: the host one is a zero-length slice, the global one is not kept */
    uint32_t mem = slice_named(m, "[memory]", "cpu_instant_event");
    CHECK(mem != SLICE_NONE);
    if (mem != SLICE_NONE)
        CHECK_INT(m->dur[mem], 0);
    CHECK(slice_named(m, "Record Window End", NULL) == SLICE_NONE);
    /* kernels from the trace: the kernel and the memset, not the annotation */
    struct rowset *rs = kernels_aggregate_model(m);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rs->nrows, 2);
        rowset_free(rs);
    }
}

TEST(kineto_object_form_devices_flows_exact)
{
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "k.json", kineto_json, strlen(kineto_json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    check_kineto_model(m);
    CHECK(test_diag_has(d, "Kineto", "rank 3 of 8 (nccl)"));
    model_free(m);
    diag_free(d);
}

TEST(kineto_rank_from_head_first_level_only)
{
    CHECK_INT(kineto_rank_from_head(kineto_json, strlen(kineto_json)), 3);
    const char *nested = "{\"distributedInfo\": {\"pg_config\": [{\"rank\": 5}], \"rank\": 12}}";
    CHECK_INT(kineto_rank_from_head(nested, strlen(nested)), 12);
    CHECK_INT(kineto_rank_from_head("{\"traceEvents\": []}", 19), -1);
    const char *cut = "{\"distributedInfo\": {\"backend\": \"nccl\", \"ra";
    CHECK_INT(kineto_rank_from_head(cut, strlen(cut)), -1);
}

TEST(gzip_trace_same_model_in_any_chunking)
{
    size_t gl;
    unsigned char *gz = gzip_of(kineto_json, strlen(kineto_json), &gl);
    CHECK(gz != NULL);
    if (!gz)
        return;
    size_t chunks[] = { 64, 100, 4096, 256u << 10 };
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        trace_json_set_chunk_size(chunks[c]);
        struct model *m = model_new(TIME_LOCAL_US);
        struct diag *d = diag_new();
        CHECK_INT(trace_json_load_buffer(m, "k.json.gz", (const char *)gz, gl, d), 0);
        CHECK_INT(model_finalize(m), 0);
        CHECK_INT(m->nslices, 8);
        check_kineto_model(m);
        CHECK(!test_diag_has(d, "gzip", NULL));
        model_free(m);
        diag_free(d);
    }
    trace_json_set_chunk_size(256u << 10);
    free(gz);
}

TEST(gzip_truncated_keeps_what_was_read_and_says_where)
{
    /* enough events that the cut falls well inside */
    size_t cap = 1 << 20, n = 0;
    char *big = malloc(cap);
    n += (size_t)snprintf(big + n, cap - n, "[");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":1}",
                              i ? "," : "", i % 7, i * 3);
    n += (size_t)snprintf(big + n, cap - n, "]");
    size_t gl;
    unsigned char *gz = gzip_of(big, n, &gl);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    size_t cut = gl / 2;
    CHECK_INT(trace_json_load_buffer(m, "t.json.gz", (const char *)gz, cut, d), 0);
    model_finalize(m);
    CHECK(m->nslices > 100 && m->nslices < 5000);
    char where[64];
    snprintf(where, sizeof where, "of %zu", cut);
    CHECK(test_diag_has(d, "gzip data ends early", where));
    model_free(m);
    diag_free(d);
    /* a wrong checksum in the trailer: every event read, and zlib's reason said */
    gz[gl - 8] ^= 0xff;
    m = model_new(TIME_LOCAL_US);
    d = diag_new();
    trace_json_load_buffer(m, "t.json.gz", (const char *)gz, gl, d);
    model_finalize(m);
    CHECK(test_diag_has(d, "gzip: incorrect data check", NULL));
    CHECK_INT(m->nslices, 5000);
    model_free(m);
    diag_free(d);
    free(gz);
    free(big);
}

TEST(gzip_concatenated_members_and_trailing_bytes)
{
    const char *a = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},";
    const char *b = "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}]";
    size_t la, lb;
    unsigned char *ga = gzip_of(a, strlen(a), &la), *gb = gzip_of(b, strlen(b), &lb);
    unsigned char *both = malloc(la + lb + 8);
    memcpy(both, ga, la);
    memcpy(both + la, gb, lb);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "t.gz", (const char *)both, la + lb, d), 0);
    model_finalize(m);
    CHECK_INT(m->nslices, 2);
    CHECK(!test_diag_has(d, "gzip", NULL));
    model_free(m);
    diag_free(d);
    memcpy(both + la + lb, "garbage!", 8);
    m = model_new(TIME_LOCAL_US);
    d = diag_new();
    trace_json_load_buffer(m, "t.gz", (const char *)both, la + lb + 8, d);
    model_finalize(m);
    CHECK_INT(m->nslices, 2);
    CHECK(test_diag_has(d, "not gzip data", NULL));
    model_free(m);
    diag_free(d);
    free(ga);
    free(gb);
    free(both);
}

/* A gzipped trace on disk under a name that does not say so: discovered as a trace by its
 * content, loaded, and its slices' args read back from the decompressed offsets. */
TEST(gzip_file_any_name_discovered_loaded_args)
{
    char dir[] = "/tmp/aptop_kineto_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/profile.bin", dir);
    size_t gl;
    unsigned char *gz = gzip_of(kineto_json, strlen(kineto_json), &gl);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(gz, 1, gl, f) == gl);
    if (f)
        fclose(f);
    struct capture c;
    struct diag *d = diag_new();
    CHECK_INT(capture_discover(path, &c, d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks == 1 && c.ranks[0].nfiles == 1)
        CHECK_INT(c.ranks[0].files[0].kind, FK_TRACE_JSON);
    capture_free(&c);
    struct model *m = model_new(TIME_LOCAL_US);
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    check_kineto_model(m);
    uint32_t k = slice_named(m, "void add_kernel<float>()", "kernel");
    char err[256];
    cJSON *args = k == SLICE_NONE ? NULL : trace_args_load(m, k, err, sizeof err);
    CHECK(args != NULL);
    if (args) {
        cJSON *corr = cJSON_GetObjectItemCaseSensitive(args, "correlation");
        CHECK(cJSON_IsRaw(corr) && !strcmp(corr->valuestring, "675771"));   /* the file's digits */
        cJSON_Delete(args);
    }
    model_free(m);
    diag_free(d);
    unlink(path);
    rmdir(dir);
    free(gz);
}

TEST(engine_annotations_name_their_phase)
{
    const char *v = "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(sq37sk34489)";
    CHECK_INT(engine_annot_phase(v, strlen(v)), PHASE_MIXED);
    const char *p = "execute_512_context_2(sq500sk500)_generation_0()";
    CHECK_INT(engine_annot_phase(p, strlen(p)), PHASE_PREFILL);
    const char *d = "execute_64_generation_64(sq64sk9000)";
    CHECK_INT(engine_annot_phase(d, strlen(d)), PHASE_DECODE);
    CHECK_INT(engine_annot_phase("step[DECODE bs=32]", 18), PHASE_DECODE);
    CHECK_INT(engine_annot_phase("step[EXTEND bs=2]", 17), PHASE_PREFILL);
    CHECK_INT(engine_annot_phase("step[MIXED]", 11), PHASE_MIXED);
    CHECK_INT(engine_annot_phase("step[IDLE]", 10), PHASE_OTHER);
    /* not engine step annotations */
    CHECK_INT(engine_annot_phase("execute_model", 13), -1);
    CHECK_INT(engine_annot_phase("capture_8192_PIECEWISE", 22), -1);
    CHECK_INT(engine_annot_phase("step[", 5), -1);
    CHECK_INT(engine_annot_phase("ProfilerStep#3", 14), -1);
}

/* A folder of per-rank gzipped traces is one capture of several ranks, numbered by the
 * distributedInfo each carries (not by the names, which say otherwise here). */
TEST(kineto_folder_of_rank_traces_is_one_capture)
{
    char dir[] = "/tmp/aptop_kranks_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *names[] = { "rank-0.Apr_03.1102.pt.trace.json.gz", "worker_rank_1.177.pt.trace.json.gz" };
    for (int i = 0; i < 2; i++) {
        char body[512], path[256];
        snprintf(body, sizeof body, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, "
                 "\"world_size\": 2}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                 "\"pid\": 0, \"tid\": 7, \"ts\": 1.5, \"dur\": 2}]}", 5 + i);
        size_t gl;
        unsigned char *gz = gzip_of(body, strlen(body), &gl);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(gz, 1, gl, f) == gl);
        if (f)
            fclose(f);
        free(gz);
    }
    struct capture c;
    struct diag *d = diag_new();
    CHECK_INT(capture_discover(dir, &c, d), 0);
    CHECK_INT(c.nranks, 2);
    if (c.nranks == 2) {
        CHECK_INT(c.ranks[0].rank, 5);
        CHECK_INT(c.ranks[1].rank, 6);
        CHECK_INT(c.ranks[0].nfiles, 1);
        CHECK_INT(c.ranks[1].nfiles, 1);
    }
    for (size_t i = 0; i < c.nranks; i++)
        for (size_t k = 0; k < c.ranks[i].nfiles; k++)
            unlink(c.ranks[i].files[k].path);
    capture_free(&c);
    diag_free(d);
    rmdir(dir);
}

/* NCCL kernels are the communication ops of a GPU trace, in the step holding them, and
 * the step's communication not overlapped with compute. */
TEST(kineto_nccl_kernels_are_communication)
{
    const char *j =
        "{\"schemaVersion\": 1, \"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"pid\": 9, \"tid\": 9, \"ts\": 0, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm()\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 10},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
        " \"pid\": 0, \"tid\": 20, \"ts\": 15, \"dur\": 20.5}]}";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "n.json", j, strlen(j), d), 0);
    CHECK_INT(model_finalize(m), 0);
    struct steps *st = steps_detect(m, NULL);
    CHECK(st && steps_count(st) == 1);
    if (st && steps_count(st) == 1) {
        const struct step *s = steps_get(st, 0);
        CHECK_INT(s->index, 4);
        CHECK_INT(s->kernels, 2);
        CHECK_INT(s->comm_not_overlapped, 15500);   /* 20.5 µs minus the 5 under the gemm */
    }
    struct comm *c = comm_from_kernels(m, st, NULL, 0);
    CHECK(c && c->nops == 1);
    if (c && c->nops == 1) {
        CHECK_STR(strtab_get(c->str, c->ops[0].name), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        CHECK_STR(strtab_get(c->str, c->ops[0].step), "step4");
        CHECK_INT(c->ops[0].kind, COMM_COLLECTIVE);
        CHECK_NEAR(c->ops[0].elapse_ms, 0.0205, 1e-12);
        CHECK(c->sources & CS_KERNELS);
    }
    comm_free(c);
    steps_free(st);
    model_free(m);
    diag_free(d);
}

/* A Kineto trace cut before its top-level keys and runtime calls is still known by its
 * "GPU N" process labels beside GPU work; a "kernel" category alone is not Kineto. */
TEST(kineto_known_by_gpu_labels_not_by_kernel_category_alone)
{
    const char *cut = "{\"traceEvents\": ["
        "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 3, \"tid\": 0, \"args\": {\"labels\": \"GPU 3\"}},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 3, \"tid\": 7, \"ts\": 1, \"dur\": 2},";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    trace_json_load_buffer(m, "cut.json", cut, strlen(cut), d);
    model_finalize(m);
    uint32_t k = slice_named(m, "k", NULL);
    CHECK(k != SLICE_NONE);
    if (k != SLICE_NONE) {
        CHECK_INT(m->lanes[m->lane[k]].kind, LANE_DEVICE);
        CHECK_STR(model_str(m, m->procs[m->lanes[m->lane[k]].proc].name), "GPU 3");
    }
    model_free(m);
    diag_free(d);
    const char *other = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 3, \"tid\": 7, \"ts\": 1, \"dur\": 2}]";
    m = model_new(TIME_LOCAL_US);
    d = diag_new();
    trace_json_load_buffer(m, "o.json", other, strlen(other), d);
    model_finalize(m);
    CHECK(m->nslices == 1 && m->lanes[m->lane[0]].kind == LANE_OTHER);
    CHECK(!test_diag_has(d, "Kineto", NULL));
    model_free(m);
    diag_free(d);
}

/* GPU steps take their phase from the kernel mix when the attention kernels say it:
 * FlashInfer prefill, vLLM paged attention (decode), both in one step (mixed); attention
 * kernels that serve both phases name none. */
TEST(kineto_phase_from_gpu_attention_kernels)
{
    const char *j =
        "{\"schemaVersion\": 1, \"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 9, \"tid\": 9, \"ts\": 0, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 9, \"tid\": 9, \"ts\": 100, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 9, \"tid\": 9, \"ts\": 200, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"pid\": 9, \"tid\": 9, \"ts\": 300, \"dur\": 100},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void flashinfer::BatchPrefillWithPagedKVCacheKernel<128>()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 50},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void vllm::paged_attention_v2_kernel<float>()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 20},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void flashinfer::BatchPrefillWithRaggedKVCacheKernel<64>()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 210, \"dur\": 30},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void flashinfer::BatchDecodeWithPagedKVCacheKernel<64>()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 250, \"dur\": 10},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void pytorch_flash::flash_fwd_kernel<64>()\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 310, \"dur\": 10}]}";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "p.json", j, strlen(j), d), 0);
    CHECK_INT(model_finalize(m), 0);
    struct steps *st = steps_detect(m, NULL);
    CHECK(st && steps_count(st) == 4);
    static const enum step_phase want[4] = { PHASE_PREFILL, PHASE_DECODE, PHASE_MIXED, PHASE_OTHER };
    for (size_t i = 0; st && i < steps_count(st) && i < 4; i++) {
        CHECK_INT(steps_get(st, i)->index, (int64_t)i + 1);
        CHECK_STR(step_phase_name(steps_get(st, i)->phase), step_phase_name(want[i]));
    }
    steps_free(st);
    model_free(m);
    diag_free(d);
}
