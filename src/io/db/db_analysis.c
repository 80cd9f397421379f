/* analysis.db: StepTraceTime and the CommAnalyzer* tables (see db_reader.h for units), read
 * into rows, then into a rank's step table and its communication figures. */
#include "io/db/db_reader.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/db/db_util.h"
#include "util/grow.h"
#include "model/analysis/comm.h"
#include "model/rowsets/rowset.h"
#include "model/index/strtab.h"
#include "model/index/table.h"

static char *dup_text(sqlite3_stmt *st, int col)
{
    size_t len;
    const char *s = dbu_text(st, col, &len);
    char *r = malloc(len + 1);
    if (r) {
        if (len)
            memcpy(r, s, len);
        r[len] = 0;
    }
    return r;
}

/* One column of an analysis table and where its value goes in a row of the result: a
 * string (malloc'd, "" when NULL), a REAL (NaN when NULL) or the device id (-1 when NULL). */
enum row_value { RV_TEXT, RV_REAL, RV_DEVICE };

struct row_col {
    const char *name;
    enum row_value type;
    size_t offset;
};

/* A column of the table's row struct, ROW (defined before each table). */
#define TEXT(field, name)   { name, RV_TEXT, offsetof(ROW, field) }
#define REAL(field, name)   { name, RV_REAL, offsetof(ROW, field) }

#define ROW struct db_step_trace
static const struct row_col step_cols[] = {
    { "deviceId", RV_DEVICE, offsetof(ROW, device) },
    TEXT(step, "step"),
    REAL(computing, "computing"),
    REAL(communication_not_overlapped, "communication_not_overlapped"),
    REAL(overlapped, "overlapped"),
    REAL(communication, "communication"),
    REAL(free_, "free"),
    REAL(stage, "stage"),
    REAL(bubble, "bubble"),
    REAL(communication_not_overlapped_and_exclude_receive,
         "communication_not_overlapped_and_exclude_receive"),
    REAL(preparing, "preparing"),
};
#undef ROW

#define ROW struct db_comm_time
static const struct row_col time_cols[] = {
    TEXT(op_name, "hccl_op_name"),
    TEXT(group, "group_name"),
    TEXT(step, "step"),
    TEXT(type, "type"),
    REAL(start_us, "start_timestamp"),
    REAL(elapse_ms, "elapse_time"),
    REAL(transit_ms, "transit_time"),
    REAL(wait_ms, "wait_time"),
    REAL(sync_ms, "synchronization_time"),
    REAL(idle_ms, "idle_time"),
};
#undef ROW

#define ROW struct db_comm_bw
static const struct row_col bw_cols[] = {
    TEXT(op_name, "hccl_op_name"),
    TEXT(group, "group_name"),
    TEXT(transport, "transport_type"),
    TEXT(step, "step"),
    TEXT(type, "type"),
    REAL(transit_size_mb, "transit_size"),
    REAL(transit_time_ms, "transit_time"),
    REAL(bandwidth_gbps, "bandwidth"),
    REAL(large_packet_ratio, "large_packet_ratio"),
    REAL(package_size_mb, "package_size"),
    REAL(count, "count"),
    REAL(total_duration_ms, "total_duration"),
};
#undef ROW

#define ROW struct db_comm_matrix
static const struct row_col matrix_cols[] = {
    TEXT(op_name, "hccl_op_name"),
    TEXT(group, "group_name"),
    TEXT(src_rank, "src_rank"),
    TEXT(dst_rank, "dst_rank"),
    TEXT(transport, "transport_type"),
    TEXT(step, "step"),
    TEXT(type, "type"),
    TEXT(full_op_name, "op_name"),
    REAL(transit_size_mb, "transit_size"),
    REAL(transit_time_ms, "transit_time"),
    REAL(bandwidth_gbps, "bandwidth"),
};
#undef ROW

#undef TEXT
#undef REAL

/* One analysis table: its columns (those in `required` must be there) and the size of one
 * row of its result. */
struct row_table {
    const char *table;
    const struct row_col *cols;
    size_t ncols;
    uint32_t required;
    size_t elem;
};

#define ROW_TABLE(name, cols, required, type) { name, cols, sizeof cols / sizeof *cols, required, sizeof(struct type) }

static const struct row_table step_rows = ROW_TABLE("StepTraceTime", step_cols, 0, db_step_trace);
static const struct row_table time_rows = ROW_TABLE("CommAnalyzerTime", time_cols, 1, db_comm_time);
static const struct row_table bw_rows = ROW_TABLE("CommAnalyzerBandwidth", bw_cols, 1, db_comm_bw);
static const struct row_table matrix_rows = ROW_TABLE("CommAnalyzerMatrix", matrix_cols, 1, db_comm_matrix);

