/* Writes a synthetic profiler DB for the DB benchmark: N TASK rows, one COMPUTE_TASK_INFO
 * row per task (joined by globalTaskId) and a STRING_IDS table of a few hundred kernel
 * names, shapes and types, with the column names and keys of a torch_npu DB
 * (COMPUTE_TASK_INFO keyed by globalTaskId, TASK indexed by start time). META_DATA carries
 * GEN_DB_VERSION so the bench can tell a file made by an older generator.
 *
 * usage: gen_db FILE [ROWS]   (default 5,000,000 rows; writes FILE.tmp then renames) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define GEN_DB_VERSION "2"

static int exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "gen_db: %s\n", err ? err : "error");
        sqlite3_free(err);
        return -1;
    }
    return 0;
}

int gen_db(const char *path, long rows)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    remove(tmp);
    sqlite3 *db = NULL;
    if (sqlite3_open(tmp, &db) != SQLITE_OK)
        return -1;
    if (exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"
                 "CREATE TABLE META_DATA(name TEXT, value TEXT);"
                 "INSERT INTO META_DATA VALUES('SCHEMA_VERSION','1.0.0');"
                 "INSERT INTO META_DATA VALUES('GEN_DB_VERSION','" GEN_DB_VERSION "');"
                 "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,"
                 " globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER,"
                 " taskId INTEGER, modelId INTEGER, depth INTEGER);"
                 "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER,"
                 " mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER,"
                 " inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER,"
                 " outputShapes INTEGER, attrInfo INTEGER, waitNs INTEGER);") < 0)
        return -1;
    /* ids: 0..3 task types, 10..13 core types, 20 format, 21 dtype, 100.. names, 1000.. shapes */
    enum { NNAMES = 400, NSHAPES = 200 };
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "INSERT INTO STRING_IDS VALUES(?1, ?2)", -1, &st, NULL);
    static const char *const tt[] = { "KERNEL_AICORE", "KERNEL_AIVEC", "MIX_AIC", "Notify Wait" };
    static const char *const ct[] = { "AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV" };
    char buf[128];
    for (int i = 0; i < 4; i++) {
        sqlite3_bind_int(st, 1, i); sqlite3_bind_text(st, 2, tt[i], -1, SQLITE_STATIC); sqlite3_step(st); sqlite3_reset(st);
        sqlite3_bind_int(st, 1, 10 + i); sqlite3_bind_text(st, 2, ct[i], -1, SQLITE_STATIC); sqlite3_step(st); sqlite3_reset(st);
    }
    sqlite3_bind_int(st, 1, 20); sqlite3_bind_text(st, 2, "ND;ND", -1, SQLITE_STATIC); sqlite3_step(st); sqlite3_reset(st);
    sqlite3_bind_int(st, 1, 21); sqlite3_bind_text(st, 2, "BF16;BF16", -1, SQLITE_STATIC); sqlite3_step(st); sqlite3_reset(st);
    for (int i = 0; i < NNAMES; i++) {
        snprintf(buf, sizeof buf, "aclnnKernel_%d_Op%d", i, i % 37);
        sqlite3_bind_int(st, 1, 100 + i); sqlite3_bind_text(st, 2, buf, -1, SQLITE_TRANSIENT); sqlite3_step(st); sqlite3_reset(st);
    }
    for (int i = 0; i < NSHAPES; i++) {
        snprintf(buf, sizeof buf, "\"%d,4096;4096,%d\"", i + 1, 128 * (i % 9 + 1));
        sqlite3_bind_int(st, 1, 1000 + i); sqlite3_bind_text(st, 2, buf, -1, SQLITE_TRANSIENT); sqlite3_step(st); sqlite3_reset(st);
    }
    sqlite3_finalize(st);

    sqlite3_stmt *tk = NULL, *ci = NULL;
    sqlite3_prepare_v2(db, "INSERT INTO TASK VALUES(?1,?2,0,?3,?4,4242,?5,4294967295,?6,?7,4294967295,0)", -1, &tk, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO COMPUTE_TASK_INFO VALUES(?1,?2,?3,0,?4,?5,20,21,?6,20,21,?7,0,?8)", -1, &ci, NULL);
    long long t = 1736410576000000000LL;
    unsigned long long rng = 88172645463325252ULL;
    for (long i = 0; i < rows; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        int name = (int)(rng % NNAMES), type = (int)((rng >> 20) % 3), shape = (int)((rng >> 32) % NSHAPES);
        long long dur = 1000 + (long long)((rng >> 40) % 50000);
        t += 200 + (long long)((rng >> 8) % 3000);
        sqlite3_bind_int64(tk, 1, t); sqlite3_bind_int64(tk, 2, t + dur); sqlite3_bind_int64(tk, 3, i);
        sqlite3_bind_int64(tk, 4, i); sqlite3_bind_int(tk, 5, type); sqlite3_bind_int(tk, 6, 2 + (int)(i % 4));
        sqlite3_bind_int64(tk, 7, i & 0xffff);
        sqlite3_step(tk); sqlite3_reset(tk);
        sqlite3_bind_int(ci, 1, 100 + name); sqlite3_bind_int64(ci, 2, i); sqlite3_bind_int(ci, 3, 8 + (int)(rng % 40));
        sqlite3_bind_int(ci, 4, 10 + type); sqlite3_bind_int(ci, 5, 100 + name % 37); sqlite3_bind_int(ci, 6, 1000 + shape);
        sqlite3_bind_int(ci, 7, 1000 + (shape + 1) % NSHAPES); sqlite3_bind_int64(ci, 8, (long long)(rng % 5000));
        sqlite3_step(ci); sqlite3_reset(ci);
    }
    sqlite3_finalize(tk);
    sqlite3_finalize(ci);
    int rc = exec(db, "CREATE INDEX TaskIndex ON TASK(startNs, globalTaskId); COMMIT;");
    sqlite3_close(db);
    if (rc < 0 || rename(tmp, path) != 0)
        return -1;
    return 0;
}

#ifndef GEN_DB_NO_MAIN
int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_db FILE [ROWS]\n");
        return 2;
    }
    return gen_db(argv[1], argc > 2 ? atol(argv[2]) : 5000000) ? 1 : 0;
}
#endif
