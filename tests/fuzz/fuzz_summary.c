/* libFuzzer target for summaries folders (io/tables/summary_json.c) and the parallel groups readers
 * (io/tables/pgroups_json.c): the input becomes one summary file of a folder, which is discovered,
 * and every rank it names is loaded (its digest and comm built, then freed); the same bytes
 * are read as a profiler_metadata.json and a communication_group.json. The folder is made
 * once per process. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/tables/pgroups_json.h"
#include "io/tables/summary_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/pgroups.h"
#include "model/index/rank_digest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_summary_dir[64];
static char fuzz_summary_file[128];

static void fuzz_summary_cleanup(void)
{
    unlink(fuzz_summary_file);
    rmdir(fuzz_summary_dir);
}

/* The parts a rank hands over, freed at once. */
static void fuzz_summary_take(void *ctx, size_t rank, enum reader_part kind, int table, void *ptr)
{
    (void)ctx;
    (void)rank;
    (void)table;
    if (kind == RP_COMM)
        comm_free(ptr);
    else if (kind == RP_DIGEST)
        rank_digest_free(ptr);
    else if (kind == RP_GROUPS)
        pgroups_free(ptr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_summary_dir[0]) {
        char tmpl[] = "/tmp/aptop_fuzz_sum_XXXXXX";
        if (!mkdtemp(tmpl))
            return 0;
        snprintf(fuzz_summary_dir, sizeof fuzz_summary_dir, "%s", tmpl);
        snprintf(fuzz_summary_file, sizeof fuzz_summary_file, "%s/host.json", tmpl);
        atexit(fuzz_summary_cleanup);
    }
    FILE *f = fopen(fuzz_summary_file, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct diag *d = diag_new();
    struct capture c = { 0 };
    c.root = strdup(fuzz_summary_dir);
    if (summary_discover(fuzz_summary_dir, &c, d) == 0) {
        for (size_t i = 0; i < c.nranks && i < 64; i++) {
            char status[128];
            summary_load_rank(&c.ranks[i], i, d, fuzz_summary_take, NULL, status, sizeof status);
        }
    }
    capture_free(&c);
    pgroups_free(pgroups_read_metadata(fuzz_summary_file, d));
    pgroups_free(pgroups_read_comm_group(fuzz_summary_file, d));
    diag_free(d);
    return 0;
}
