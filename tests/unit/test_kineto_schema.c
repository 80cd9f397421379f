/* Every Kineto schema: the 2021 writer's categories and stream tids, cuda_sync events off the
 * kernels, one definition of a matched flow, loose traces that are ranks of one job only
 * when they say so, and a rank's device from its trace. */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "io/trace/kineto.h"
#include "io/trace/trace_json.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/kernels.h"

static struct model *load(const char *json, struct diag *d)
{
    struct model *m = model_new(TIME_LOCAL_US);
    CHECK_INT(trace_json_load_buffer(m, "trace.json", json, strlen(json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    return m;
}

static uint32_t named(const struct model *m, const char *name)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

/* As the 2021 writer left it: no schemaVersion, Operator / Runtime / Kernel / Memcpy /
 * Memset, "async" flows, stream tids as text; a cuda_sync wait on the stream as later
 * writers put it. */
static const char *trace_2021 =
    "{\"traceEvents\": [\n"
    "{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"labels\": \"GPU 0\"}},\n"
    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": \"stream 7\", \"args\": {\"name\": \"stream 7\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"ProfilerStep#3\", \"pid\": 4242, \"tid\": \"4242\", \"ts\": 90, \"dur\": 400},\n"
    "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"aten::mm\", \"pid\": 4242, \"tid\": \"4242\", \"ts\": 100, \"dur\": 40},\n"
    "{\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242, \"tid\": \"4242\", \"ts\": 110, \"dur\": 5,"
    " \"args\": {\"cbid\": 211, \"correlation\": 25, \"external id\": 14}},\n"
    "{\"ph\": \"s\", \"id\": 25, \"pid\": 4242, \"tid\": \"4242\", \"ts\": 110, \"cat\": \"async\", \"name\": \"launch\"},\n"
    "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"volta_sgemm_128x64_nn\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 150,"
    " \"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 25, \"external id\": 14}},\n"
    "{\"ph\": \"f\", \"id\": 25, \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 150, \"cat\": \"async\", \"name\": \"launch\", \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 4242, \"tid\": \"4242\", \"ts\": 200, \"dur\": 5,"
    " \"args\": {\"correlation\": 26}},\n"
    "{\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": \"stream 7\","
    " \"ts\": 260, \"dur\": 4, \"args\": {\"correlation\": 26}},\n"
    "{\"ph\": \"X\", \"cat\": \"Memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 300, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 310,"
    " \"dur\": 50, \"args\": {\"correlation\": 27}}\n"
    "]}\n";

TEST(kineto_2021_schema_device_work_and_launches)
{
    struct diag *d = diag_new();
    struct model *m = load(trace_2021, d);
    CHECK(test_diag_has(d, "Kineto", "1 GPU with events"));
    uint32_t k = named(m, "volta_sgemm_128x64_nn"), mc = named(m, "Memcpy HtoD (Pageable -> Device)");
    CHECK(k != SLICE_NONE && mc != SLICE_NONE);
    if (k != SLICE_NONE) {
        const struct lane *ln = &m->lanes[m->lane[k]];
        CHECK_INT(ln->kind, LANE_DEVICE);
        CHECK_STR(model_str(m, m->procs[ln->proc].name), "GPU 0");
    }
    uint32_t op = named(m, "aten::mm");
    CHECK(op != SLICE_NONE && m->lanes[m->lane[op]].kind == LANE_PYTHON);
    /* kernel, memcpy, memset: never the cuda_sync wait */
    struct rowset *rs = kernels_aggregate_model(m);
    CHECK(rs && rs->nrows == 3);
    rowset_free(rs);
    uint32_t sync = named(m, "Stream Wait Event");
    CHECK(sync != SLICE_NONE && m->lanes[m->lane[sync]].kind == LANE_DEVICE_ANNOT);
    /* the kernel by its async flow, the memcpy by its correlation id */
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs && fs->launch.n == 2 && fs->by_correlation == 1 && fs->launch.total == (40 + 60) * 1000LL);
    CHECK(fs && fs->host_bound_known);
    flowstats_free(fs);
    model_free(m);
    diag_free(d);
}

/* A key made only of steps (t points) joins points as a key with s and f does: the summary's
 * count and the flows section's per category are one definition. */
TEST(kineto_flow_matched_one_definition)
{
    static const char *json =
        "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 2, \"ts\": 30, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"name\": \"c\", \"pid\": 1, \"tid\": 3, \"ts\": 50, \"dur\": 10},\n"
        "{\"ph\": \"t\", \"id\": 7, \"cat\": \"chain\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": 12},\n"
        "{\"ph\": \"t\", \"id\": 7, \"cat\": \"chain\", \"name\": \"x\", \"pid\": 1, \"tid\": 2, \"ts\": 32},\n"
        "{\"ph\": \"s\", \"id\": 8, \"cat\": \"chain\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": 12},\n"
        "{\"ph\": \"f\", \"id\": 8, \"cat\": \"chain\", \"name\": \"x\", \"pid\": 1, \"tid\": 3, \"ts\": 52, \"bp\": \"e\"},\n"
        "{\"ph\": \"s\", \"id\": 9, \"cat\": \"chain\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": 12}]\n";
    struct diag *d = diag_new();
    struct model *m = load(json, d);
    uint32_t cat = strtab_find(m->str, "chain", 5);
    CHECK_INT(model_flows_matched_cat(m, cat), 2);
    CHECK_INT(m->flows_matched, 2);
    model_free(m);
    diag_free(d);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0);
    if (f)
        fclose(f);
}

