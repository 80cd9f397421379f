#include "io/db/db_counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/db/db_util.h"
#include "model/index/counter_unit.h"
#include "util/grow.h"

/* One family being read: its table, process name, and whether its rows span devices. */
struct fam {
    const struct dbc_ctx *x;
    const char *table, *pname;
    int64_t sort;
    bool multi;          /* several deviceIds: one process per device */
    int64_t last_dev;
    uint32_t last_proc;
    uint32_t have;       /* bit i: column i of the family's selection is there */
    void *arg;           /* what the family's rows need besides (fam_spec.row) */
    uint64_t added, bad;
    bool stop;
};

static int64_t sql_count(sqlite3 *db, const char *q)
{
    sqlite3_stmt *st = NULL;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void fam_init(struct fam *f, const struct dbc_ctx *x, const char *table, const char *pname, int64_t sort,
                     bool has_device)
{
    memset(f, 0, sizeof *f);
    f->x = x;
    f->table = table;
    f->pname = pname;
    f->sort = sort;
    f->last_proc = UINT32_MAX;
    if (has_device) {
        char q[128];
        snprintf(q, sizeof q, "SELECT count(DISTINCT deviceId) FROM \"%s\"", table);
        f->multi = sql_count(x->db, q) > 1;
    }
}

static uint32_t fam_proc(struct fam *f, int64_t dev)
{
    if (f->last_proc != UINT32_MAX && (!f->multi || dev == f->last_dev))
        return f->last_proc;
    char key[96], name[96];
    snprintf(key, sizeof key, "%s#%lld", f->table, (long long)(f->multi ? dev : 0));
    if (f->multi)
        snprintf(name, sizeof name, "%s (device %lld)", f->pname, (long long)dev);
    else
        snprintf(name, sizeof name, "%s", f->pname);
    uint32_t p = model_proc(f->x->m, key, strlen(key));
    if (p != UINT32_MAX) {
        model_set_process_name(f->x->m, p, name, strlen(name));
        model_set_process_sort(f->x->m, p, f->sort + (f->multi ? dev : 0));
        model_set_process_labels(f->x->m, p, "NPU", 3);
    }
    f->last_dev = dev;
    f->last_proc = p;
    return p;
}

static void fam_add(struct fam *f, int64_t dev, const char *series, int64_t ts, double v)
{
    if (isnan(v))
        return;
    uint32_t p = fam_proc(f, dev);
    if (p == UINT32_MAX)
        return;
    model_count_event(f->x->m, 'C');
    char unit[64];
    model_add_counter(f->x->m, p, series, strlen(series), counter_unit_of(series, strlen(series), unit, sizeof unit),
                      ts, v);
    f->added++;
}

/* Steps st; false at the end (errors reported, statement finalized). */
static bool fam_step(struct fam *f, sqlite3_stmt *st, uint64_t *row)
{
    if (f->stop || (f->x->tick && !f->x->tick(f->x->arg))) {
        f->stop = true;
        sqlite3_finalize(st);
        return false;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        (*row)++;
        return true;
    }
    if (rc != SQLITE_DONE)
        diag_add(f->x->d, DIAG_ERROR, f->x->path, "table %s, row %llu: %s; rows before it are kept", f->table,
                 (unsigned long long)*row + 1, sqlite3_errmsg(f->x->db));
    sqlite3_finalize(st);
    if (f->bad)
        diag_add(f->x->d, DIAG_WARN, f->x->path, "table %s: %llu row(s) without a readable timestampNs skipped",
                 f->table, (unsigned long long)f->bad);
    return false;
}

static const char *str_of(const struct fam *f, sqlite3_stmt *st, int col, char *buf, size_t size)
{
    int64_t id;
    size_t len;
    if (dbu_i64(st, col, &id)) {
        const char *s = f->x->string ? f->x->string(f->x->arg, id) : NULL;
        if (s)
            return s;
        snprintf(buf, size, "%lld", (long long)id);
        return buf;
    }
    const char *s = dbu_text(st, col, &len);   /* some exports store the text itself */
    snprintf(buf, size, "%.*s", s ? (int)(len > 60 ? 60 : len) : 0, s ? s : "");
    return buf;
}

/* The type name in column col ("read" → "Read": the text export's capitalisation of the
 * DB's lower-case names), absent when the table has no such column. */
static void type_name(const struct fam *f, sqlite3_stmt *st, int col, const char *absent, char *out, size_t size)
{
    char tb[64];
    snprintf(out, size, "%s", (f->have & (1u << col)) ? str_of(f, st, col, tb, sizeof tb) : absent);
    if (out[0] >= 'a' && out[0] <= 'z')
        out[0] = (char)(out[0] - 'a' + 'A');
}

/* A family read row by row: the columns it selects (those with their bit in required must be
 * there), which of them hold the device (-1: none) and the time, and what one row with a
 * readable time adds. */
struct fam_spec {
    const char *table, *pname;
    int64_t sort;
    const char *const *cols;
    int ncols;
    uint32_t required;
    int dev_col, ts_col;
    void (*row)(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts);
};

/* Reads the family's rows into counter samples; rows without a readable time are counted
 * (fam_step says how many). */
static void fam_read(const struct dbc_ctx *x, const struct fam_spec *sp, void *arg, uint64_t *total)
{
    struct fam f;
    fam_init(&f, x, sp->table, sp->pname, sp->sort, sp->dev_col >= 0);
    f.arg = arg;
    sqlite3_stmt *st = dbu_select(x->db, x->path, x->d, sp->table, sp->cols, sp->ncols, sp->required, &f.have);
    uint64_t row = 0;
    while (st && fam_step(&f, st, &row)) {
        int64_t dev = 0, ts;
        if (sp->dev_col >= 0)
            dbu_i64(st, sp->dev_col, &dev);
        if (!dbu_i64(st, sp->ts_col, &ts)) {
            f.bad++;
            continue;
        }
        sp->row(&f, st, dev, ts);
    }
    *total += f.added;
}

static void freq_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    fam_add(f, dev, "AI Core Freq (MHz)", ts, dbu_f64(st, 2));
}

