/* The entry points of every reader and analysis the rank loader calls, gathered in one
 * place. Each is defined in its own module; modules still being written are met by weak
 * defaults in readers_api.c that report "not supported yet", so the program always links. */
#ifndef APTOP_READERS_API_H
#define APTOP_READERS_API_H
#include "model/diag.h"
#include "model/model.h"
#include "model/progress.h"
#include "model/session.h"

int trace_json_load(struct model *m, const char *path, struct diag *d, struct load_progress *p);
int csv_table_load(const char *path, enum table_kind kind, struct table **out, struct diag *d,
                   struct load_progress *p);
void table_free(struct table *t);
int csv_table_append(const char *path, struct table *t, struct diag *d, struct load_progress *p);
int db_load(const char *path, struct rank_data *rd, struct diag *d, struct load_progress *p);
int db_load_analysis(const char *path, struct rank_data *rd, struct diag *d);
int comm_load(const char *path, struct comm **io_comm, struct diag *d);
int comm_load_matrix(const char *path, struct comm **io_comm, struct diag *d);
void comm_free(struct comm *c);
int kernels_join(struct table *kernels, const struct model *m, struct diag *d);
struct steps *steps_detect(const struct model *m, const struct table *kernels);
void steps_free(struct steps *s);
struct flowstats *flowstats_compute(const struct model *m, const struct steps *steps);
void flowstats_free(struct flowstats *f);

#endif