#define MAX_ROW_COLS 16
#define NCOLS(cols) (sizeof cols / sizeof *cols)
_Static_assert(NCOLS(step_cols) <= MAX_ROW_COLS && NCOLS(time_cols) <= MAX_ROW_COLS
               && NCOLS(bw_cols) <= MAX_ROW_COLS && NCOLS(matrix_cols) <= MAX_ROW_COLS,
               "every analysis table's column names fit read_rows' array");

static void fill_row(sqlite3_stmt *st, const struct row_table *rt, char *row)
{
    for (size_t i = 0; i < rt->ncols; i++) {
        const struct row_col *c = &rt->cols[i];
        int64_t dev;
        switch (c->type) {
        case RV_TEXT: *(char **)(row + c->offset) = dup_text(st, (int)i); break;
        case RV_REAL: *(double *)(row + c->offset) = dbu_f64(st, (int)i); break;
        case RV_DEVICE: *(int64_t *)(row + c->offset) = dbu_i64(st, (int)i, &dev) ? dev : -1; break;
        }
    }
}

/* Every row of rt's table into *rows (*n of them); a row that cannot be read is said. */
static void read_rows(sqlite3 *db, const char *path, struct diag *d, const struct row_table *rt, void **rows,
                      size_t *n)
{
    const char *names[MAX_ROW_COLS];
    for (size_t i = 0; i < rt->ncols; i++)
        names[i] = rt->cols[i].name;
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, rt->table, names, (int)rt->ncols, rt->required, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        void *r = grow_push(rows, n, &cap, rt->elem);
        if (!r)
            break;
        fill_row(st, rt, r);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(d, DIAG_ERROR, path, "table %s, row %zu: %s", rt->table, *n + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

/* The strings of rows[0..n) of rt's table, then the rows. */
static void free_rows(const struct row_table *rt, void *rows, size_t n)
{
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < rt->ncols; i++)
            if (rt->cols[i].type == RV_TEXT)
                free(*(char **)((char *)rows + r * rt->elem + rt->cols[i].offset));
    free(rows);
}

void db_analysis_free(struct db_analysis *a)
{
    if (!a)
        return;
    free_rows(&step_rows, a->steps, a->nsteps);
    free_rows(&time_rows, a->times, a->ntimes);
    free_rows(&bw_rows, a->bws, a->nbws);
    free_rows(&matrix_rows, a->mats, a->nmats);
    free(a->path);
    free(a);
}

struct db_analysis *db_analysis_read(const char *path, struct diag *d)
{
    if (!db_is_sqlite(path)) {
        diag_add(d, DIAG_ERROR, path, "byte 0: not an SQLite database (no \"SQLite format 3\" header)");
        return NULL;
    }
    sqlite3 *db = dbu_open(path, d);
    if (!db)
        return NULL;
    int ntables = dbu_table_count(db, path, d);
    struct db_analysis *a = ntables < 0 ? NULL : calloc(1, sizeof *a);
    if (a) {
        a->path = strdup(path);
        read_rows(db, path, d, &step_rows, (void **)&a->steps, &a->nsteps);
        read_rows(db, path, d, &time_rows, (void **)&a->times, &a->ntimes);
        read_rows(db, path, d, &bw_rows, (void **)&a->bws, &a->nbws);
        read_rows(db, path, d, &matrix_rows, (void **)&a->mats, &a->nmats);
        if (!a->nsteps && !a->ntimes && !a->nbws && !a->nmats) {
            diag_add(d, DIAG_ERROR, path, "no StepTraceTime or CommAnalyzer* rows (%d table%s): nothing to load",
                     ntables, ntables == 1 ? "" : "s");
            db_analysis_free(a);
            a = NULL;
        }
    }
    sqlite3_close(db);
    return a;
}

/* --- analysis.db ------------------------------------------------------------------------- */

static uint32_t db_intern(struct comm *c, const char *s)
{
    uint32_t id = strtab_intern_cstr(c->str, s ? s : "");
    if (id == UINT32_MAX) {
        c->oom = true;
        return 0;
    }
    return id;
}

/* A row's step as an op and a link keep it: the key interned, and the number in it. */
static void db_step(struct comm *c, const char *step, uint32_t *key, int64_t *no)
{
    *key = db_intern(c, step);
    *no = comm_step_number(step ? step : "");
}

/* "name@group" (just name when the group is empty). */
static uint32_t db_key(struct comm *c, const char *name, const char *group)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s%s", name ? name : "", group && *group ? "@" : "", group && *group ? group : "");
    return db_intern(c, buf);
}