static const char *const freq_cols[] = { "deviceId", "timestampNs", "freq" };
static const struct fam_spec freq_family = { "AICORE_FREQ", "AI Core Freq", 14, freq_cols, 3, 0x6, 0, 1, freq_row };

static void npu_mem_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    int64_t ddr, hbm;
    char type[64], series[128];
    type_name(f, st, 0, "", type, sizeof type);
    if (!strcasecmp(type, "app"))
        snprintf(type, sizeof type, "APP");
    bool hd = dbu_i64(st, 1, &ddr), hh = dbu_i64(st, 2, &hbm);
    if (hd) {
        snprintf(series, sizeof series, "%s/DDR (KB)", type);
        fam_add(f, dev, series, ts, (double)ddr / 1024.0);
    }
    if (hh) {
        snprintf(series, sizeof series, "%s/HBM (KB)", type);
        fam_add(f, dev, series, ts, (double)hbm / 1024.0);
    }
    if (hd && hh && !__builtin_add_overflow(ddr, hbm, &ddr)) {
        snprintf(series, sizeof series, "%s/Memory (KB)", type);
        fam_add(f, dev, series, ts, (double)ddr / 1024.0);
    }
}

static const char *const npu_mem_cols[] = { "type", "ddr", "hbm", "timestampNs", "deviceId" };
static const struct fam_spec npu_mem_family = { "NPU_MEM", "NPU MEM", 16, npu_mem_cols, 5, 0x8, 4, 3, npu_mem_row };

/* ENUM_MODULE id → name, for NPU_MODULE_MEM, and the modules that ever reserved memory. */
struct modules { int64_t *id; char **name; size_t n, id_cap, name_cap; int64_t *used; size_t nused, used_cap; };

static void modules_read(const struct dbc_ctx *x, struct modules *mo)
{
    static const char *const cols[] = { "id", "name" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(x->db, x->path, x->d, "ENUM_MODULE", cols, 2, 3, &have);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id;
        size_t len;
        const char *s = dbu_text(st, 1, &len);
        if (!dbu_i64(st, 0, &id) || !s)
            continue;
        int64_t *a = grow_array(mo->id, &mo->id_cap, mo->n + 1, sizeof *a);
        if (a)
            mo->id = a;
        char **b = a ? grow_array(mo->name, &mo->name_cap, mo->n + 1, sizeof *b) : NULL;
        if (b)
            mo->name = b;
        char *nm = b ? strndup(s, len) : NULL;
        if (!nm)
            break;
        mo->id[mo->n] = id;
        mo->name[mo->n++] = nm;
    }
    sqlite3_finalize(st);
    /* the modules that ever reserved memory: the others would be lanes of zeros */
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(x->db, "SELECT DISTINCT moduleId FROM NPU_MODULE_MEM WHERE totalReserved != 0", -1, &q,
                           NULL) == SQLITE_OK)
        while (sqlite3_step(q) == SQLITE_ROW) {
            int64_t *u = grow_array(mo->used, &mo->used_cap, mo->nused + 1, sizeof *u);
            if (!u)
                break;
            mo->used = u;
            mo->used[mo->nused++] = sqlite3_column_int64(q, 0);
        }
    sqlite3_finalize(q);
}

