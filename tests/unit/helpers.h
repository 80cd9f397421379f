/* Helpers shared by the unit tests (they link the model, unlike the UI tests): diagnostics
 * lookup and small hand-built models. */
#ifndef APTOP_TEST_HELPERS_H
#define APTOP_TEST_HELPERS_H
#include <stdbool.h>
#include <stdint.h>

#include "io/discovery/capture.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/session.h"

/* True when some diagnostic's formatted text contains a and, unless b is NULL, b. */
bool test_diag_has(struct diag *d, const char *a, const char *b);
/* The lane of thread tid in process pid, the process named pname. */
uint32_t test_lane(struct model *m, const char *pid, const char *pname, const char *tid);
/* A slice [t0, t0 + dur) named name on lane l, without args or category. */
void test_slice(struct model *m, uint32_t l, ns_t t0, ns_t dur, const char *name);

/* A capture discovered and loaded whole (every rank, on the calling thread). */
struct test_loaded {
    struct diag *d;
    struct capture c;
    struct session *s;
};
/* False when dir is not there or nothing of it loaded; test_unload frees either way. */
bool test_load(struct test_loaded *l, const char *dir);
void test_unload(struct test_loaded *l);

#endif
