/* Several captures merged into one (see capture_set.h). */
#include "io/discovery/capture_set.h"
#include "util/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int capture_spec_parse(const char *arg, char *path, size_t size, int *rank)
{
    *rank = -1;
    struct stat st;
    const char *colon = strrchr(arg, ':');
    if (stat(arg, &st) == 0 || !colon) {
        if (strlen(arg) >= size)
            return -1;
        snprintf(path, size, "%s", arg);
        return 0;
    }
    const char *r = colon + 1;
    if (!strncmp(r, "rank", 4))
        r += 4;
    char *end;
    long v = r[0] >= '0' && r[0] <= '9' ? strtol(r, &end, 10) : -1;
    if (v < 0 || v > 1000000 || *end) {
        if (strlen(arg) >= size)
            return -1;
        snprintf(path, size, "%s", arg);     /* not a rank suffix: discovery says what is wrong */
        return 0;
    }
    size_t len = (size_t)(colon - arg);
    if (len >= size)
        return -1;
    memcpy(path, arg, len);
    path[len] = 0;
    *rank = (int)v;
    return 0;
}

/* Keeps only the ranks with id `rank` in c; the others are freed. Returns how many stay. */
static size_t keep_rank(struct capture *c, int rank)
{
    struct capture drop = { 0 };
    drop.ranks = calloc(c->nranks ? c->nranks : 1, sizeof *drop.ranks);
    if (!drop.ranks)
        return c->nranks;
    size_t kept = 0;
    for (size_t i = 0; i < c->nranks; i++) {
        if (c->ranks[i].rank == rank)
            c->ranks[kept++] = c->ranks[i];
        else
            drop.ranks[drop.nranks++] = c->ranks[i];
    }
    c->nranks = kept;
    capture_free(&drop);
    return kept;
}

void capture_groups_free(struct session_group *groups, size_t n)
{
    for (size_t i = 0; groups && i < n; i++) {
        free(groups[i].root);
        free(groups[i].path);
    }
    free(groups);
}

int capture_set_open(const char *const *args, size_t n, struct capture *out,
                     struct session_group **groups, struct diag *d)
{
    memset(out, 0, sizeof *out);
    *groups = calloc(n ? n : 1, sizeof **groups);
    size_t rootlen = 1;
    for (size_t i = 0; i < n; i++)
        rootlen += strlen(args[i]) + 3;
    out->root = calloc(1, rootlen);
    if (!*groups || !out->root) {
        free(out->root);
        out->root = NULL;
        return 1;
    }
    int rc = 0;
    for (size_t g = 0; g < n; g++) {
        char path[4096];
        int rank;
        struct session_group *grp = &(*groups)[g];
        grp->root = strdup(args[g]);
        grp->first = out->nranks;
        if (capture_spec_parse(args[g], path, sizeof path, &rank) < 0) {
            diag_add(d, DIAG_ERROR, args[g], "path too long");
            rc = 1;
            continue;
        }
        grp->path = strdup(path);
        struct capture c = { 0 };
        int found = capture_discover(path, &c, d);
        if (found == 0 && rank >= 0 && keep_rank(&c, rank) == 0) {
            diag_add(d, DIAG_ERROR, path, "no rank %d in this capture", rank);
            found = 1;
        }
        if (found)
            rc = 1;
        struct capture_rank *nr = c.nranks ? grow_exact(out->ranks, out->nranks + c.nranks, sizeof *nr) : out->ranks;
        if (c.nranks && !nr) {
            capture_free(&c);
            rc = 1;
            continue;
        }
        out->ranks = nr;
        if (c.nranks)
            memcpy(out->ranks + out->nranks, c.ranks, c.nranks * sizeof *c.ranks);
        out->nranks += c.nranks;
        grp->n = c.nranks;
        c.nranks = 0;                 /* the ranks' contents now belong to out */
        capture_free(&c);
        strcat(strcat(out->root, g ? " + " : ""), args[g]);
    }
    return rc;
}
