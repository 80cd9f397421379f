/* Summaries folders: a folder of JSON reports, one per host (or per rank), each printed by
 * `aptop report --format json --section capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends` where
 * the rank's capture is. Opening the folder gives a session of all their ranks, each with a
 * digest (model/index/rank_digest.h) and its communication ops, and no trace; the cluster-wide
 * sections are then computed over all of them as over a direct load.
 *
 * A file is a summary by content: a JSON object whose keys are report sections (arrays of
 * rows, or the summary object), at least one of capture, steps, ranks, comm, rank_steps; the
 * capture section names its ranks (rank, device, label, steps_note, comm_sources), else the
 * rows' rank keys do. Other files of the folder are
 * listed as skipped. Discovery reads each candidate whole (they are KB-sized; one over
 * SUMMARY_MAX_BYTES is refused), loading reads it again for each of its ranks. */
#ifndef APTOP_SUMMARY_JSON_H
#define APTOP_SUMMARY_JSON_H
#include <stdbool.h>
#include <stddef.h>

#include "io/discovery/capture.h"
#include "io/load/readers.h"
#include "model/index/diag.h"

#define SUMMARY_MAX_BYTES ((size_t)256 << 20)

/* When path is a folder holding summary files: fills *out with one rank per rank they cover
 * (files of kind FK_SUMMARY_JSON; a rank number seen twice is kept from the first file, by
 * name, and said) and returns 0, or 1 when none of them can be read. Returns -1 and leaves
 * *out as it was when path holds no summary file (then it is an ordinary capture). */
int summary_discover(const char *path, struct capture *out, struct diag *d);
/* True when the file at path is a summary (cheap: reads its first bytes only). */
bool summary_file_head(const char *path);
/* Loads rank cr->rank from its summary file: hands over its comm (RP_COMM) and digest
 * (RP_DIGEST). Returns the parts handed over, -1 when the file cannot be read. */
int summary_load_rank(const struct capture_rank *cr, size_t rank_index, struct diag *d,
                      reader_handover_fn hand_over, void *ctx, char *status, size_t status_size);

#endif
