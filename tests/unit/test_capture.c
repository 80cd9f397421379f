/* Capture discovery on layouts built in temporary folders, and on the real captures. */
#include "io/discovery/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/index/diag.h"
#include "../runner.h"

static const char TRACE[] = "[{\"ph\":\"X\",\"name\":\"MatMulV2\",\"pid\":1,\"tid\":2,\"ts\":\"1.000\",\"dur\":1}]";
static const char KERNEL_HDR[] = "Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\n"
                                 "0,MatMulV2,MatMulV2,AI_CORE,\"1.0\t\",2.0,0,8\n";
static const char OPSUM_HDR[] = "Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num\n"
                                "0,MatMulV2,MatMulV2,AI_CORE,1.0,2.0,0,8\n";
static const char SQLITE_HEAD[] = "SQLite format 3\0\x10\x00\x01\x01";

/* mkdir -p of the parents of root/rel, then writes len bytes (len < 0: strlen). */
static void put(const char *root, const char *rel, const char *data, long len)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot write %s", p);
        return;
    }
    if (data)
        fwrite(data, 1, len < 0 ? strlen(data) : (size_t)len, f);
    fclose(f);
}

static void mkdirs(const char *root, const char *rel)
{
    char r[4096], p[8200];
    snprintf(r, sizeof r, "%s/.keep", rel);
    put(root, r, NULL, 0);
    snprintf(p, sizeof p, "%s/%s", root, r);
    unlink(p);
}

static char *tmpdir(void)
{
    static char tpl[8][64];
    static int slot;
    slot = (slot + 1) % 8;
    snprintf(tpl[slot], sizeof tpl[slot], "/tmp/aptop_cap_XXXXXX");
    return mkdtemp(tpl[slot]);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)ftw;
    if (flag == FTW_DP)
        chmod(p, 0755);
    if (flag == FTW_DP)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

static void rmtree(const char *root)
{
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct capture_file *find_kind(const struct capture_rank *r, enum file_kind k)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].kind == k)
            return &r->files[i];
    return NULL;
}

static const struct capture_file *find_name(const struct capture_rank *r, const char *name)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const char *b = strrchr(r->files[i].path, '/');
        if (!strcmp(b ? b + 1 : r->files[i].path, name))
            return &r->files[i];
    }
    return NULL;
}

static int diag_has(struct diag *d, enum diag_level lvl, const char *needle)
{
    int n = 0;
    for (size_t i = 0; i < diag_count(d); i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m))
            continue;
        char all[4096];
        snprintf(all, sizeof all, "%s: %s", m.path, m.text);
        n += m.level == lvl && strstr(all, needle) != NULL;
        free(m.path);
        free(m.text);
    }
    return n;
}

static const char *ends(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix) ? s : NULL;
}

/* Discovers path into c with a fresh diag (returned in *dp). */
static int discover(const char *path, struct capture *c, struct diag **dp)
{
    *dp = diag_new();
    return capture_discover(path, c, *dp);
}

