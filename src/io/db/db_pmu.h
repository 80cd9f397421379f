/* PMU columns of the DB kernel table from TASK_PMU_INFO (globalTaskId, name, value): one
 * column per PMU name, named as kernel_details.csv names it, so that both exports give the
 * same table: aic_total_time → "aicore_time(us)", aiv_total_time → "aiv_time(us)", any other
 * *_time → "*_time(us)" (the DB stores ns; kept as exact ns, fractions rounded half away from
 * zero); cycles, ratios and rates keep their name and value. Rows whose globalTaskId is not
 * a kernel (no COMPUTE_TASK_INFO row) are counted in one diagnostic. */
#ifndef APTOP_DB_PMU_H
#define APTOP_DB_PMU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "io/db/db_util.h"
#include "model/index/diag.h"
#include "model/index/table.h"

#define DB_PMU_MAX 96

struct db_pmu {
    size_t ncols, nk;
    struct db_pmu_col {
        int64_t name_ref;              /* the STRING_IDS id of the PMU name (or -1: text) */
        char header[80];
        enum table_col_type type;      /* TC_TIME (ns) or TC_NUM */
        void *v;                       /* nk cells, missing until read */
    } col[DB_PMU_MAX];
};

/* Reads TASK_PMU_INFO into columns of nk kernel rows; cti maps globalTaskId to the kernel
 * row. name(arg, id) gives the text of a STRING_IDS id (NULL when unknown). */
void db_pmu_read(struct db_pmu *p, sqlite3 *db, const char *path, struct diag *d, struct dbu_keyidx *cti,
                 size_t nk, const char *(*name)(void *arg, int64_t id), void *arg);
/* Appends the columns to t (t->nrows == nk) and hands their cells over. */
void db_pmu_adopt(struct db_pmu *p, struct table *t, struct diag *d, const char *path);
void db_pmu_free(struct db_pmu *p);

#endif
