/* Helpers shared by the unit tests (see helpers.h). */
#include "helpers.h"

#include <string.h>

bool test_diag_has(struct diag *d, const char *a, const char *b)
{
    for (size_t i = 0; i < diag_count(d); i++) {
        char buf[1200];
        diag_format(d, i, buf, sizeof buf);
        if (strstr(buf, a) && (!b || strstr(buf, b)))
            return true;
    }
    return false;
}

uint32_t test_lane(struct model *m, const char *pid, const char *pname, const char *tid)
{
    uint32_t p = model_proc(m, pid, strlen(pid));
    model_set_process_name(m, p, pname, strlen(pname));
    return model_lane(m, pid, strlen(pid), tid, strlen(tid));
}

void test_slice(struct model *m, uint32_t l, ns_t t0, ns_t dur, const char *name)
{
    model_add_slice(m, l, t0, dur, name, strlen(name), "", 0, 0, UINT64_MAX, 0);
}
