/* libFuzzer target for capture discovery: the input becomes one small file of a Class A rank
 * directory (profiler_info, profiler_metadata, or the head of a data file that discovery
 * classifies by content), then capture_discover and capture_print run over the directory.
 * The first byte picks the file name. The directory is made once per process. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "model/index/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_capture_names[] = {
    "profiler_info_0.json",
    "profiler_info.json",
    "profiler_metadata.json",
    "ASCEND_PROFILER_OUTPUT/trace_view.json",
    "ASCEND_PROFILER_OUTPUT/kernel_details.csv",
    "ASCEND_PROFILER_OUTPUT/communication.json",
    "ASCEND_PROFILER_OUTPUT/op_statistic.csv",
    "ASCEND_PROFILER_OUTPUT/data.db",
};
#define FUZZ_CAPTURE_NNAMES (sizeof fuzz_capture_names / sizeof fuzz_capture_names[0])

static char fuzz_capture_root[64];

/* removes the directory at exit (the fuzzed file is unlinked after each run) */
static void fuzz_capture_cleanup(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", fuzz_capture_root);
    unlink(p);
    snprintf(p, sizeof p, "%s/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT", fuzz_capture_root);
    rmdir(p);
    snprintf(p, sizeof p, "%s/rank3_ascend_pt", fuzz_capture_root);
    rmdir(p);
    rmdir(fuzz_capture_root);
}

static int fuzz_capture_setup(void)
{
    if (fuzz_capture_root[0])
        return 0;
    char tmpl[] = "/tmp/aptop_fuzz_cap_XXXXXX";
    if (!mkdtemp(tmpl))
        return -1;
    char p[256];
    snprintf(p, sizeof p, "%s/rank3_ascend_pt", tmpl);
    if (mkdir(p, 0700))
        return -1;
    snprintf(p, sizeof p, "%s/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT", tmpl);
    if (mkdir(p, 0700))
        return -1;
    /* one loadable file so the rank is kept whatever the input does */
    snprintf(p, sizeof p, "%s/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", tmpl);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fputs("Step,Computing,Communication(Not Overlapped)\n1,10,2\n", f);
    fclose(f);
    snprintf(fuzz_capture_root, sizeof fuzz_capture_root, "%s", tmpl);
    atexit(fuzz_capture_cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || fuzz_capture_setup())
        return 0;
    const char *name = fuzz_capture_names[data[0] % FUZZ_CAPTURE_NNAMES];
    char path[512];
    snprintf(path, sizeof path, "%s/rank3_ascend_pt/%s", fuzz_capture_root, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size > 1)
        fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    struct diag *d = diag_new();
    struct capture c;
    memset(&c, 0, sizeof c);
    capture_discover(fuzz_capture_root, &c, d);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        capture_print(&c, null);
        fclose(null);
    }
    char buf[512];
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(d, i, buf, sizeof buf);
    capture_free(&c);
    diag_free(d);
    unlink(path);
    return 0;
}