TEST(capture_torch_profiler_dir_hostname_form)
{
    char *t = tmpdir();
    put(t, "node1_111_20260119103000123_ascend_pt/profiler_info_1.json", "{\"rank_id\": 1}", -1);
    put(t, "node1_111_20260119103000123_ascend_pt/profiler_metadata.json", "{}", -1);
    put(t, "node1_111_20260119103000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "node1_222_20260119103000456_ascend_pt/profiler_info_0.json", "{\"rank_id\": \"0\"}", -1);
    put(t, "node1_222_20260119103000456_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "node1_222_20260119103000456_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KERNEL_HDR, -1);
    put(t, "node1_222_20260119103000456_ascend_pt/ASCEND_PROFILER_OUTPUT/analyse.done", "", 0);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 2);
    if (c.nranks == 2) {
        CHECK_INT(c.ranks[0].rank, 0);
        CHECK_INT(c.ranks[1].rank, 1);
        CHECK_STR(c.ranks[0].label, "node1_222_20260119103000456_ascend_pt");
        CHECK_INT(c.ranks[0].cls, CLASS_A);
        CHECK_INT(c.ranks[0].nfiles, 3);     /* profiler_info, trace, kernel_details; not analyse.done */
        CHECK(find_kind(&c.ranks[0], FK_KERNEL_DETAILS) != NULL);
        CHECK(find_kind(&c.ranks[0], FK_PROFILER_INFO) != NULL);
        CHECK(find_kind(&c.ranks[1], FK_PROFILER_METADATA) != NULL);
        CHECK(find_kind(&c.ranks[1], FK_TRACE_JSON) != NULL);
        CHECK(c.ranks[0].problem == NULL);
    }
    CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_rank_suffix_and_renamed_dirs)
{
    char *t = tmpdir();
    put(t, "warmup_dp0_pp0_tp0_dcp0_ep0_rank3_20260305161834123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "dp0_pp0_tp1_dcp0_ep0_rank1_20260305161834567_ascend_pt/profiler_info.json", "{\"rank_id\": -1}", -1);
    put(t, "dp0_pp0_tp1_dcp0_ep0_rank1_20260305161834567_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "rank2_ascend_ms/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KERNEL_HDR, -1);
    put(t, "opaque_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 4);
    if (c.nranks == 4) {
        /* the unnamed one takes the lowest free number, the others their names */
        int want[] = { 0, 1, 2, 3 };
        for (int i = 0; i < 4; i++)
            CHECK_INT(c.ranks[i].rank, want[i]);
        CHECK_STR(c.ranks[0].label, "opaque_ascend_pt");
        CHECK(ends(c.ranks[3].dir, "rank3_20260305161834123_ascend_pt") != NULL);
    }
    CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_folder_levels_bounded)
{
    char *t = tmpdir();
    put(t, "a/b/c/d/e/x_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "a/b/c/d/e/f/g/h/i/j/deep_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 1);     /* six levels down is found; the one eleven levels down is beyond */
    if (c.nranks)
        CHECK_STR(c.ranks[0].label, "x_rank0_ascend_pt");
    bool said = false;
    for (size_t i = 0; i < c.nskipped; i++)
        said |= ends(c.skipped[i].path, "a/b/c/d/e/f/g/h/i") && strstr(c.skipped[i].why, "not searched");
    CHECK(said);
    capture_free(&c);
    diag_free(d);
    /* from a/b/c/d the deep one is 7 levels down: found */
    char p[4096];
    snprintf(p, sizeof p, "%s/a/b/c/d/e/f", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks)
        CHECK_INT(c.ranks[0].rank, 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

/* A rank with more files than are listed says so once (not once per file left out), also
 * for a plain folder, whose files are first classified quietly. */
TEST(capture_too_many_files_said_once)
{
    char *t = tmpdir();
    char rel[128];
    for (int i = 0; i < 2048 + 3; i++) {
        snprintf(rel, sizeof rel, "r_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic_%04d.csv", i);
        put(t, rel, "OP Type,Core Type,Count,Total Time(us)\n", -1);
        snprintf(rel, sizeof rel, "plain/op_statistic_%04d.csv", i);
        put(t, rel, "OP Type,Core Type,Count,Total Time(us)\n", -1);
    }
    char p[4096];
    struct capture c;
    struct diag *d;
    snprintf(p, sizeof p, "%s/r_rank0_ascend_pt", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks)
        CHECK_INT(c.ranks[0].nfiles, 2048);
    CHECK_INT(diag_has(d, DIAG_WARN, "more than 2048 files"), 1);
    CHECK_INT(diag_has(d, DIAG_WARN, "3 not listed"), 1);
    capture_free(&c);
    diag_free(d);
    snprintf(p, sizeof p, "%s/plain", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    CHECK_INT(diag_has(d, DIAG_WARN, "more than 2048 files"), 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_symlink_loop_walked_once)
{
    char *t = tmpdir();
    put(t, "runs/r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    char p[4096], q[4096];
    snprintf(p, sizeof p, "%s/runs/loop", t);
    CHECK(symlink("..", p) == 0);
    snprintf(q, sizeof q, "%s/runs/self", t);
    CHECK(symlink(".", q) == 0);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_output_dir_and_lone_trace)
{
    char *t = tmpdir();
    put(t, "only/trace_view.json", TRACE, -1);
    put(t, "out/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KERNEL_HDR, -1);
    put(t, "out/ASCEND_PROFILER_OUTPUT/op_statistic.csv", "OP Type,Core Type,Count,Total Time(us)\nMatMulV2,AI_CORE,1,2\n", -1);
    put(t, "out/profiler_info_5.json", "{\"rank_id\": 5}", -1);
    char p[4096];
    struct capture c;
    struct diag *d;
    snprintf(p, sizeof p, "%s/only", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].nfiles, 1);
        CHECK_INT(c.ranks[0].files[0].kind, FK_TRACE_JSON);
        CHECK_INT(c.ranks[0].rank, 0);
    }
    capture_free(&c);
    diag_free(d);
    snprintf(p, sizeof p, "%s/out/ASCEND_PROFILER_OUTPUT", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].rank, 5);
        CHECK(find_kind(&c.ranks[0], FK_OP_STATISTIC) != NULL);
        CHECK(find_kind(&c.ranks[0], FK_KERNEL_DETAILS) != NULL);
    }
    capture_free(&c);
    diag_free(d);
    /* a single file inside ASCEND_PROFILER_OUTPUT takes the rank of the directory above */
    snprintf(p, sizeof p, "%s/out/ASCEND_PROFILER_OUTPUT/kernel_details.csv", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].rank, 5);
        CHECK_INT(c.ranks[0].nfiles, 1);
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_prof_exported_text_and_db)
{
    char *t = tmpdir();
    const char *P = "PROF_000001_20230628101435646_FKFLNPEPPRRCFCBA";
    char rel[512];
    snprintf(rel, sizeof rel, "%s/mindstudio_profiler_output/msprof_20230628101500.json", P);
    put(t, rel, TRACE, -1);
    snprintf(rel, sizeof rel, "%s/mindstudio_profiler_output/op_summary_20230628101500.csv", P);
    put(t, rel, OPSUM_HDR, -1);
    snprintf(rel, sizeof rel, "%s/mindstudio_profiler_output/README.txt", P);
    put(t, rel, "text", -1);
    snprintf(rel, sizeof rel, "%s/msprof_20230628101500.db", P);
    put(t, rel, SQLITE_HEAD, sizeof SQLITE_HEAD - 1);
    snprintf(rel, sizeof rel, "%s/analyze/communication.json", P);
    put(t, rel, "{\"step\": {\"collective\": {}, \"p2p\": {}}}", -1);
    snprintf(rel, sizeof rel, "%s/device_3/data", P);
    mkdirs(t, rel);
    snprintf(rel, sizeof rel, "%s/host/data", P);
    mkdirs(t, rel);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        const struct capture_rank *r = &c.ranks[0];
        CHECK_INT(r->cls, CLASS_B);
        CHECK_INT(r->device, 3);
        CHECK_INT(r->nfiles, 4);    /* README.txt is not listed */
        CHECK(find_kind(r, FK_TRACE_JSON) != NULL);
        CHECK(find_kind(r, FK_OP_SUMMARY) != NULL);
        CHECK(find_kind(r, FK_DB_MSPROF) != NULL);
        CHECK(find_kind(r, FK_COMMUNICATION) != NULL);
        CHECK_STR(r->label, P);
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_prof_legacy_per_device)
{
    char *t = tmpdir();
    put(t, "PROF_1_2_X/device_0/timeline/msprof_1.json", TRACE, -1);
    put(t, "PROF_1_2_X/device_0/summary/op_summary_0_1.csv", OPSUM_HDR, -1);
    put(t, "PROF_1_2_X/device_1/timeline/msprof_1.json", TRACE, -1);
    put(t, "PROF_1_2_X/host/info.json", "{}", -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 2);
    if (c.nranks == 2) {
        CHECK_INT(c.ranks[0].device, 0);
        CHECK_INT(c.ranks[1].device, 1);
        CHECK_INT(c.ranks[0].nfiles, 2);
        CHECK_INT(c.ranks[1].nfiles, 1);
        CHECK_INT(c.ranks[1].cls, CLASS_B);
        CHECK(find_kind(&c.ranks[0], FK_OP_SUMMARY) != NULL);
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_raw_dir_not_analysed)
{
    char *t = tmpdir();
    mkdirs(t, "h_1_2_ascend_pt/FRAMEWORK");
    mkdirs(t, "h_1_2_ascend_pt/PROF_000001_20230628101435646_AB/device_0/data");
    put(t, "h_1_2_ascend_pt/profiler_info_0.json", "{\"rank_id\": 0}", -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 1);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK(c.ranks[0].problem != NULL);
        CHECK(c.ranks[0].problem && strstr(c.ranks[0].problem, "from torch_npu.profiler.profiler import analyse; analyse(\"/"));
        CHECK(c.ranks[0].problem && strstr(c.ranks[0].problem, "h_1_2_ascend_pt\")"));
        CHECK_INT(c.ranks[0].device, 0);
    }
    CHECK_INT(diag_has(d, DIAG_WARN, "not analysed yet"), 1);
    capture_free(&c);
    diag_free(d);
    /* exported CANN text inside the raw dir can still be read meanwhile */
    put(t, "h_1_2_ascend_pt/PROF_000001_20230628101435646_AB/mindstudio_profiler_output/op_summary_1.csv", OPSUM_HDR, -1);
    CHECK_INT(discover(t, &c, &d), 0);
    if (c.nranks) {
        CHECK(c.ranks[0].problem != NULL);
        CHECK(find_kind(&c.ranks[0], FK_OP_SUMMARY) != NULL);
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_missing_analyse_done_is_only_info)
{
    char *t = tmpdir();
    mkdirs(t, "h_1_2_ascend_pt/FRAMEWORK");
    put(t, "h_1_2_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK(c.nranks == 1 && c.ranks[0].problem == NULL);
    CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
    CHECK_INT(diag_has(d, DIAG_INFO, "analyse.done"), 1);
    capture_free(&c);
    diag_free(d);
    put(t, "h_1_2_ascend_pt/ASCEND_PROFILER_OUTPUT/analyse.done", "", 0);
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(diag_count(d), 0);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_classifies_by_content)
{
    char *t = tmpdir();
    put(t, "x/kernel_details.csv", OPSUM_HDR, -1);              /* renamed Class B file */
    put(t, "x/op_summary_1.csv", KERNEL_HDR, -1);
    put(t, "x/bom.csv", "\xEF\xBB\xBFOP Type,Core Type,Count,Total Time(us)\n", -1);
    put(t, "x/trace.dat", SQLITE_HEAD, sizeof SQLITE_HEAD - 1);
    put(t, "x/notes.dat", "hello", -1);
    put(t, "x/wrapped.json", "  {\"traceEvents\": []}", -1);
    put(t, "x/renamed_comm.json", "{\"step12\": {\"collective\": {\"hcom_allReduce__1_0_1@9\": {\"Communication Time Info\": {}}}}}", -1);
    put(t, "x/renamed_matrix.json", "{\"step\": {\"collective\": {\"allreduce-top1@9\": {\"0-1\": {\"Transport Type\": \"HCCS\"}}}}}", -1);
    put(t, "x/cluster.json", "{\"p2p\": {}, \"(0, 1)\": {\"Communication Time Info\": {}}}", -1);
    put(t, "x/fake.db", "not sqlite", -1);
    put(t, "x/kernel_details.json", "[]", -1);
    put(t, "x/api.csv", "Level,API Name,Time(us),Count\n", -1);
    struct capture c;
    struct diag *d;
    char p[4096];
    snprintf(p, sizeof p, "%s/x", t);
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        const struct capture_rank *r = &c.ranks[0];
        const struct capture_file *f;
        CHECK((f = find_name(r, "kernel_details.csv")) && f->kind == FK_OP_SUMMARY);
        CHECK((f = find_name(r, "op_summary_1.csv")) && f->kind == FK_KERNEL_DETAILS);
        CHECK((f = find_name(r, "bom.csv")) && f->kind == FK_OP_STATISTIC);
        CHECK((f = find_name(r, "trace.dat")) && f->kind == FK_DB_OTHER && !f->problem);
        CHECK((f = find_name(r, "notes.dat")) && f->kind == FK_UNKNOWN);
        CHECK((f = find_name(r, "wrapped.json")) && f->kind == FK_TRACE_JSON);
        CHECK((f = find_name(r, "renamed_comm.json")) && f->kind == FK_COMMUNICATION);
        CHECK((f = find_name(r, "renamed_matrix.json")) && f->kind == FK_COMM_MATRIX);
        CHECK((f = find_name(r, "cluster.json")) && f->kind == FK_OTHER_JSON);
        CHECK((f = find_name(r, "fake.db")) && f->problem && strstr(f->problem, "SQLite"));
        CHECK((f = find_name(r, "kernel_details.json")) && f->kind == FK_TRACE_JSON);
        CHECK((f = find_name(r, "api.csv")) && f->kind == FK_API_STATISTIC);
        CHECK_INT(r->cls, CLASS_B);     /* it holds op_summary content */
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

/* communication_matrix.json is written as a JSON array: it stays a matrix, not a trace
 * (unless what the array holds are trace events). */
TEST(capture_matrix_array_form_is_matrix)
{
    char *t = tmpdir();
    put(t, "a_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "a_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json",
        " [{\"op_name\": \"hcom_allReduce__1\", \"link_info\": [{\"Src Rank\": \"0\", \"Dst Rank\": \"1\","
        " \"Transport Type\": 0}]}]", -1);
    put(t, "b_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json", TRACE, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 2);
    if (c.nranks == 2) {
        const struct capture_file *f;
        CHECK((f = find_name(&c.ranks[0], "communication_matrix.json")) && f->kind == FK_COMM_MATRIX);
        CHECK((f = find_name(&c.ranks[1], "communication_matrix.json")) && f->kind == FK_TRACE_JSON);
    }
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_empty_and_unreadable_files)
{
    char *t = tmpdir();
    put(t, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", "", 0);
    put(t, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KERNEL_HDR, -1);
    char p[4096];
    snprintf(p, sizeof p, "%s/r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", t);
    chmod(p, 0);
    int readable = access(p, R_OK) == 0;   /* root reads anything */
    struct capture c;
    struct diag *d;
    int rc = discover(t, &c, &d);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        const struct capture_file *f = find_name(&c.ranks[0], "trace_view.json");
        CHECK(f && f->problem && strstr(f->problem, "0-byte"));
        CHECK(f && f->kind == FK_TRACE_JSON && !capture_file_loadable(f));
        f = find_name(&c.ranks[0], "kernel_details.csv");
        CHECK(f != NULL);
        if (f && !readable) {
            CHECK(f->problem && strstr(f->problem, "not readable"));
            CHECK_INT(rc, 1);
            CHECK_INT(diag_has(d, DIAG_ERROR, "nothing loadable"), 1);
        }
    }
    CHECK(diag_has(d, DIAG_WARN, "0-byte") == 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_missing_empty_and_unrelated)
{
    char *t = tmpdir();
    char p[4096];
    struct capture c;
    struct diag *d;
    snprintf(p, sizeof p, "%s/does_not_exist", t);
    CHECK_INT(discover(p, &c, &d), 1);
    CHECK_INT(c.nranks, 0);
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 1);
    CHECK_INT(diag_has(d, DIAG_ERROR, "does_not_exist: cannot open"), 1);
    capture_free(&c);
    diag_free(d);
    CHECK_INT(discover(t, &c, &d), 1);
    CHECK_INT(diag_has(d, DIAG_ERROR, "empty directory"), 1);
    capture_free(&c);
    diag_free(d);
    put(t, "notes/readme.txt", "x", -1);
    put(t, "notes/config.json", "{\"a\": 1}", -1);
    CHECK_INT(discover(t, &c, &d), 1);
    CHECK_INT(c.nranks, 0);
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 1);
    CHECK_INT(diag_has(d, DIAG_ERROR, "no profiling data found"), 1);
    capture_free(&c);
    diag_free(d);
    snprintf(p, sizeof p, "%s/notes/readme.txt", t);
    CHECK_INT(discover(p, &c, &d), 1);
    CHECK_INT(diag_has(d, DIAG_ERROR, "not a profiling file"), 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_duplicate_rank_ids_kept)
{
    char *t = tmpdir();
    put(t, "a_ascend_pt/profiler_info_0.json", "{\"rank_id\": 0}", -1);
    put(t, "a_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "b_ascend_pt/profiler_info_0.json", "{\"rank_id\": 0}", -1);
    put(t, "b_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 2);
    if (c.nranks == 2) {
        CHECK_INT(c.ranks[0].rank, 0);
        CHECK_INT(c.ranks[1].rank, 0);
        CHECK_STR(c.ranks[0].label, "a_ascend_pt");
    }
    CHECK_INT(diag_has(d, DIAG_WARN, "rank 0 is claimed by 2 directories"), 1);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_print_escapes_and_summarises)
{
    char *t = tmpdir();
    put(t, "evil\x1b]0;title\x07_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", TRACE, -1);
    put(t, "gbk\xd6\xd0\xce\xc4_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", "", 0);
    put(t, "utf8_\xe4\xb8\xad_rank2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", KERNEL_HDR, -1);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(t, &c, &d), 0);
    CHECK_INT(c.nranks, 3);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    capture_print(&c, fp);
    fclose(fp);
    CHECK(buf && !memchr(buf, 0x1b, len) && !memchr(buf, 0x07, len));
    CHECK(buf && strstr(buf, "evil\\x1b]0;title\\x07_rank0_ascend_pt"));
    CHECK(buf && strstr(buf, "gbk\\xd6\\xd0\\xce\\xc4_rank1"));
    CHECK(buf && strstr(buf, "utf8_\xe4\xb8\xad_rank2"));       /* valid UTF-8 stays readable */
    CHECK(buf && strstr(buf, "rank 1  device -  class A"));
    CHECK(buf && strstr(buf, "[0-byte file (empty)]"));
    CHECK(buf && strstr(buf, "kernel_details"));
    CHECK(buf && strstr(buf, "3 ranks, 3 files"));
    CHECK(buf && strstr(buf, "2 loadable, 1 with problems\n"));
    free(buf);
    capture_free(&c);
    diag_free(d);
    rmtree(t);
}

TEST(capture_file_kind_names_distinct)
{
    const char *seen[FK_OTHER_JSON + 1];
    for (int k = FK_UNKNOWN; k <= FK_OTHER_JSON; k++) {
        seen[k] = file_kind_name((enum file_kind)k);
        CHECK(seen[k] && seen[k][0]);
        for (int j = 0; j < k; j++)
            CHECK(strcmp(seen[j], seen[k]) != 0);
    }
    CHECK_STR(file_kind_name(FK_TRACE_JSON), "trace");
    CHECK_STR(capture_class_name(CLASS_B), "B");
}

/* ---- real captures ---------------------------------------------------------------------- */

/* Names, sizes and mtimes of everything under root, to see that discovery wrote nothing. */
static char snap_buf[1 << 16];
static size_t snap_len;
static int snap_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag; (void)ftw;
    snap_len += (size_t)snprintf(snap_buf + snap_len, sizeof snap_buf - snap_len, "%s %lld %lld\n", p,
                                 (long long)st->st_size, (long long)st->st_mtime);
    return snap_len >= sizeof snap_buf - 1;
}
static char *snapshot(const char *root)
{
    snap_len = 0;
    nftw(root, snap_one, 16, FTW_PHYS);
    return strdup(snap_buf);
}

TEST(capture_real_text_level1_two_ranks)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level1");
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 2);
    for (size_t i = 0; i < c.nranks && i < 2; i++) {
        const struct capture_rank *r = &c.ranks[i];
        CHECK_INT(r->rank, (int)i);
        CHECK_INT(r->cls, CLASS_A);
        CHECK(find_kind(r, FK_TRACE_JSON) && find_kind(r, FK_KERNEL_DETAILS) && find_kind(r, FK_COMMUNICATION)
              && find_kind(r, FK_COMM_MATRIX) && find_kind(r, FK_OP_STATISTIC) && find_kind(r, FK_API_STATISTIC)
              && find_kind(r, FK_STEP_TRACE_TIME) && find_kind(r, FK_OPERATOR_DETAILS));
        CHECK(find_name(r, "l2_cache.csv") && find_name(r, "l2_cache.csv")->kind == FK_OTHER_CSV);
        CHECK(r->problem == NULL);
    }
    if (c.nranks == 2)
        CHECK(ends(c.ranks[1].dir, "/rank1_ascend_pt") != NULL);
    CHECK_INT(diag_count(d), 0);    /* no analyse.done in these copies, and no raw data: no note */
    capture_free(&c);
    diag_free(d);
}

TEST(capture_real_db_level0_untouched)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/db/level0");
    char *before = snapshot(p);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(p, &c, &d), 0);
    char *after = snapshot(p);
    CHECK_STR(after, before);
    CHECK_INT(c.nranks, 2);
    for (size_t i = 0; i < c.nranks && i < 2; i++) {
        CHECK_INT(c.ranks[i].rank, (int)i);
        CHECK(find_kind(&c.ranks[i], FK_DB_TORCH) != NULL);
        CHECK(find_kind(&c.ranks[i], FK_DB_ANALYSIS) != NULL);
    }
    free(before);
    free(after);
    capture_free(&c);
    diag_free(d);
}

TEST(capture_real_msprof_db_files)
{
    REAL_OR_SKIP(full, "Ascend-msinsight/server/src/test/test_data/full_db/msprof_0.db");
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(full, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].cls, CLASS_B);
        CHECK_INT(c.ranks[0].nfiles, 1);
        CHECK(c.ranks[0].nfiles && c.ranks[0].files[0].kind == FK_DB_MSPROF && c.ranks[0].files[0].size == 106496);
    }
    capture_free(&c);
    diag_free(d);
    const char *md = test_real("Ascend-msinsight/server/src/test/test_data/multiDevice/msprof_db");
    CHECK_INT(discover(md, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        const struct capture_file *f = find_name(&c.ranks[0], "analysis.dat");
        CHECK(f && f->kind == FK_DB_ANALYSIS);
        f = find_name(&c.ranks[0], "ascend_pytorch_profiler.dat");
        CHECK(f && f->kind == FK_DB_TORCH);
    }
    capture_free(&c);
    diag_free(d);
}

TEST(capture_real_placeholders_not_loadable)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/server/src/test/test_data/msprof/normal");
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(p, &c, &d), 1);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].nfiles, 4);
        CHECK_INT(c.ranks[0].cls, CLASS_B);
        for (size_t i = 0; i < c.ranks[0].nfiles; i++)
            CHECK(c.ranks[0].files[i].problem != NULL);
        CHECK(find_kind(&c.ranks[0], FK_OP_SUMMARY) && find_kind(&c.ranks[0], FK_TRACE_JSON));
    }
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 1);
    CHECK_INT(diag_has(d, DIAG_ERROR, "msprof/normal: nothing loadable"), 1);
    capture_free(&c);
    diag_free(d);
}

