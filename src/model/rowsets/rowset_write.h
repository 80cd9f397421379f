/* A rowset written out as text (aligned columns), CSV or JSON: the report prints its sections
 * with these, the UI's CSV export its visible table. Every cell is escaped for the terminal
 * (text, CSV) or as JSON; times are µs with 3 decimals from exact ns. */
#ifndef APTOP_ROWSET_WRITE_H
#define APTOP_ROWSET_WRITE_H
#include <stdio.h>

#include "model/rowsets/rowset.h"

enum rowset_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* Writes rs in format f: text and CSV with a header line, JSON as an array of objects with
 * snake_case keys (one object when rs->object). */
void rowset_write(const struct rowset *rs, enum rowset_format f, FILE *out);
/* s as a JSON string, quotes included (a JSON report's section names). */
void rowset_write_json_string(const char *s, FILE *out);

#endif
