/* The kernel table's COMPUTE_TASK_INFO columns, read on their own connection by a helper
 * thread while TASK is read (or inline), then joined with the TASK columns. */
#include "io/db/db_reader.h"
#include "util/grow.h"
#include "io/db/db_reader_internal.h"
#include "util/free_all.h"
#include "util/signals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- device tables ------------------------------------------------------------------- */

/* The kernel table is assembled from two parts: the COMPUTE_TASK_INFO columns (details,
 * read on their own connection: by a helper thread while this thread reads TASK when there
 * are two cores and many rows, else inline) and the TASK columns, which read_task fills by
 * kernel row into arrays of this thread. The helper shares only what stays read-only while
 * it runs: the STRING_IDS maps and a snapshot of the strings they point to. */

static uint64_t parallel_rows = 200000;

void db_set_parallel(uint64_t min_rows)
{
    parallel_rows = min_rows;
}

bool dbr_task_col(enum kcol k)
{
    return k == KC_DEVICE || k == KC_MODEL || k == KC_TASK || k == KC_STREAM || k == KC_START || k == KC_DUR
           || k == KC_CONTEXT;
}

void dbr_details_free(struct details *x)
{
    if (!x)
        return;
    if (x->running)
        pthread_join(x->thread, NULL);
    if (x->own_db)
        sqlite3_close(x->db);
    table_free(x->t);
    FREE_ALL(x->str, x->len, x->to_table, x);
}

/* Table string id of local id lid. */
static uint32_t det_lid(struct details *x, uint32_t lid)
{
    if (lid >= x->nstr)
        return 0;
    if (x->to_table[lid] == UINT32_MAX) {
        uint32_t id = strtab_intern(x->t->str, x->str[lid], x->len[lid]);
        x->to_table[lid] = id == UINT32_MAX ? 0 : id;
    }
    return x->to_table[lid];
}

/* Table string id of a STRING_IDS reference v (an unknown one reads as its number). */
static uint32_t det_ref(struct details *x, int64_t v, bool count)
{
    if (v >= 0 && v < SID_DENSE && x->sid_dense) {
        if (x->sid_dense[v])
            return det_lid(x, x->sid_dense[v] - 1);
    } else {
        uint64_t *p = dbu_map_get(x->sid, (uint64_t)v);
        if (p)
            return det_lid(x, (uint32_t)*p);
    }
    x->unresolved += count;
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    uint32_t id = strtab_intern(x->t->str, buf, (size_t)n);
    return id == UINT32_MAX ? 0 : id;
}

/* The last reference of one column and its table id: neighbouring rows mostly repeat
 * formats, types and shapes. */
struct ref_cache { int64_t ref; uint32_t id; bool valid; };

static uint32_t det_cell(struct details *x, sqlite3_stmt *st, int col, struct ref_cache *rc, bool count)
{
    int64_t v;
    if (!dbu_i64(st, col, &v)) {
        size_t len;
        const char *s = dbu_text(st, col, &len);   /* some tables store the text itself */
        uint32_t id = s ? strtab_intern(x->t->str, s, len) : 0;
        return id == UINT32_MAX ? 0 : id;
    }
    if (rc->valid && rc->ref == v)
        return rc->id;
    uint64_t before = x->unresolved;
    rc->id = det_ref(x, v, count);
    rc->ref = v;
    rc->valid = x->unresolved == before;   /* unknown ones are counted on every use */
    return rc->id;
}

/* The key pass's work for one row with a key: its name and globalTaskId for the join. */
bool dbr_key_add(struct ctx *c, sqlite3_stmt *st, int64_t gtid, size_t *cap)
{
    size_t n = c->cti.n;
    uint32_t *a = grow_array(c->cti_name, cap, n + 1, sizeof *a);
    if (!a)
        return false;
    c->cti_name = a;
    c->cti_name[n] = dbr_sid_local(c, st, 0);
    return dbu_keyidx_add(&c->cti, gtid);
}

