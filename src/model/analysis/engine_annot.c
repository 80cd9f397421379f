/* Serving-engine step annotations. See engine_annot.h. */
#include "model/analysis/engine_annot.h"

#include <ctype.h>
#include <string.h>

#include "model/analysis/steps.h"

/* The decimal number at *p (advancing it), or -1 when there is none. */
static long number(const char **p, const char *end)
{
    const char *s = *p;
    long v = 0;
    while (s < end && isdigit((unsigned char)*s) && v < 100000000)
        v = v * 10 + (*s++ - '0');
    if (s == *p)
        return -1;
    *p = s;
    return v;
}

/* After "_<key>_" in [p, end): its count, or -1 when the key is absent. */
static long count_of(const char *p, const char *end, const char *key)
{
    size_t k = strlen(key);
    for (const char *q = p; q + k <= end; q++)
        if (!memcmp(q, key, k)) {
            const char *n = q + k;
            return number(&n, end);
        }
    return -1;
}

static int vllm_phase(const char *s, size_t n)
{
    const char *end = s + n, *p = s + 8;
    if (n < 9 || memcmp(s, "execute_", 8) || number(&p, end) < 0)
        return -1;
    long ctx = count_of(p, end, "_context_"), gen = count_of(p, end, "_generation_");
    if (ctx < 0 && gen < 0)
        return -1;
    if (ctx > 0 && gen > 0)
        return PHASE_MIXED;
    if (ctx > 0)
        return PHASE_PREFILL;
    if (gen > 0)
        return PHASE_DECODE;
    return PHASE_OTHER;
}

static int sglang_phase(const char *s, size_t n)
{
    if (n < 6 || memcmp(s, "step[", 5) || s[n - 1] != ']')
        return -1;
    const char *m = s + 5;
    size_t k = 0;
    while (5 + k < n && isupper((unsigned char)m[k]))
        k++;
    if ((k == 6 && !memcmp(m, "EXTEND", 6)) || (k == 7 && !memcmp(m, "PREFILL", 7)))
        return PHASE_PREFILL;
    if (k == 6 && !memcmp(m, "DECODE", 6))
        return PHASE_DECODE;
    if (k == 5 && !memcmp(m, "MIXED", 5))
        return PHASE_MIXED;
    return k ? PHASE_OTHER : -1;
}

int engine_annot_phase(const char *name, size_t len)
{
    int p = vllm_phase(name, len);
    return p >= 0 ? p : sglang_phase(name, len);
}