static void remove_dir(const char *dir, const char *const *names, size_t n)
{
    char path[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Two unrelated traces side by side (different processes, minutes apart, no rank) are two
 * captures, whatever their names; traces that name their rank are ranks of one. */
TEST(kineto_loose_traces_ranks_only_when_they_say_so)
{
    char dir[] = "/tmp/aptop_loose_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *names[] = { "serve_a.json", "serve_b.json" };
    write_file(dir, names[0], "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                              " \"pid\": 0, \"tid\": 7, \"ts\": 1000000, \"dur\": 2}]}");
    write_file(dir, names[1], "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                              " \"pid\": 1, \"tid\": 7, \"ts\": 841000000, \"dur\": 2}]}");
    struct capture c;
    struct diag *d = diag_new();
    CHECK_INT(capture_discover(dir, &c, d), 0);
    CHECK_INT(c.nranks, 1);
    CHECK_INT(c.ngroups, 2);
    CHECK_INT(c.nranks + c.nother, 2);
    capture_free(&c);
    diag_free(d);
    remove_dir(dir, names, 2);

    char dir2[] = "/tmp/aptop_loose_XXXXXX";
    CHECK(mkdtemp(dir2) != NULL);
    const char *ranked[] = { "a.json", "b.json" };
    for (int i = 0; i < 2; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": "
                 "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 2}]}", i);
        write_file(dir2, ranked[i], body);
    }
    d = diag_new();
    CHECK_INT(capture_discover(dir2, &c, d), 0);
    CHECK_INT(c.nranks, 2);
    CHECK_INT(c.ngroups, 1);
    capture_free(&c);
    diag_free(d);
    remove_dir(dir2, ranked, 2);
}

/* The rank's device is the GPU its trace ran on. */
TEST(kineto_rank_device_from_its_gpu_process)
{
    char dir[] = "/tmp/aptop_gpu_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *names[] = { "w.pt.trace.json" };
    write_file(dir, names[0],
               "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"A\"}, {\"id\": 3, \"name\": \"B\"}],"
               " \"traceEvents\": [{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 3, \"tid\": 0,"
               " \"args\": {\"labels\": \"GPU 3\"}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 3,"
               " \"tid\": 7, \"ts\": 5, \"dur\": 2}]}");
    int st;
    char *out = test_aptop(&st, "report --no-cache --format json --section capture '%s/%s'", dir, names[0]);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "\"device\": 3") != NULL);
    free(out);
    remove_dir(dir, names, 1);
}