TEST(capture_real_test_rank_0_output_dir)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT");
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK_INT(c.nranks, 1);
    if (c.nranks) {
        CHECK_INT(c.ranks[0].rank, 0);
        CHECK(find_kind(&c.ranks[0], FK_KERNEL_DETAILS) != NULL);
        CHECK(find_kind(&c.ranks[0], FK_TRACE_JSON) == NULL);   /* not in the snapshot */
        CHECK(find_kind(&c.ranks[0], FK_MEMORY_CSV) != NULL);
    }
    capture_free(&c);
    diag_free(d);
}

TEST(capture_real_single_files)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/server/src/test");
    const char *files[] = { "test_data/heatMap/trace_view.json", "fuzz/test_data/trace_view_tiny.json",
                            "test_data/test_kernel_parse/op_summary_1.csv" };
    enum file_kind kinds[] = { FK_TRACE_JSON, FK_TRACE_JSON, FK_OP_SUMMARY };
    for (int i = 0; i < 3; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        struct capture c;
        struct diag *d;
        CHECK_INT(discover(p, &c, &d), 0);
        CHECK_INT(c.nranks, 1);
        if (c.nranks && c.ranks[0].nfiles)
            CHECK_INT(c.ranks[0].files[0].kind, kinds[i]);
        capture_free(&c);
        diag_free(d);
    }
    const char *kd = test_real("Ascend-msinsight/test/data/pytorch/text/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(kd, &c, &d), 0);
    CHECK(c.nranks == 1 && c.ranks[0].rank == 1);
    capture_free(&c);
    diag_free(d);
}

