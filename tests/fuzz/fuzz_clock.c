/* libFuzzer target: the clock files (start_info / end_info) from bytes. The input is split at
 * its first NUL into the two files, written to a temporary folder, read as a device's clock,
 * then the offset is asked for spans around both windows. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../scratch.h"
#include "io/tables/clock_files.h"
#include "model/index/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void write_to(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(p, 1, n, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/aptop_fuzz_clock_XXXXXX");
        if (!mkdtemp(dir))
            return 0;
        scratch_remove_at_exit(dir);
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t a = nul ? (size_t)(nul - data) : size;
    write_to("start_info.0", data, a);
    write_to("end_info.0", nul ? nul + 1 : data, nul ? size - a - 1 : 0);
    char p0[128], p1[128];
    snprintf(p0, sizeof p0, "%s/start_info.0", dir);
    snprintf(p1, sizeof p1, "%s/end_info.0", dir);
    struct capture_file files[2] = { { .path = p0, .kind = FK_CLOCK }, { .path = p1, .kind = FK_CLOCK } };
    struct capture_rank r = { .files = files, .nfiles = 2, .dir = dir };
    struct diag *d = diag_new();
    struct clock_map cm;
    clock_map_read(&r, &cm, d);
    ns_t probes[] = { cm.mono0, cm.mono1, cm.wall0, cm.wall1, 0, INT64_MAX / 2 };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        (void)clock_map_offset(&cm, probes[i], probes[i] + 1000);
    diag_free(d);
    return 0;
}
