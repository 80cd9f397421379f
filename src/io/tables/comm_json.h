/* Readers of communication.json and communication_matrix.json (ASCEND_PROFILER_OUTPUT).
 *
 * Each call parses one whole file with cJSON (these files are small; one over 512 MiB is
 * refused with a diagnostic) and appends its entries to *io_comm, creating the comm when
 * *io_comm is NULL. Unknown keys are ignored and counted (one summary diagnostic per file);
 * a value of the wrong type is diagnosed with the file and its key path and left absent;
 * everything else still loads. Returns 0 when the file was read (possibly with warnings),
 * -1 when nothing could be taken from it (unreadable, not JSON, wrong top-level type);
 * *io_comm is left as it was on -1 when it was NULL before. */
#ifndef APTOP_COMM_JSON_H
#define APTOP_COMM_JSON_H
#include <stddef.h>

#include "model/analysis/comm.h"
#include "model/index/diag.h"

#define COMM_JSON_MAX_BYTES ((size_t)512 << 20)

int comm_load(const char *path, struct comm **io_comm, struct diag *d);
int comm_load_matrix(const char *path, struct comm **io_comm, struct diag *d);

/* The same on bytes already in memory (buf need not be NUL-terminated); path names the
 * source in diagnostics. */
int comm_parse_buf(const char *buf, size_t len, const char *path, struct comm **io_comm, struct diag *d);
int comm_parse_matrix_buf(const char *buf, size_t len, const char *path, struct comm **io_comm,
                          struct diag *d);

/* Numbers kept as their text, for other readers of JSON aptop or the profiler wrote
 * (io/tables/summary_json.c): buf[0..len) with every number outside a string wrapped as a marked
 * string, so cJSON keeps its digits (NUL-terminated, caller frees; NULL when memory ran out);
 * comm_json_num_text gives the digits of such a value back, NULL when v is not a number. */
struct cJSON;
char *comm_json_quote_numbers(const char *buf, size_t len, size_t *out_len);
const char *comm_json_num_text(const struct cJSON *v);

#endif