/* Every *_ascend_pt under the pytorch tree is one rank, found once. */
static int n_rank_dirs;
static int count_rank_dirs(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)ftw;
    n_rank_dirs += flag == FTW_D && ends(p, "_ascend_pt") != NULL;
    return 0;
}

TEST(capture_real_every_capture)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch");
    n_rank_dirs = 0;
    nftw(p, count_rank_dirs, 16, FTW_PHYS);
    struct capture c;
    struct diag *d;
    CHECK_INT(discover(p, &c, &d), 0);
    CHECK(n_rank_dirs > 0);
    /* text/level0..2 and db/level0..2: six captures of two ranks, never twelve ranks of one */
    CHECK_INT(c.ngroups, 6);
    CHECK_INT(c.nranks, 2);
    CHECK_INT(c.nranks + c.nother, n_rank_dirs);
    CHECK(diag_has(d, DIAG_WARN, "6 unrelated captures here") == 1);
    for (size_t i = 0; i < c.nranks + c.nother; i++) {
        const struct capture_rank *r = i < c.nranks ? &c.ranks[i] : &c.other[i - c.nranks];
        CHECK(ends(r->dir, "_ascend_pt") && r->nfiles > 1 && !r->problem);
    }
    capture_free(&c);
    diag_free(d);
    /* the server fixtures: every loadable thing is found, placeholders are problems */
    const char *s = test_real("Ascend-msinsight/server/src/test/test_data");
    CHECK_INT(discover(s, &c, &d), 0);
    int traces = 0, dbs = 0, placeholders = 0;
    for (size_t i = 0; i < c.nranks + c.nother; i++)
        for (size_t k = 0; k < (i < c.nranks ? c.ranks[i].nfiles : c.other[i - c.nranks].nfiles); k++) {
            const struct capture_file *f = i < c.nranks ? &c.ranks[i].files[k] : &c.other[i - c.nranks].files[k];
            traces += f->kind == FK_TRACE_JSON && !f->problem;
            dbs += f->kind >= FK_DB_TORCH && f->kind <= FK_DB_OTHER;
            placeholders += f->problem != NULL;
        }
    CHECK_INT(traces, 1);          /* heatMap/trace_view.json */
    CHECK_INT(dbs, 3);             /* msprof_0.db, analysis.dat, ascend_pytorch_profiler.dat */
    CHECK_INT(placeholders, 12);   /* the 0-byte msprof/normal and msprof/slice files */
    capture_free(&c);
    diag_free(d);
}
