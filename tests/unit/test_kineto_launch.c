/* Kineto launches joined by correlation id: traces without flow records (sampled), with
 * half of them (graph replays: f without s), and with neither flows nor ids (host-bound idle
 * unknown, never zero); the real traces reshaped so (flows stripped, ids removed) against
 * the independent recomputation of tests/checks/kineto_check.py. */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace/trace_json.h"
#include "model/analysis/flowstats.h"

/* Host thread 10 launches; GPU 0 stream 7 runs. Kernel A at 200 after cudaLaunchKernel at
 * 100 (correlation 1); a graph launch at 500 (correlation 2) replays B, C, D at 700, 720,
 * 740, each carrying correlation 2 and an f flow point whose s is missing; a memset at 900
 * after cudaMemsetAsync at 880 (correlation 3). No s point anywhere. */
static const char *launch_json =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 10, \"tid\": 10,"
    " \"ts\": 100, \"dur\": 5, \"args\": {\"cbid\": 211, \"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 50,"
    " \"args\": {\"stream\": 7, \"correlation\": 1, \"grid\": [1, 1, 1]}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 10, \"tid\": 10,"
    " \"ts\": 500, \"dur\": 8, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"B\", \"pid\": 0, \"tid\": 7, \"ts\": 700, \"dur\": 10,"
    " \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"f\", \"id\": 2, \"pid\": 0, \"tid\": 7, \"ts\": 700, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"C\", \"pid\": 0, \"tid\": 7, \"ts\": 720, \"dur\": 10,"
    " \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"f\", \"id\": 2, \"pid\": 0, \"tid\": 7, \"ts\": 720, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"D\", \"pid\": 0, \"tid\": 7, \"ts\": 740, \"dur\": 10,"
    " \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemsetAsync\", \"pid\": 10, \"tid\": 10,"
    " \"ts\": 880, \"dur\": 4, \"args\": {\"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 900, \"dur\": 2, \"args\": {\"correlation\": 3, \"nested\": {\"correlation\": 1}}}\n"
    "]}\n";

static uint32_t named(const struct model *m, const char *name)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

static struct model *load(const char *json, struct diag *d)
{
    struct model *m = model_new(TIME_LOCAL_US);
    CHECK_INT(trace_json_load_buffer(m, "launch.json", json, strlen(json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    return m;
}

TEST(kineto_correlation_binds_launches_without_flows)
{
    struct diag *d = diag_new();
    struct model *m = load(launch_json, d);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs != NULL);
    if (!fs) {
        model_free(m);
        diag_free(d);
        return;
    }
    struct { const char *kernel, *launch; } want[] = {
        { "A", "cudaLaunchKernel" }, { "B", "cudaGraphLaunch" }, { "C", "cudaGraphLaunch" },
        { "D", "cudaGraphLaunch" }, { "Memset (Device)", "cudaMemsetAsync" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum flow_launch_how how;
        uint32_t k = named(m, want[i].kernel), l = flow_launcher(m, k, &how);
        CHECK(k != SLICE_NONE && l != SLICE_NONE);
        if (l != SLICE_NONE)
            CHECK_STR(model_str(m, m->name[l]), want[i].launch);
        CHECK_INT(how, LAUNCH_FLOW);
    }
    /* each device slice once: 100, 200, 220, 240 and 20 µs */
    CHECK_INT(fs->launch.n, 5);
    CHECK_INT(fs->launch.total, (100 + 200 + 220 + 240 + 20) * 1000LL);
    CHECK_INT(fs->launch.max, 240000);
    CHECK_INT(fs->with_launcher, 5);
    CHECK_INT(fs->by_correlation, 5);
    CHECK(fs->host_bound_known);
    /* gaps: [250, 700) before B, whose graph launch began at 500, after the device went
     * idle: host-bound; [710, 720) and [730, 740) inside the replay, launched long before:
     * not; [750, 900) before the memset launched at 880: host-bound */
    CHECK_INT(fs->gaps, 4);
    CHECK_INT(fs->idle, (450 + 10 + 10 + 150) * 1000LL);
    CHECK_INT(fs->host_bound_idle, (450 + 150) * 1000LL);
    /* the file's flow records stay the file's: one ac2g category, 2 records without start */
    CHECK_INT(fs->ncats, 1);
    if (fs->ncats == 1) {
        CHECK_STR(model_str(m, fs->cats[0].cat), "ac2g");
        CHECK_INT(fs->cats[0].flows, 2);
        CHECK_INT(fs->cats[0].missing_start, 2);
    }
    CHECK_INT(m->flows_matched, 0);
    CHECK_INT(m->flows_unmatched, 2);
    /* flow-follow reaches the replayed kernels from the graph launch */
    struct flow_hop *h;
    size_t nh = flow_chain_forward(m, named(m, "cudaGraphLaunch"), &h);
    CHECK_INT(nh, 4);
    free(h);
    flowstats_free(fs);
    model_free(m);
    diag_free(d);
}

/* The same trace read in parts (the second part's correlation entries move with its slices). */
TEST(kineto_correlation_survives_split_reading)
{
    /* the second part from the graph launch on */
    trace_json_set_split(0, (uint64_t)(strstr(launch_json, "cudaGraphLaunch") - launch_json));
    struct diag *d = diag_new();
    struct model *m = load(launch_json, d);
    CHECK_INT(trace_json_last_split(NULL), 1);
    trace_json_set_split(32u << 20, UINT64_MAX);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs && fs->launch.n == 5 && fs->host_bound_idle == 600000);
    flowstats_free(fs);
    model_free(m);
    diag_free(d);
}

/* Without flows and ids nothing says when a kernel was launched: host-bound idle is unknown,
 * and the report says null, never 0. */
TEST(kineto_host_bound_unknown_without_launch_links)
{
    static const char *bare =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 10, \"tid\": 10,"
        " \"ts\": 100, \"dur\": 5},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 50},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"B\", \"pid\": 0, \"tid\": 7, \"ts\": 400, \"dur\": 50}\n"
        "]}\n";
    struct diag *d = diag_new();
    struct model *m = load(bare, d);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs && !fs->host_bound_known && fs->idle == 150000 && fs->launch.n == 0);
    flowstats_free(fs);
    model_free(m);
    diag_free(d);
    char dir[] = "/tmp/aptop_bare_XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/bare.pt.trace.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(bare, f) >= 0);
    if (f)
        fclose(f);
    int st;
    char *out = test_aptop(&st, "report --no-cache --format json --section overview,flows '%s'", path);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "\"host_bound_idle_us\": null") != NULL);
    CHECK(strstr(out, "\"host_bound_share\": null") != NULL);
    CHECK(strstr(out, "\"category\": \"host_bound_idle\"") != NULL);
    CHECK(strstr(out, "\"host_bound_us\": 0") == NULL);
    free(out);
    out = test_aptop(&st, "--script /dev/stdin --size 120x30 '%s' <<'EOF'\nloaded\ndump\nEOF\n", path);
    CHECK(strstr(out, "host-bound unknown: no launch links in this capture") != NULL);
    free(out);
    unlink(path);
    rmdir(dir);
}

/* The real traces with their flows stripped, and with their ids removed as well: the launch
 * figures and host-bound idle equal the Python recomputation (by correlation, or unknown). */
TEST(kineto_real_traces_reshaped_launches_exact)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st;
    char *out = test_check("kineto_launch", &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "reshaped") != NULL);
    if (st)
        printf("%s", out);
    free(out);
}
