/* analysis.db: StepTraceTime and the CommAnalyzer* tables (see db_reader.h for units), read
 * into rows, then into a rank's step table and its communication figures. */
#include "io/db_reader.h"
#include "util/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/db_util.h"
#include "model/comm.h"
#include "model/rowset.h"
#include "model/strtab.h"
#include "model/table.h"

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

/* Grows *arr (of elem-size items) to hold n+1; returns the new item (zeroed) or NULL. */
static void *push(void **arr, size_t *n, size_t *cap, size_t elem)
{
    void *p = grow_array(*arr, cap, *n + 1, elem);
    if (!p)
        return NULL;
    *arr = p;
    void *it = (char *)*arr + (*n)++ * elem;
    memset(it, 0, elem);
    return it;
}

static void read_steps(sqlite3 *db, const char *path, struct diag *d, struct db_analysis *a)
{
    static const char *const cols[] = { "deviceId", "step", "computing", "communication_not_overlapped", "overlapped",
        "communication", "free", "stage", "bubble", "communication_not_overlapped_and_exclude_receive", "preparing" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, "StepTraceTime", cols, 11, 0, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_step_trace *r = push((void **)&a->steps, &a->nsteps, &cap, sizeof *r);
        if (!r)
            break;
        int64_t dev;
        r->device = dbu_i64(st, 0, &dev) ? dev : -1;
        r->step = dup_text(st, 1);
        double *f[] = { &r->computing, &r->communication_not_overlapped, &r->overlapped, &r->communication,
                        &r->free_, &r->stage, &r->bubble, &r->communication_not_overlapped_and_exclude_receive,
                        &r->preparing };
        for (int i = 0; i < 9; i++)
            *f[i] = dbu_f64(st, 2 + i);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(d, DIAG_ERROR, path, "table StepTraceTime, row %zu: %s", a->nsteps + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

static void read_times(sqlite3 *db, const char *path, struct diag *d, struct db_analysis *a)
{
    static const char *const cols[] = { "hccl_op_name", "group_name", "step", "type", "start_timestamp",
        "elapse_time", "transit_time", "wait_time", "synchronization_time", "idle_time" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, "CommAnalyzerTime", cols, 10, 1, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_comm_time *r = push((void **)&a->times, &a->ntimes, &cap, sizeof *r);
        if (!r)
            break;
        r->op_name = dup_text(st, 0);
        r->group = dup_text(st, 1);
        r->step = dup_text(st, 2);
        r->type = dup_text(st, 3);
        double *f[] = { &r->start_us, &r->elapse_ms, &r->transit_ms, &r->wait_ms, &r->sync_ms, &r->idle_ms };
        for (int i = 0; i < 6; i++)
            *f[i] = dbu_f64(st, 4 + i);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(d, DIAG_ERROR, path, "table CommAnalyzerTime, row %zu: %s", a->ntimes + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

static void read_bws(sqlite3 *db, const char *path, struct diag *d, struct db_analysis *a)
{
    static const char *const cols[] = { "hccl_op_name", "group_name", "transport_type", "step", "type",
        "transit_size", "transit_time", "bandwidth", "large_packet_ratio", "package_size", "count", "total_duration" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, "CommAnalyzerBandwidth", cols, 12, 1, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_comm_bw *r = push((void **)&a->bws, &a->nbws, &cap, sizeof *r);
        if (!r)
            break;
        r->op_name = dup_text(st, 0);
        r->group = dup_text(st, 1);
        r->transport = dup_text(st, 2);
        r->step = dup_text(st, 3);
        r->type = dup_text(st, 4);
        double *f[] = { &r->transit_size_mb, &r->transit_time_ms, &r->bandwidth_gbps, &r->large_packet_ratio,
                        &r->package_size_mb, &r->count, &r->total_duration_ms };
        for (int i = 0; i < 7; i++)
            *f[i] = dbu_f64(st, 5 + i);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(d, DIAG_ERROR, path, "table CommAnalyzerBandwidth, row %zu: %s", a->nbws + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

static void read_mats(sqlite3 *db, const char *path, struct diag *d, struct db_analysis *a)
{
    static const char *const cols[] = { "hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type",
        "step", "type", "op_name", "transit_size", "transit_time", "bandwidth" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(db, path, d, "CommAnalyzerMatrix", cols, 11, 1, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_comm_matrix *r = push((void **)&a->mats, &a->nmats, &cap, sizeof *r);
        if (!r)
            break;
        char **s[] = { &r->op_name, &r->group, &r->src_rank, &r->dst_rank, &r->transport, &r->step, &r->type,
                       &r->full_op_name };
        for (int i = 0; i < 8; i++)
            *s[i] = dup_text(st, i);
        r->transit_size_mb = dbu_f64(st, 8);
        r->transit_time_ms = dbu_f64(st, 9);
        r->bandwidth_gbps = dbu_f64(st, 10);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(d, DIAG_ERROR, path, "table CommAnalyzerMatrix, row %zu: %s", a->nmats + 1, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

void db_analysis_free(struct db_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nsteps; i++)
        free(a->steps[i].step);
    for (size_t i = 0; i < a->ntimes; i++) {
        free(a->times[i].op_name); free(a->times[i].group); free(a->times[i].step); free(a->times[i].type);
    }
    for (size_t i = 0; i < a->nbws; i++) {
        free(a->bws[i].op_name); free(a->bws[i].group); free(a->bws[i].transport);
        free(a->bws[i].step); free(a->bws[i].type);
    }
    for (size_t i = 0; i < a->nmats; i++) {
        struct db_comm_matrix *m = &a->mats[i];
        free(m->op_name); free(m->group); free(m->src_rank); free(m->dst_rank);
        free(m->transport); free(m->step); free(m->type); free(m->full_op_name);
    }
    free(a->steps);
    free(a->times);
    free(a->bws);
    free(a->mats);
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
        read_steps(db, path, d, a);
        read_times(db, path, d, a);
        read_bws(db, path, d, a);
        read_mats(db, path, d, a);
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
        diag_add(d, DIAG_ERROR, a->path ? a->path : "", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < a->ntimes; i++) {
        const struct db_comm_time *t = &a->times[i];
        struct comm_op op = { .kind = db_kind(t->type) };
        op.step = db_intern(c, t->step);
        op.step_no = comm_step_number(t->step ? t->step : "");
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
        l.step = db_intern(c, m->step);
        l.step_no = comm_step_number(m->step ? m->step : "");
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
        diag_add(d, DIAG_ERROR, a->path ? a->path : "", "out of memory: some communication rows were not kept");
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
