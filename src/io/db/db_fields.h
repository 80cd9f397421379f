/* The fields of a DB slice, for the detail pane. The DB reader keeps, for each slice it
 * makes from a table row, the row's rowid (in the model's byte-offset column) and the
 * table's code below (in the byte-length column); db_slice_fields reads that row again when
 * the pane opens. */
#ifndef APTOP_DB_FIELDS_H
#define APTOP_DB_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

enum db_source {
    DBS_NONE,
    DBS_TASK,
    DBS_PYTORCH_API,
    DBS_CANN_API,
    DBS_COMMUNICATION_OP,
    DBS_MSTX_EVENTS,
    DBS_COUNT
};

/* The table name of a code ("TASK"), NULL for DBS_NONE and unknown codes. */
const char *db_source_table(unsigned code);

/* One "key: value" field of a section ("TASK", "COMPUTE_TASK_INFO", ...). */
struct db_field {
    char *section, *key, *value;
};

struct db_fields {
    struct db_field *v;
    size_t n, cap;
};

/* True when slice s of m was made by the DB reader from a table row it can read again. */
bool db_slice_has_fields(const struct model *m, uint32_t s);
/* Reads the row of slice s into out (cleared first), every column by name: STRING_IDS
 * references and ENUM_* codes resolved to their text, an unknown one shown as its number;
 * for a TASK row also its COMPUTE_TASK_INFO and COMMUNICATION_TASK_INFO rows (by
 * globalTaskId). Returns false with a reason in err when the file cannot be opened or the
 * row is gone. Opens the file read-only and immutable on its own connection: thread-safe. */
bool db_slice_fields(const struct model *m, uint32_t s, struct db_fields *out, char *err, size_t errsz);
/* The same for the row `rowid` of the table of `code` in the DB file at path, which must
 * start at slice_start (ns) to be the slice's. */
bool db_row_fields(const char *path, unsigned code, uint64_t rowid, int64_t slice_start, struct db_fields *out,
                   char *err, size_t errsz);
void db_fields_free(struct db_fields *f);

#endif
