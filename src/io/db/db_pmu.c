#include "io/db/db_pmu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/model.h"

static void header_of(const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    if (!strcmp(name, "aic_total_time"))
        snprintf(out, size, "aicore_time(us)");
    else if (!strcmp(name, "aiv_total_time"))
        snprintf(out, size, "aiv_time(us)");
    else if (n > 5 && !strcmp(name + n - 5, "_time") && !strchr(name, '('))
        snprintf(out, size, "%s(us)", name);
    else
        snprintf(out, size, "%s", name);
}

/* The column of PMU name ref/text, created when new; NULL when there is no room. */
static struct db_pmu_col *col_for(struct db_pmu *p, int64_t ref, const char *text)
{
    for (size_t i = 0; i < p->ncols; i++)
        if (p->col[i].name_ref == ref && (ref >= 0 || !strcmp(p->col[i].header, text)))
            return &p->col[i];
    if (p->ncols == DB_PMU_MAX)
        return NULL;
    struct db_pmu_col *c = &p->col[p->ncols];
    c->name_ref = ref;
    header_of(text, c->header, sizeof c->header);
    for (size_t i = 0; i < p->ncols; i++)   /* two names that map to one header: keep the first */
        if (!strcmp(p->col[i].header, c->header))
            return NULL;
    size_t hl = strlen(c->header);
    c->type = hl > 4 && !strcmp(c->header + hl - 4, "(us)") ? TC_TIME : TC_NUM;
    c->v = malloc((p->nk ? p->nk : 1) * 8);
    if (!c->v)
        return NULL;
    for (size_t r = 0; r < p->nk; r++) {
        if (c->type == TC_TIME)
            ((int64_t *)c->v)[r] = NS_NONE;
        else
            ((double *)c->v)[r] = NAN;
    }
    p->ncols++;
    return c;
}

void db_pmu_read(struct db_pmu *p, sqlite3 *db, const char *path, struct diag *d, struct dbu_keyidx *cti,
                 size_t nk, const char *(*name)(void *arg, int64_t id), void *arg)
{
    static const char *const cols[] = { "globalTaskId", "name", "value" };
    memset(p, 0, sizeof *p);
    p->nk = nk;
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, "TASK_PMU_INFO", cols, 3, 0x7, &have);
    if (!st)
        return;
    uint64_t row = 0, stray = 0, dropped = 0;
    int rc;
    int64_t last_ref = INT64_MIN;
    struct db_pmu_col *last = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t gtid, ref;
        row++;
        if (!dbu_i64(st, 0, &gtid))
            continue;
        uint32_t r = dbu_keyidx_find(cti, gtid);
        if (r == UINT32_MAX || r >= nk) {
            stray++;
            continue;
        }
        struct db_pmu_col *c;
        if (dbu_i64(st, 1, &ref)) {
            if (ref != last_ref) {   /* names repeat in a cycle: look up only on change */
                const char *t = name ? name(arg, ref) : NULL;
                char buf[24];
                if (!t) {
                    snprintf(buf, sizeof buf, "%lld", (long long)ref);
                    t = buf;
                }
                last = col_for(p, ref, t);
                last_ref = ref;
            }
            c = last;
        } else {
            size_t len;
            const char *t = dbu_text(st, 1, &len);
            char buf[80];
            snprintf(buf, sizeof buf, "%.*s", t ? (int)(len > 70 ? 70 : len) : 0, t ? t : "");
            c = buf[0] ? col_for(p, -1, buf) : NULL;
            last_ref = INT64_MIN;
        }
        if (!c) {
            dropped++;
            continue;
        }
        if (c->type == TC_TIME) {
            double v = dbu_f64(st, 2);
            if (!isnan(v) && fabs(v) < 9e18)
                ((int64_t *)c->v)[r] = (int64_t)llround(v);
        } else {
            ((double *)c->v)[r] = dbu_f64(st, 2);
        }
    }
    if (rc != SQLITE_DONE)
        diag_add(d, DIAG_ERROR, path, "table TASK_PMU_INFO, row %llu: %s; rows before it are kept",
                 (unsigned long long)row + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (stray)
        diag_add(d, DIAG_WARN, path, "TASK_PMU_INFO: %llu row(s) of tasks without a COMPUTE_TASK_INFO row: not in "
                 "the kernel table", (unsigned long long)stray);
    if (dropped)
        diag_add(d, DIAG_WARN, path, "TASK_PMU_INFO: %llu row(s) of PMU names past the first %d (or out of "
                 "memory): left out", (unsigned long long)dropped, DB_PMU_MAX);
}

void db_pmu_adopt(struct db_pmu *p, struct table *t, struct diag *d, const char *path)
{
    for (size_t i = 0; i < p->ncols; i++) {
        struct db_pmu_col *c = &p->col[i];
        if (table_col(t, c->header) != SIZE_MAX) {   /* never two columns of one name */
            free(c->v);
        } else if (table_adopt_col(t, c->header, c->type, c->v) == SIZE_MAX) {
            diag_out_of_memory(d, path, "out of memory adding PMU column %s", c->header);
        }
        c->v = NULL;
    }
    p->ncols = 0;
}

void db_pmu_free(struct db_pmu *p)
{
    for (size_t i = 0; i < p->ncols; i++)
        free(p->col[i].v);
    p->ncols = 0;
}
