/* Weak defaults for readers and analyses not in the tree yet (see readers_api.h). */
#include "io/readers_api.h"

#define W __attribute__((weak))

W int trace_json_load(struct model *m, const char *path, struct diag *d, struct load_progress *p)
{ (void)m; (void)p; diag_add(d, DIAG_WARN, path, "trace JSON is not supported by this build"); return -1; }
W int csv_table_load(const char *path, enum table_kind kind, struct table **out, struct diag *d, struct load_progress *p)
{ (void)kind; (void)p; *out = NULL; diag_add(d, DIAG_WARN, path, "CSV is not supported by this build"); return -1; }
W void table_free(struct table *t) { (void)t; }
W int db_load(const char *path, struct rank_data *rd, struct diag *d, struct load_progress *p)
{ (void)rd; (void)p; diag_add(d, DIAG_WARN, path, "SQLite captures are not supported by this build"); return -1; }
W int db_load_analysis(const char *path, struct rank_data *rd, struct diag *d)
{ (void)path; (void)rd; (void)d; return 0; }
W int comm_load(const char *path, struct comm **c, struct diag *d)
{ (void)path; (void)c; (void)d; return 0; }
W int comm_load_matrix(const char *path, struct comm **c, struct diag *d)
{ (void)path; (void)c; (void)d; return 0; }
W void comm_free(struct comm *c) { (void)c; }
W int kernels_join(struct table *k, const struct model *m, struct diag *d) { (void)k; (void)m; (void)d; return 0; }
W struct steps *steps_detect(const struct model *m, const struct table *k) { (void)m; (void)k; return NULL; }
W void steps_free(struct steps *s) { (void)s; }
W struct flowstats *flowstats_compute(const struct model *m, const struct steps *s) { (void)m; (void)s; return NULL; }
W void flowstats_free(struct flowstats *f) { (void)f; }
