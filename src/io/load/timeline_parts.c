/* The parts of a rank that came with its timeline: see timeline_parts.h. */
#include "io/load/timeline_parts.h"

#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/memory.h"
#include "model/analysis/steps.h"
#include "model/index/table.h"

void timeline_parts_free(struct timeline_parts *tp, struct rank_data *rd)
{
    /* what borrows the model goes first */
    if (tp->flowstats && rd->flowstats) {
        flowstats_free(rd->flowstats);
        rd->flowstats = NULL;
    }
    if (tp->steps && rd->steps) {
        steps_free(rd->steps);
        rd->steps = NULL;
    }
    if (tp->comm && rd->comm) {
        comm_free(rd->comm);
        rd->comm = NULL;
    }
    for (int t = 0; t < TK_COUNT; t++)
        if (tp->table[t] && rd->tables[t]) {
            table_free(rd->tables[t]);
            rd->tables[t] = NULL;
        }
    if (tp->memory) {
        memory_free(rd->memory);
        rd->memory = NULL;
    }
    if (tp->model) {
        model_free(rd->model);
        rd->model = NULL;
    }
    rd->files_read = rd->files_read > tp->files ? rd->files_read - tp->files : 0;
    memset(tp, 0, sizeof *tp);
}