static void module_mem_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    const struct modules *mo = f->arg;
    int64_t mod, bytes;
    if (!dbu_i64(st, 0, &mod) || !dbu_i64(st, 2, &bytes))
        return;
    bool used = false;
    for (size_t i = 0; i < mo->nused && !used; i++)
        used = mo->used[i] == mod;
    if (!used)
        return;
    const char *nm = NULL;
    for (size_t i = 0; i < mo->n && !nm; i++)
        if (mo->id[i] == mod)
            nm = mo->name[i];
    char series[128];
    if (nm)
        snprintf(series, sizeof series, "%.60s reserved (KB)", nm);
    else
        snprintf(series, sizeof series, "module %lld reserved (KB)", (long long)mod);
    fam_add(f, dev, series, ts, (double)bytes / 1024.0);
}

static const char *const module_mem_cols[] = { "moduleId", "timestampNs", "totalReserved", "deviceId" };
static const struct fam_spec module_mem_family = { "NPU_MODULE_MEM", "NPU Module Mem", 17, module_mem_cols, 4, 0x7,
                                                   3, 1, module_mem_row };

static void read_module_mem(const struct dbc_ctx *x, uint64_t *total)
{
    if (!dbu_has_table(x->db, "NPU_MODULE_MEM"))
        return;
    struct modules mo = { 0 };
    modules_read(x, &mo);
    int64_t modules = sql_count(x->db, "SELECT count(DISTINCT moduleId) FROM NPU_MODULE_MEM");
    fam_read(x, &module_mem_family, &mo, total);
    if (modules > (int64_t)mo.nused)
        diag_add(x->d, DIAG_INFO, x->path, "NPU_MODULE_MEM: %lld of %lld modules never reserved memory: no lane for "
                 "them", (long long)(modules - (int64_t)mo.nused), (long long)modules);
    free(mo.used);
    for (size_t i = 0; i < mo.n; i++)
        free(mo.name[i]);
    free(mo.name);
    free(mo.id);
}

static void hbm_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    int64_t id = 0;
    dbu_i64(st, 3, &id);
    char type[64], series[128];
    type_name(f, st, 4, "bandwidth", type, sizeof type);
    snprintf(series, sizeof series, "HBM %lld/%s (B/s)", (long long)id, type);
    fam_add(f, dev, series, ts, dbu_f64(st, 2));
}

static const char *const hbm_cols[] = { "deviceId", "timestampNs", "bandwidth", "hbmId", "type" };
static const struct fam_spec hbm_family = { "HBM", "HBM", 18, hbm_cols, 5, 0x6, 0, 1, hbm_row };

static void ddr_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    fam_add(f, dev, "DDR/Read (B/s)", ts, dbu_f64(st, 2));
    fam_add(f, dev, "DDR/Write (B/s)", ts, dbu_f64(st, 3));
}

static const char *const ddr_cols[] = { "deviceId", "timestampNs", "read", "write" };
static const struct fam_spec ddr_family = { "DDR", "DDR", 19, ddr_cols, 4, 0x2, 0, 1, ddr_row };

static void llc_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    int64_t id = 0;
    dbu_i64(st, 1, &id);
    char mode[64], series[128];
    type_name(f, st, 5, "", mode, sizeof mode);
    snprintf(series, sizeof series, "LLC %lld%s%s/Hit Rate (%%)", (long long)id, mode[0] ? " " : "", mode);
    fam_add(f, dev, series, ts, dbu_f64(st, 3));
    snprintf(series, sizeof series, "LLC %lld%s%s/Throughput (B/s)", (long long)id, mode[0] ? " " : "", mode);
    fam_add(f, dev, series, ts, dbu_f64(st, 4));
}

static const char *const llc_cols[] = { "deviceId", "llcId", "timestampNs", "hitRate", "throughput", "mode" };
static const struct fam_spec llc_family = { "LLC", "LLC", 20, llc_cols, 6, 0x4, 0, 2, llc_row };

static void acc_pmu_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    static const char *const names[] = { "read_bandwidth", "write_bandwidth", "read_ost", "write_ost" };
    int64_t id = 0;
    dbu_i64(st, 0, &id);
    for (int k = 0; k < 4; k++) {
        char series[96];
        snprintf(series, sizeof series, "Acc %lld/%s", (long long)id, names[k]);
        fam_add(f, dev, series, ts, dbu_f64(st, 1 + k));
    }
}

static const char *const acc_pmu_cols[] = { "accId", "readBwLevel", "writeBwLevel", "readOstLevel", "writeOstLevel",
                                            "timestampNs", "deviceId" };
static const struct fam_spec acc_pmu_family = { "ACC_PMU", "Acc PMU", 21, acc_pmu_cols, 7, 0x20, 6, 5, acc_pmu_row };

