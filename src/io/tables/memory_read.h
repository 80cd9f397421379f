/* Memory readers: every memory artifact of a rank into one struct memory (model/analysis/memory.h).
 *
 *   text (streamed, any size)            DB (ascend_pytorch_profiler_*.db, msprof_*.db)
 *   memory_record.csv, memory_record_*   MEMORY_RECORD (+ NPU_MEM type app as component APP)
 *   operator_memory.csv, _*              OP_MEMORY; NPU_OP_MEM allocate/release pairs (by addr)
 *   npu_module_mem.csv, _*               NPU_MODULE_MEM (module names from ENUM_MODULE)
 *   npu_mem_*.csv                        NPU_MEM (ddr + hbm per type: app, device)
 *   static_op_mem.csv
 *
 * Columns are found by name through the table alias rules (table_canon_key: "Timestamp(us)",
 * "Timestamp (µs)", "Op Name" = "Name", ...); the unit comes from the header: (MB), (KB),
 * (B)/(Byte) for sizes, (us)/(ns) for times. Text sizes are decimal and converted exactly
 * (4599.74072265625 MB = 4823179264 bytes); DB sizes are bytes and DB times ns. Empty cells
 * stay empty; negative values are kept. Problems go to d naming the file and line. */
#ifndef APTOP_MEMORY_READ_H
#define APTOP_MEMORY_READ_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/analysis/memory.h"
#include "model/index/progress.h"

enum mem_file { MEMF_UNKNOWN, MEMF_RECORD, MEMF_OPERATOR, MEMF_MODULE, MEMF_NPU_MEM, MEMF_STATIC };

/* Kind of a memory CSV from its file name (MEMF_UNKNOWN: decided from the header). */
enum mem_file memory_file_kind(const char *path);
/* Streams one memory CSV into m. Returns 0, or -1 when nothing could be read (diag'd). */
int memory_read_csv(const char *path, struct memory *m, struct diag *d, struct load_progress *p);
/* The same from a buffer; name is used for the kind and in diagnostics. */
int memory_read_csv_buffer(const char *buf, size_t len, const char *name, struct memory *m,
                           struct diag *d);
/* Reads the memory tables of a DB. Returns the number of tables read (0: none present). */
int memory_read_db(const char *path, struct memory *m, struct diag *d);

/* Decimal text times 2^shift, exactly, rounded half away from zero: "4599.74072265625" with
 * shift 20 gives 4823179264. Blanks and a trailing TAB are ignored. Returns 0, 1 when the
 * text used E-notation (the value is as exact as the text), -1 missing (empty, N/A), -2 not
 * a number or out of range. */
int memory_parse_scaled(const char *s, size_t len, int shift, int64_t *out);

#endif