static enum comm_kind db_kind(const char *type)
{
    return type && !strcasecmp(type, "p2p") ? COMM_P2P : COMM_COLLECTIVE;
}

/* A DB REAL: the double and its shortest exact text (what the DB holds, digit for digit). */
static void db_set(struct comm *c, double v, double *dst, uint32_t *texts, unsigned bit, unsigned *has)
{
    if (isfinite(v)) {
        char buf[40];
        *dst = v;
        texts[comm_bit_index(bit)] = db_intern(c, rowset_shortest(v, buf, sizeof buf));
        *has |= bit;
    }
}

static void db_add_bandwidth(struct comm *c, const struct db_analysis *a, struct comm_op *op,
                             const struct db_comm_time *t)
{
    for (int ct = 0; ct < CT_COUNT; ct++) {
        struct comm_bw *bw = &op->bw[ct];
        char dist[4096];
        size_t dl = 0;
        int nbuckets = 0;
        for (size_t i = 0; i < a->nbws; i++) {
            const struct db_comm_bw *b = &a->bws[i];
            if (!b->transport || comm_transport_from_name(b->transport) != (enum comm_transport)ct
                || strcmp(b->op_name ? b->op_name : "", t->op_name ? t->op_name : "")
                || strcmp(b->group ? b->group : "", t->group ? t->group : "")
                || strcmp(b->step ? b->step : "", t->step ? t->step : ""))
                continue;
            unsigned has = bw->has;
            if (!(has & CB_PRESENT)) {
                has |= CB_PRESENT;
                db_set(c, b->transit_size_mb, &bw->size_mb, bw->text, CB_SIZE, &has);
                db_set(c, b->transit_time_ms, &bw->time_ms, bw->text, CB_TIME, &has);
                db_set(c, b->bandwidth_gbps, &bw->gbps, bw->text, CB_GBPS, &has);
                db_set(c, b->large_packet_ratio, &bw->large_ratio, bw->text, CB_LARGE, &has);
            }
            bw->has = (uint8_t)has;
            /* a row per package size; a zero count is the transport's summary row */
            if (isfinite(b->count) && b->count > 0 && isfinite(b->package_size_mb) && dl + 80 < sizeof dist) {
                bw->packets += b->count < 1e18 ? (uint64_t)b->count : 0;
                char t1[40], t2[40], t3[40];
                int w = snprintf(dist + dl, sizeof dist - dl, "%s\"%s\":[%s,%s]", nbuckets ? "," : "{",
                                 rowset_shortest(b->package_size_mb, t1, sizeof t1),
                                 rowset_shortest(b->count, t2, sizeof t2),
                                 rowset_shortest(isfinite(b->total_duration_ms) ? b->total_duration_ms : 0.0, t3, sizeof t3));
                if (w > 0 && (size_t)w < sizeof dist - dl) {
                    dl += (size_t)w;
                    nbuckets++;
                }
            }
        }
        if (nbuckets && dl + 2 < sizeof dist) {
            dist[dl++] = '}';
            dist[dl] = 0;
            bw->dist = db_intern(c, dist);
            bw->has |= CB_DIST;
        }
    }
}