static void soc_bw_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    fam_add(f, dev, "L2 Buffer Bw Level", ts, dbu_f64(st, 0));
    fam_add(f, dev, "Mata Bw Level", ts, dbu_f64(st, 1));
}

static const char *const soc_bw_cols[] = { "l2BufferBwLevel", "mataBwLevel", "timestampNs", "deviceId" };
static const struct fam_spec soc_bw_family = { "SOC_BANDWIDTH_LEVEL", "Stars Soc Info", 22, soc_bw_cols, 4, 0x4, 3, 2,
                                               soc_bw_row };

/* A generic family's figure columns (every numeric one but the ids and the time), and
 * whether its rows name a port (funcId). */
struct generic { char **vals; int nv; bool has_func; };

static void generic_row(struct fam *f, sqlite3_stmt *st, int64_t dev, int64_t ts)
{
    const struct generic *g = f->arg;
    int64_t func = 0;
    bool port = g->has_func && dbu_i64(st, 2, &func);
    for (int i = 0; i < g->nv; i++) {
        char series[160];
        bool rate = strcasestr(g->vals[i], "throughput") || strcasestr(g->vals[i], "bandwidth");
        if (port)
            snprintf(series, sizeof series, "Port %lld/%s%s", (long long)func, g->vals[i], rate ? " (B/s)" : "");
        else
            snprintf(series, sizeof series, "%s%s", g->vals[i], rate ? " (B/s)" : "");
        fam_add(f, dev, series, ts, dbu_f64(st, 3 + i));
    }
}

/* A family read by its columns: every numeric column but the ids and the time, per funcId. */
static void read_generic(const struct dbc_ctx *x, const char *table, int64_t sort, uint64_t *total)
{
    if (!dbu_has_table(x->db, table))
        return;
    char q[128];
    snprintf(q, sizeof q, "PRAGMA table_info(\"%s\")", table);
    sqlite3_stmt *info = NULL;
    if (sqlite3_prepare_v2(x->db, q, -1, &info, NULL) != SQLITE_OK)
        return;
    enum { MAXC = 24 };
    char *vals[MAXC];
    int nv = 0;
    bool has_ts = false, has_dev = false, has_func = false, oom = false;
    while (sqlite3_step(info) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(info, 1), *ty = (const char *)sqlite3_column_text(info, 2);
        if (!nm)
            continue;
        size_t l = strlen(nm);
        has_ts |= !strcmp(nm, "timestampNs");
        has_dev |= !strcmp(nm, "deviceId");
        has_func |= !strcmp(nm, "funcId");
        if (!ty || (strcasecmp(ty, "INTEGER") && strcasecmp(ty, "REAL") && strcasecmp(ty, "NUMERIC")) ||
            !strcmp(nm, "timestampNs") || (l >= 2 && !strcasecmp(nm + l - 2, "id")) || nv == MAXC)
            continue;   /* text, the time, and ids (deviceId, funcId, ...): not figures */
        if (!(vals[nv] = strdup(nm)))
            oom = true;
        else
            nv++;
    }
    sqlite3_finalize(info);
    if (!has_ts && nv)
        diag_add(x->d, DIAG_WARN, x->path, "table %s has no timestampNs column: its samples are skipped", table);
    if (has_ts && nv && !oom) {
        const char *cols[MAXC + 3] = { "timestampNs", has_dev ? "deviceId" : "timestampNs",
                                       has_func ? "funcId" : "timestampNs" };
        for (int i = 0; i < nv; i++)
            cols[3 + i] = vals[i];
        struct generic g = { vals, nv, has_func };
        const struct fam_spec sp = { table, table, sort, cols, 3 + nv, 0x1, has_dev ? 1 : -1, 0, generic_row };
        fam_read(x, &sp, &g, total);
    }
    for (int i = 0; i < nv; i++)
        free(vals[i]);
}

uint64_t db_read_counters(const struct dbc_ctx *x)
{
    uint64_t total = 0;
    fam_read(x, &freq_family, NULL, &total);
    fam_read(x, &npu_mem_family, NULL, &total);
    read_module_mem(x, &total);
    fam_read(x, &hbm_family, NULL, &total);
    fam_read(x, &ddr_family, NULL, &total);
    fam_read(x, &llc_family, NULL, &total);
    fam_read(x, &acc_pmu_family, NULL, &total);
    fam_read(x, &soc_bw_family, NULL, &total);
    static const char *const generic[] = { "HCCS", "PCIE", "NIC", "ROCE", "QOS" };
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        read_generic(x, generic[i], 23 + (int64_t)i, &total);
    return total;
}
