/* The unit of a counter (see counter_unit.h). */
#include "model/index/counter_unit.h"

#include <stdio.h>
#include <string.h>

/* Keys that are a unit by themselves: sizes, rates, frequencies, power, times. */
static const char *const unit_words[] = {
    "B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "B/s", "KB/s", "MB/s", "GB/s",
    "Hz", "kHz", "KHz", "MHz", "GHz", "%", "W", "mW", "ns", "us", "ms", "s", "C",
};

const char *counter_unit_of(const char *text, size_t len, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (!text || !size)
        return out;
    /* "Read(MB/s)": what the last parentheses at the end hold */
    if (len >= 3 && text[len - 1] == ')') {
        const char *open = NULL;
        for (size_t i = len - 1; i-- > 0 && !open;)
            if (text[i] == '(')
                open = text + i;
        if (open && open + 1 < text + len - 1) {
            snprintf(out, size, "%.*s", (int)(text + len - 1 - open - 1), open + 1);
            return out;
        }
    }
    for (size_t k = 0; k < sizeof unit_words / sizeof *unit_words; k++)
        if (strlen(unit_words[k]) == len && !memcmp(unit_words[k], text, len)) {
            snprintf(out, size, "%s", unit_words[k]);
            return out;
        }
    return out;
}
