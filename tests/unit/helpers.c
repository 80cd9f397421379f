/* Helpers shared by the unit tests (see helpers.h). */
#include "helpers.h"

#include <string.h>

#include "../runner.h"
#include "io/load/loader.h"

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

bool test_load(struct test_loaded *l, const char *dir)
{
    memset(l, 0, sizeof *l);
    if (!test_is_dir(dir))
        return false;
    l->d = diag_new();
    if (capture_discover(dir, &l->c, l->d) != 0)
        return false;
    l->s = session_new(&l->c, l->d);
    struct loader_opts o = { .rank = -1 };
    return l->s && loader_run_sync(&l->c, l->s, &o) > 0;
}

void test_unload(struct test_loaded *l)
{
    session_free(l->s);
    capture_free(&l->c);
    diag_free(l->d);
}
