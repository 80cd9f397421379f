/* Several captures opened as one session: `aptop A B`, `aptop --diff BASE NEW`, and one
 * rank of a capture picked with a suffix (`A:rank2`, `A:2`). Each argument is discovered
 * on its own (capture_discover), cut to the rank it names, and its ranks appended to one
 * merged capture that the loader reads like any other; the groups say which ranks belong
 * to which argument (session.h, struct session_group). */
#ifndef APTOP_CAPTURE_SET_H
#define APTOP_CAPTURE_SET_H
#include <stddef.h>

#include "io/discovery/capture.h"
#include "model/index/diag.h"
#include "model/index/session.h"

/* Splits "PATH:rankN" / "PATH:N" into path and rank (-1 when the argument names no rank).
 * An argument that exists as typed is a path, colon or not. Returns 0, or -1 when path
 * does not fit in size. */
int capture_spec_parse(const char *arg, char *path, size_t size, int *rank);

/* Discovers every argument into *out (free with capture_free) and fills *groups (n of
 * them, free with capture_groups_free). Returns 0 when every argument has at least one
 * loadable rank, 1 otherwise (each problem in d, naming the argument). */
int capture_set_open(const char *const *args, size_t n, struct capture *out,
                     struct session_group **groups, struct diag *d);
void capture_groups_free(struct session_group *groups, size_t n);

#endif
