/* A session made from a discovered capture, one empty rank_data per rank that the loader
 * then fills, and freed with everything its ranks hold (see loader.h). */
#include "io/load/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/load/readers.h"
#include "model/analysis/pgroups.h"

struct session *session_new(const struct capture *c, struct diag *d)
{
    struct session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->diag = d;
    s->root = strdup(c->root ? c->root : "");
    s->nranks = c->nranks;
    s->ranks = calloc(c->nranks ? c->nranks : 1, sizeof *s->ranks);
    if (!s->root || !s->ranks) {
        session_free(s);
        return NULL;
    }
    for (size_t i = 0; i < c->nranks; i++) {
        struct rank_data *rd = &s->ranks[i];
        rd->rank = c->ranks[i].rank;
        rd->device = c->ranks[i].device;
        rd->label = strdup(c->ranks[i].label ? c->ranks[i].label : "");
        snprintf(rd->status, sizeof rd->status, "waiting");
    }
    return s;
}

static void rank_parts_free(struct rank_data *rd)
{
    readers_free_parts(rd);
    free(rd->label);
}

void session_free(struct session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nranks; i++)
        rank_parts_free(&s->ranks[i]);
    free(s->ranks);
    free(s->root);
    pgroups_free(s->cluster_groups);
    for (size_t g = 0; g < s->ngroups; g++) {
        free(s->groups[g].root);
        free(s->groups[g].path);
    }
    free(s->groups);
    free(s);
}

void session_set_groups(struct session *s, struct session_group *groups, size_t n)
{
    s->groups = groups;
    s->ngroups = n;
}
