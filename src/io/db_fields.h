/* The source row of a DB slice. The DB reader keeps, for each slice it makes from a table
 * row, the row's rowid (in the model's byte-offset column) and the table's code below (in
 * the byte-length column), so that the row can be read again later. */
#ifndef APTOP_DB_FIELDS_H
#define APTOP_DB_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

enum db_source {
    DBS_NONE,
    DBS_TASK,
    DBS_PYTORCH_API,
    DBS_CANN_API,
    DBS_COMMUNICATION_OP,
    DBS_MSTX_EVENTS,
    DBS_COUNT
};

#endif
