/* The unit of a counter's values, read off the text that names them: Ascend writes it as
 * the sample's only arg key ("KB", "MHz") or in parentheses at a key's or series' end
 * ("Read(MB/s)", "Hit Rate(%)", "DDR/Read (B/s)"). A key that is neither ("value",
 * "acc_id", the series' own name) gives none. One rule for every reader of counters. */
#ifndef APTOP_COUNTER_UNIT_H
#define APTOP_COUNTER_UNIT_H
#include <stddef.h>

/* The unit in text (len bytes) into out (NUL-terminated; "" when there is none); returns out. */
const char *counter_unit_of(const char *text, size_t len, char *out, size_t size);

#endif