void dbr_details_read(struct details *x)
{
    static const char *const cols[] = {
        "name", "globalTaskId", "blockDim|block_dim", "mixBlockDim|mix_block_dim", "taskType", "opType",
        "inputFormats", "inputDataTypes", "inputShapes", "outputFormats", "outputDataTypes", "outputShapes", "waitNs" };
    /* text cells by select column; KC_COUNT: not a text column */
    static const enum kcol text_cols[] = { KC_NAME, KC_COUNT, KC_COUNT, KC_COUNT, KC_CORE, KC_TYPE, KC_IN_FORMATS,
                                           KC_IN_TYPES, KC_IN_SHAPES, KC_OUT_FORMATS, KC_OUT_TYPES, KC_OUT_SHAPES };
    x->failed = true;
    x->t = table_new(TK_KERNELS, x->path);
    if (!x->t)
        return;
    x->t->no_lines = true;
    for (int k = 0; k < KC_COUNT; k++) {
        x->kc[k] = SIZE_MAX;
        if (!dbr_task_col((enum kcol)k) && (x->kc[k] = table_add_col(x->t, kcols[k].header, kcols[k].type)) == SIZE_MAX)
            return;
    }
    /* max(rowid) is cheap and usually the row count (globalTaskId is the key); rows past
     * it still grow the table, and a reserve that is never filled is never touched */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(x->db, "SELECT max(rowid) FROM COMPUTE_TASK_INFO", -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        int64_t n = sqlite3_column_int64(st, 0);
        if (n > 0 && n < (1 << 27))
            table_reserve(x->t, (size_t)n + 1);
    }
    sqlite3_finalize(st);
    uint32_t have;
    st = dbu_select(x->db, x->path, x->d, "COMPUTE_TASK_INFO", cols, 13, 0x3, &have);
    if (!st)
        return;
    struct ref_cache cache[12] = { { 0 } };
    struct table *t = x->t;
    uint32_t *text[12] = { 0 };
    int rc = SQLITE_DONE;
    uint64_t row = 0;
    size_t kcap = 0;
    bool stop = false;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t gtid, w;
        row++;
        if (x->keys) {
            dbr_tick(x->keys);
            stop = x->keys->cancelled;
        } else if ((row & 4095) == 0 && progress_cancelled(x->p)) {
            stop = true;
        }
        if (!dbu_i64(st, 1, &gtid))
            continue;   /* the same rows as the key pass skips */
        if (x->keys && !dbr_key_add(x->keys, st, gtid, &kcap))
            break;
        size_t n = t->nrows, cap = t->cap;
        if (table_add_row(t) != n)
            break;
        if (n == 0 || t->cap != cap)   /* the first row, or one that moved the arrays */
            for (int i = 0; i < 12; i++)
                if (text_cols[i] != KC_COUNT)
                    text[i] = t->cols[x->kc[text_cols[i]]].text;
        for (int i = 0; i < 12; i++)
            if (text_cols[i] != KC_COUNT)
                text[i][n] = (have & (1u << i)) ? det_cell(x, st, i, &cache[i], i != 0) : 0;
        t->cols[x->kc[KC_BLOCK]].num[n] = dbu_f64(st, 2);
        t->cols[x->kc[KC_MIXBLOCK]].num[n] = dbu_f64(st, 3);
        if (dbu_i64(st, 12, &w))
            t->cols[x->kc[KC_WAIT]].time[n] = w;
    }
    if (x->keys)   /* else the key pass reports an SQLite error: it meets it at the same row */
        dbr_step_end(x->keys, st, rc, "COMPUTE_TASK_INFO", row);
    else
        sqlite3_finalize(st);
    x->failed = stop;
}

static void *details_main(void *arg)
{
    dbr_details_read(arg);
    return NULL;
}

/* Starts reading the details: on a helper thread with its own connection when worth it,
 * else later, inline (details_finish). */
void dbr_details_start(struct ctx *c, uint64_t est_rows)
{
    struct details *x = calloc(1, sizeof *x);
    if (!x)
        return;
    *x = (struct details){ .path = c->path, .d = c->d, .p = c->p, .db = c->db, .sid_dense = c->sid_dense,
                           .sid = &c->sid, .nstr = strtab_count(c->ls) };
    c->det = x;
    x->str = malloc((x->nstr + 1) * sizeof *x->str);
    x->len = malloc((x->nstr + 1) * sizeof *x->len);
    x->to_table = malloc((x->nstr + 1) * sizeof *x->to_table);
    if (!x->str || !x->len || !x->to_table) {
        free(x->str);
        x->str = NULL;   /* details_finish reports it */
        return;
    }
    for (size_t i = 0; i < x->nstr; i++) {
        x->str[i] = strtab_get(c->ls, (uint32_t)i);
        x->len[i] = (uint32_t)strtab_len(c->ls, (uint32_t)i);
        x->to_table[i] = UINT32_MAX;
    }
    if (est_rows < parallel_rows || sysconf(_SC_NPROCESSORS_ONLN) < 2 || !sqlite3_threadsafe())
        return;
    struct diag *quiet = diag_new();   /* a second open that fails is not the user's concern */
    sqlite3 *db = quiet ? dbu_open(c->path, quiet) : NULL;
    diag_free(quiet);
    if (!db)
        return;
    x->db = db;
    x->own_db = true;
    sigset_t old;   /* signals stay with the thread that asked (util/signals.h) */
    signals_block_for_thread(&old);
    x->running = pthread_create(&x->thread, NULL, details_main, x) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!x->running) {
        sqlite3_close(db);
        x->db = c->db;
        x->own_db = false;
    }
}

/* Waits for the details (or reads them now) and puts the kernel table together. */
void dbr_details_finish(struct ctx *c)
{
    struct details *x = c->det;
    if (!x)
        return;
    if (x->running) {
        pthread_join(x->thread, NULL);
        x->running = false;
    } else if (x->str && !x->done) {
        dbr_details_read(x);
    }
    c->unresolved += x->unresolved;
    if (c->cancelled)
        return;
    bool ok = !x->failed && x->t && x->t->nrows == c->nk;
    for (int k = 0; k < KC_COUNT && ok; k++)
        if (dbr_task_col((enum kcol)k) && !c->knum[k] && !c->ktime[k])
            ok = false;
    if (!ok) {
        diag_out_of_memory(c->d, c->path, "COMPUTE_TASK_INFO: out of memory or unreadable while building "
                 "the kernel table: no kernel table");
        return;
    }
    size_t pos[KC_COUNT], order[KC_COUNT];
    for (int k = 0; k < KC_COUNT; k++) {
        pos[k] = x->kc[k];
        if (!dbr_task_col((enum kcol)k))
            continue;
        void *v = kcols[k].type == TC_TIME ? (void *)c->ktime[k] : (void *)c->knum[k];
        c->ktime[k] = NULL;
        c->knum[k] = NULL;
        if ((pos[k] = table_adopt_col(x->t, kcols[k].header, kcols[k].type, v)) == SIZE_MAX) {
            diag_out_of_memory(c->d, c->path, "out of memory building the kernel table");
            return;
        }
    }
    for (int k = 0; k < KC_COUNT; k++)
        order[k] = pos[k];
    if (!table_order_cols(x->t, order))
        diag_add(c->d, DIAG_WARN, c->path, "out of memory ordering the kernel table columns");
    c->kt = x->t;
    x->t = NULL;
}

/* The key pass: COMPUTE_TASK_INFO name and globalTaskId of every row, for the join. */
