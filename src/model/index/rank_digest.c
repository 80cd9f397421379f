#include "model/index/rank_digest.h"

#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

struct rank_digest *rank_digest_new(const char *path)
{
    return STRTAB_NAMED_NEW(struct rank_digest, path, path);
}

void rank_digest_free(struct rank_digest *g)
{
    if (!g)
        return;
    strtab_free(g->str);
    rowset_free(g->steps);
    rowset_free(g->phases);
    for (size_t k = 0; g->ov && k < g->ov->ntop; k++)
        free(g->ov->top[k].name);
    FREE_ALL(g->rsteps, g->rsteps_source, g->ends, g->summary, g->ov, g);
}

int rank_digest_fill_steps(const struct rank_digest *g, struct rank_summary *r)
{
    if (!g->nrsteps)
        return 0;
    r->steps = malloc(g->nrsteps * sizeof *r->steps);
    if (!r->steps)
        return -1;
    memcpy(r->steps, g->rsteps, g->nrsteps * sizeof *r->steps);
    r->nsteps = g->nrsteps;
    /* the source names rank_src_name and step_source_name give, read back */
    const char *src = g->rsteps_source ? g->rsteps_source : "";
    if (!strcmp(src, rank_src_name(RSRC_STEP_TRACE)))
        r->src = RSRC_STEP_TRACE;
    else if (!strcmp(src, rank_src_name(RSRC_OVERLAP)))
        r->src = RSRC_OVERLAP;
    else {
        r->src = RSRC_STEPS;
        r->src_detail = src;
    }
    return 0;
}