int comm_add_db_analysis(const struct db_analysis *a, struct comm **io_comm, struct diag *d)
{
    if (!a)
        return -1;
    bool created = !*io_comm;
    struct comm *c = created ? comm_new() : *io_comm;
    if (!c) {
        diag_out_of_memory(d, a->path ? a->path : "", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < a->ntimes; i++) {
        const struct db_comm_time *t = &a->times[i];
        struct comm_op op = { .kind = db_kind(t->type) };
        db_step(c, t->step, &op.step, &op.step_no);
        op.name = db_key(c, t->op_name, t->group);
        op.total = comm_is_total_key(t->op_name ? t->op_name : "");
        unsigned has = 0;
        db_set(c, t->start_us, &op.start_us, op.text, CF_START, &has);
        db_set(c, t->elapse_ms, &op.elapse_ms, op.text, CF_ELAPSE, &has);
        db_set(c, t->transit_ms, &op.transit_ms, op.text, CF_TRANSIT, &has);
        db_set(c, t->wait_ms, &op.wait_ms, op.text, CF_WAIT, &has);
        db_set(c, t->sync_ms, &op.sync_ms, op.text, CF_SYNC, &has);
        db_set(c, t->idle_ms, &op.idle_ms, op.text, CF_IDLE, &has);
        op.has = (uint16_t)has;
        db_add_bandwidth(c, a, &op, t);
        comm_add_op(c, &op);
    }
    for (size_t i = 0; i < a->nmats; i++) {
        const struct db_comm_matrix *m = &a->mats[i];
        struct comm_link l = { .kind = db_kind(m->type) };
        db_step(c, m->step, &l.step, &l.step_no);
        l.group = db_key(c, m->op_name, m->group);
        char lk[64], *e1, *e2;
        const char *s1 = m->src_rank ? m->src_rank : "", *s2 = m->dst_rank ? m->dst_rank : "";
        long long r1 = strtoll(s1, &e1, 10), r2 = strtoll(s2, &e2, 10);
        if (e1 != s1 && !*e1 && e2 != s2 && !*e2) {
            l.src = r1;
            l.dst = r2;
            l.has |= CL_RANKS;
        }
        snprintf(lk, sizeof lk, "%.24s-%.24s", s1, s2);
        l.link = db_intern(c, lk);
        if (m->transport)
            l.transport = db_intern(c, m->transport);
        if (m->full_op_name && *m->full_op_name)
            l.op_name = db_intern(c, m->full_op_name);
        unsigned has = l.has;
        db_set(c, m->transit_size_mb, &l.size_mb, l.text, CL_SIZE, &has);
        db_set(c, m->transit_time_ms, &l.time_ms, l.text, CL_TIME, &has);
        db_set(c, m->bandwidth_gbps, &l.gbps, l.text, CL_GBPS, &has);
        l.has = (uint8_t)has;
        comm_add_link(c, &l);
    }
    c->sources |= CS_DB;
    if (c->oom)
        diag_out_of_memory(d, a->path ? a->path : "", "out of memory: some communication rows were not kept");
    *io_comm = c;
    return 0;
}

int comm_load_db(const char *path, struct comm **io_comm, struct diag *d)
{
    struct db_analysis *a = db_analysis_read(path, d);
    if (!a)
        return -1;
    int r = -1;
    if (a->ntimes || a->nmats)
        r = comm_add_db_analysis(a, io_comm, d);
    db_analysis_free(a);
    return r;
}

int db_load_analysis(const char *path, struct rank_data *rd, struct diag *d)
{
    struct db_analysis *a = db_analysis_read(path, d);
    if (!a)
        return -1;
    int loaded = 0;
    /* The communication figures go into rd->comm through the same calls as the JSON's. */
    if ((a->ntimes || a->nmats) && comm_add_db_analysis(a, &rd->comm, d) == 0)
        loaded = 1;
    if (a->nsteps && !rd->tables[TK_STEP_TRACE]) {
        /* The CSV's column names, so the same step-trace code reads either (µs). */
        static const char *const heads[] = { "Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
            "Communication", "Free", "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)",
            "Preparing" };
        struct table *t = table_new(TK_STEP_TRACE, path);
        size_t col[11];
        bool devices = false;
        for (size_t i = 0; i < a->nsteps; i++)
            devices |= a->steps[i].device >= 0;
        if (t) {
            col[0] = table_add_col(t, heads[0], TC_TEXT);
            for (int i = 1; i < 10; i++)
                col[i] = table_add_col(t, heads[i], TC_NUM);
            col[10] = devices ? table_add_col(t, "Device_id", TC_NUM) : SIZE_MAX;
            for (size_t i = 0; i < a->nsteps; i++) {
                const struct db_step_trace *s = &a->steps[i];
                size_t r = table_add_row(t);
                if (r == SIZE_MAX)
                    break;
                if (s->step && s->step[0])
                    table_set_text(t, r, col[0], s->step, strlen(s->step));
                const double v[9] = { s->computing, s->communication_not_overlapped, s->overlapped,
                    s->communication, s->free_, s->stage, s->bubble,
                    s->communication_not_overlapped_and_exclude_receive, s->preparing };
                for (int k = 0; k < 9; k++)
                    if (!isnan(v[k]))
                        table_set_num(t, r, col[k + 1], v[k]);
                if (col[10] != SIZE_MAX && s->device >= 0)
                    table_set_num(t, r, col[10], (double)s->device);
            }
            table_finish(t);
            rd->tables[TK_STEP_TRACE] = t;
            loaded = 1;
        }
    }
    db_analysis_free(a);
    return loaded ? 0 : -1;
}
