/* libFuzzer target for the comparison's text handling: the key of a kernel or collective
 * name (diff_key, which rewrites in place, at every buffer size), the alignment of two
 * name sequences (every index used once, in order, matched names equal), and the command
 * line's --fail-if conditions and PATH:rankN suffixes. The first byte picks the mode. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/discovery/capture_set.h"
#include "model/analysis/diff.h"
#include "report/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Splits text at '\n' into at most max names (pointers into text, which is modified). */
static size_t split(char *text, const char **names, size_t max)
{
    size_t n = 0;
    for (char *p = text; p && n < max; ) {
        names[n++] = p;
        char *nl = strchr(p, '\n');
        if (nl)
            *nl++ = 0;
        p = nl;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    switch (data[0] % 4) {
    case 0: {
        char buf[64];
        for (size_t cap = 1; cap <= sizeof buf; cap += 7)
            diff_key(s, buf, cap);
        char big[4096];
        diff_key(s, big, sizeof big);
        break;
    }
    case 1: {
        /* two sequences separated by a NUL-free "\n\n" */
        char *mid = strstr(s, "\n\n");
        char *b = mid ? mid + 2 : s + strlen(s);
        if (mid)
            *mid = 0;
        const char *na[256], *nb[256];
        size_t a_n = split(s, na, 256), b_n = split(b, nb, 256);
        struct diff_pair *p = NULL;
        size_t np = 0;
        if (diff_align_names(na, a_n, nb, b_n, &p, &np) == 0) {
            size_t ia = 0, ib = 0;
            for (size_t k = 0; k < np; k++) {
                if (p[k].a != SIZE_MAX && p[k].a != ia++)
                    abort();
                if (p[k].b != SIZE_MAX && p[k].b != ib++)
                    abort();
                if (p[k].a != SIZE_MAX && p[k].b != SIZE_MAX && strcmp(na[p[k].a], nb[p[k].b]))
                    abort();
                if (p[k].a == SIZE_MAX && p[k].b == SIZE_MAX)
                    abort();
            }
            if (ia != a_n || ib != b_n)
                abort();
        }
        free(p);
        break;
    }
    case 2: {
        struct diff_fail f;
        char why[256];
        diff_fail_parse(s, &f, why, sizeof why);
        break;
    }
    default: {
        char path[128];
        int rank;
        capture_spec_parse(s, path, sizeof path, &rank);
        break;
    }
    }
    free(s);
    return 0;
}
