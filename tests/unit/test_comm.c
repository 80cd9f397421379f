/* Communication readers and the rank analysis: real two-rank captures checked against figures
 * computed independently in Python, a generated four-rank case with a known slow rank, and
 * broken inputs. */
#include "../runner.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/tables/comm_json.h"
#include "io/db/db_reader.h"
#include "model/analysis/comm.h"
#include "model/index/diag.h"
#include "report/report.h"

#define LEVEL1 "Ascend-msinsight/test/data/pytorch/text/level1"
#define LEVEL2 "Ascend-msinsight/test/data/pytorch/text/level2"
#define SERVER "Ascend-msinsight/server/src/test/test_data"

static const char *const real_ranks[] = {
    LEVEL1 "/rank0_ascend_pt", LEVEL1 "/rank1_ascend_pt",
    LEVEL2 "/rank0_ascend_pt", LEVEL2 "/rank1_ascend_pt",
    SERVER "/test_rank_0", SERVER "/test_rank_1",
};
#define NREAL (sizeof real_ranks / sizeof real_ranks[0])

static const struct comm_op *find_op(const struct comm *c, const char *step, const char *kind, const char *name)
{
    for (size_t i = 0; i < c->nops; i++) {
        const struct comm_op *op = &c->ops[i];
        if (!strcmp(strtab_get(c->str, op->step), step) && !strcmp(comm_kind_name(op->kind), kind)
            && !strcmp(strtab_get(c->str, op->name), name))
            return op;
    }
    return NULL;
}

/* Python prints one line per op: step, kind, key, then the eight time figures and the five
 * bandwidths ("-" when absent), each as the file's own text (numbers parsed as strings). */
static const char py_ops[] =
    "import json\n"
    "def run(p):\n"
    " d=json.load(open(p), parse_float=str, parse_int=str)\n"
    " T=['Start Timestamp(us)','Elapse Time(ms)','Transit Time(ms)','Wait Time(ms)',"
    "'Synchronization Time(ms)','Idle Time(ms)','Wait Time Ratio','Synchronization Time Ratio']\n"
    " for s,g in d.items():\n"
    "  for k in ('collective','p2p'):\n"
    "   for op,v in (g.get(k) or {}).items():\n"
    "    t=v.get('Communication Time Info',{}); b=v.get('Communication Bandwidth Info',{})\n"
    "    f=[t[x] if x in t else '-' for x in T]\n"
    "    f+=[b[x]['Bandwidth(GB/s)'] if x in b and 'Bandwidth(GB/s)' in b[x] else '-' for x in ('HCCS','RDMA','SDMA','PCIE','SIO')]\n"
    "    print('\\t'.join([s,k,op]+f))\n";

/* Runs script once over several arguments: the script defines run(arg); the output of each
 * argument comes back as its own string (caller frees each). One interpreter start for all,
 * to keep the suite fast. */
static void python_each(const char *script, const char *const *args, size_t n, char **outs)
{
    static const char driver[] =
        "\nimport sys\n"
        "for i,a in enumerate(sys.argv[1:]):\n"
        " print('@@%d' % i, flush=True)\n"
        " run(a)\n";
    for (size_t i = 0; i < n; i++)
        outs[i] = NULL;
    char tmp[] = "/tmp/aptop_test_comm_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        size_t len = strlen(script);
        CHECK_INT(write(fd, script, len), (long long)len);
        CHECK_INT(write(fd, driver, sizeof driver - 1), (long long)(sizeof driver - 1));
        close(fd);
        size_t cap = 64 + strlen(tmp);
        for (size_t i = 0; i < n; i++)
            cap += strlen(args[i]) + 3;
        char *cmd = malloc(cap + 16);
        size_t k = (size_t)snprintf(cmd, cap, "python3 %s", tmp);
        for (size_t i = 0; i < n; i++)
            k += (size_t)snprintf(cmd + k, cap - k, " '%s'", args[i]);
        snprintf(cmd + k, cap - k, " 2>&1");
        int st;
        char *all = test_run(cmd, &st);
        CHECK_INT(st, 0);
        free(cmd);
        unlink(tmp);
        /* split at the "@@i" lines */
        for (size_t i = 0; i < n; i++) {
            char mark[32];
            snprintf(mark, sizeof mark, "@@%zu\n", i);
            char *b = strstr(all, mark);
            if (!b)
                continue;
            b += strlen(mark);
            char next[32];
            snprintf(next, sizeof next, "@@%zu\n", i + 1);
            char *e = strstr(b, next);
            outs[i] = strndup(b, e ? (size_t)(e - b) : strlen(b));
        }
        free(all);
    }
    for (size_t i = 0; i < n; i++)
        if (!outs[i])
            outs[i] = calloc(1, 1);
}

/* The file ASCEND_PROFILER_OUTPUT/<file> of every real rank (paths) through the script. */
static void python_real(const char *script, const char *file, char paths[NREAL][4096], char *outs[NREAL])
{
    const char *args[NREAL];
    for (size_t r = 0; r < NREAL; r++) {
        snprintf(paths[r], 4096, "%s/ASCEND_PROFILER_OUTPUT/%s", test_real(real_ranks[r]), file);
        args[r] = paths[r];
    }
    python_each(script, args, NREAL, outs);
}

TEST(comm_real_ops_match_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    size_t total = 0;
    char paths[NREAL][4096];
    char *outs[NREAL];
    python_real(py_ops, "communication.json", paths, outs);
    for (size_t r = 0; r < NREAL; r++) {
        const char *path = paths[r];
        struct diag *d = diag_new();
        struct comm *c = NULL;
        CHECK_INT(comm_load(path, &c, d), 0);
        CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
        char *out = outs[r];
        size_t lines = 0;
        for (char *save = NULL, *line = strtok_r(out, "\n", &save); line && c; line = strtok_r(NULL, "\n", &save)) {
            char *f[16];
            int n = 0;
            for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && n < 16; t = strtok_r(NULL, "\t", &s2))
                f[n++] = t;
            CHECK_INT(n, 16);
            if (n != 16)
                break;
            lines++;
            const struct comm_op *op = find_op(c, f[0], f[1], f[2]);
            CHECK(op != NULL);
            if (!op)
                continue;
            const double *vals[8] = { &op->start_us, &op->elapse_ms, &op->transit_ms, &op->wait_ms,
                                      &op->sync_ms, &op->idle_ms, &op->wait_ratio, &op->sync_ratio };
            for (int i = 0; i < 8; i++) {
                bool want = strcmp(f[3 + i], "-") != 0;
                CHECK_INT(!!(op->has & (1u << i)), want);
                if (want && (op->has & (1u << i)) && *vals[i] != strtod(f[3 + i], NULL))
                    test_fail(__FILE__, __LINE__, "%s %s field %d: %.17g != %s", path, f[2], i, *vals[i], f[3 + i]);
                /* the digits as written, kept */
                const char *txt = comm_op_text(c, op, 1u << i);
                if (want && (!txt || strcmp(txt, f[3 + i])))
                    test_fail(__FILE__, __LINE__, "%s %s field %d: text %s != %s", path, f[2], i, txt ? txt : "-", f[3 + i]);
            }
            for (int t = 0; t < CT_COUNT; t++) {
                bool want = strcmp(f[11 + t], "-") != 0;
                CHECK_INT(!!(op->bw[t].has & CB_GBPS), want);
                const char *gt = comm_bw_text(c, &op->bw[t], CB_GBPS);
                if (want && (!gt || strcmp(gt, f[11 + t])))
                    test_fail(__FILE__, __LINE__, "%s %s gbps text %s != %s", path, f[2], gt ? gt : "-", f[11 + t]);
                if (want && op->bw[t].gbps != strtod(f[11 + t], NULL))
                    test_fail(__FILE__, __LINE__, "%s %s %s: %.17g != %s", path, f[2],
                              comm_transport_name((enum comm_transport)t), op->bw[t].gbps, f[11 + t]);
            }
        }
        CHECK(lines > 0);
        if (c)
            CHECK_INT(c->nops, lines);
        total += lines;
        free(out);
        comm_free(c);
        diag_free(d);
    }
    CHECK(total >= 40);
}

static const char py_matrix[] =
    "import json\n"
    "def run(p):\n"
    " d=json.load(open(p))\n"
    " n=0; s=0.0\n"
    " for st,g in d.items():\n"
    "  for k in ('collective','p2p'):\n"
    "   for grp,links in (g.get(k) or {}).items():\n"
    "    for l,v in links.items():\n"
    "     n+=1; s+=v.get('Transit Size(MB)',0)\n"
    " print(n, repr(s))\n";

TEST(comm_real_matrix_match_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char paths[NREAL][4096];
    char *outs[NREAL];
    python_real(py_matrix, "communication_matrix.json", paths, outs);
    for (size_t r = 0; r < NREAL; r++) {
        const char *path = paths[r];
        struct diag *d = diag_new();
        struct comm *c = NULL;
        CHECK_INT(comm_load_matrix(path, &c, d), 0);
        CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
        char *out = outs[r];
        long n = -1;
        double sum = -1;
        CHECK_INT(sscanf(out, "%ld %lf", &n, &sum), 2);
        if (c) {
            CHECK_INT(c->nlinks, n);
            double mine = 0;   /* summed in file order, as Python did */
            for (size_t i = 0; i < c->nlinks; i++)
                mine += (c->links[i].has & CL_SIZE) ? c->links[i].size_mb : 0;
            CHECK_NEAR(mine, sum, 1e-9 * fabs(sum) + 1e-12);
            for (size_t i = 0; i < c->nlinks; i++) {
                CHECK(c->links[i].has & CL_RANKS);
                CHECK(c->links[i].transport != 0);
            }
        }
        free(out);
        comm_free(c);
        diag_free(d);
    }
}

/* --- the rank analysis on real captures ---------------------------------------------------- */

#include "io/tables/csv_table.h"
#include "model/index/table.h"

struct test_session {
    struct session s;
    struct rank_data rd[8];
    struct diag *d;
};

/* Builds a session the way the loader does for these files: the step_trace_time table and
 * the communication files of each rank directory. */
static void real_session(struct test_session *ts, const char *const *dirs, size_t n)
{
    memset(ts, 0, sizeof *ts);
    ts->d = diag_new();
    ts->s.ranks = ts->rd;
    ts->s.nranks = n;
    ts->s.diag = ts->d;
    for (size_t i = 0; i < n; i++) {
        struct rank_data *rd = &ts->rd[i];
        char path[4096];
        rd->rank = (int)i;
        rd->device = -1;
        snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", test_real(dirs[i]));
        CHECK_INT(csv_table_load(path, TK_STEP_TRACE, &rd->tables[TK_STEP_TRACE], ts->d, NULL), 0);
        snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/communication.json", test_real(dirs[i]));
        CHECK_INT(comm_load(path, &rd->comm, ts->d), 0);
        snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/communication_matrix.json", test_real(dirs[i]));
        CHECK_INT(comm_load_matrix(path, &rd->comm, ts->d), 0);
    }
}

static void session_done(struct test_session *ts)
{
    for (size_t i = 0; i < ts->s.nranks; i++) {
        for (int k = 0; k < TK_COUNT; k++)
            table_free(ts->rd[i].tables[k]);
        comm_free(ts->rd[i].comm);
        model_free(ts->rd[i].model);
    }
    diag_free(ts->d);
}

/* For a pair of rank directories "dir0|dir1", independently of the C code:
 *   "S i step computing cnov free" per step_trace_time.csv row of rank i (ns), then
 *   "V best votes median n": per collective key the rank with the least wait (then the later
 *   start, then the lower rank) gets a vote, unless every wait is equal;
 *   the rank the others wait for has the most votes (then the least total wait); the offset of rank 1 is
 *   the median over shared keys of end0 - end1 in ns, from exact fractions. */
static const char py_pair[] =
    "import csv,json\n"
    "from fractions import Fraction as F\n"
    "def run(arg):\n"
    " dirs=arg.split('|'); ops=[]\n"
    " for i,dr in enumerate(dirs):\n"
    "  for r in csv.DictReader(open(dr+'/ASCEND_PROFILER_OUTPUT/step_trace_time.csv', newline='')):\n"
    "   c=r.get('Communication(Not Overlapped)', r.get('Communication (Not Overlapped)'))\n"
    "   print('S', i, r['Step'], round(F(r['Computing'])*1000), round(F(c)*1000), round(F(r['Free'])*1000))\n"
    "  d=json.load(open(dr+'/ASCEND_PROFILER_OUTPUT/communication.json'), parse_float=F); m={}\n"
    "  for s,g in d.items():\n"
    "   for k,v in (g.get('collective') or {}).items():\n"
    "    if k!='Total Op Info': m[(s,k)]=v['Communication Time Info']\n"
    "  ops.append(m)\n"
    " votes=[0]*len(ops); waits=[sum(t['Wait Time(ms)'] for t in m.values()) for m in ops]\n"
    " for key in ops[0]:\n"
    "  w=[(m[key]['Wait Time(ms)'],-m[key]['Start Timestamp(us)'],i) for i,m in enumerate(ops) if key in m]\n"
    "  if len(w)>1 and len({x[0] for x in w})>1: votes[min(w)[2]]+=1\n"
    " best=max(range(len(ops)), key=lambda i:(votes[i],-waits[i]))\n"
    " end=lambda t: round(F(t['Start Timestamp(us)'])*1000)+round(F(t['Elapse Time(ms)'])*1000000)\n"
    " diffs=sorted(end(ops[0][k])-end(ops[1][k]) for k in ops[0] if k in ops[1])\n"
    " n=len(diffs); med=diffs[n//2] if n%2 else diffs[n//2-1]+(diffs[n//2]-diffs[n//2-1])//2\n"
    " print('V', best, votes[best], med, n)\n";

static void check_real_pair(const char *dir0, const char *dir1, const char *py_out)
{
    const char *dirs[2] = { dir0, dir1 };
    struct test_session ts;
    real_session(&ts, dirs, 2);
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(&ts.s, &a), 0);
    CHECK_INT(a.n, 2);
    for (size_t i = 0; i < 2 && a.n == 2; i++) {
        char key[8];
        snprintf(key, sizeof key, "S %zu ", i);
        const char *line = strstr(py_out, key);
        long long step = -2, comp = -1, cnov = -1, fr = -1;
        CHECK(line != NULL);
        if (line)
            CHECK_INT(sscanf(line + strlen(key), "%lld %lld %lld %lld", &step, &comp, &cnov, &fr), 4);
        CHECK_INT(a.r[i].src, RSRC_STEP_TRACE);
        CHECK_INT(a.r[i].nsteps, 1);
        if (a.r[i].nsteps == 1) {
            CHECK_INT(a.r[i].steps[0].step_no, step);
            CHECK_NEAR((double)a.r[i].steps[0].computing, (double)comp, 1);
            CHECK_NEAR((double)a.r[i].steps[0].comm_not_overlapped, (double)cnov, 1);
            CHECK_NEAR((double)a.r[i].steps[0].free, (double)fr, 1);
            CHECK_NEAR((double)a.r[i].step_mean, (double)(comp + cnov + fr), 3);
        }
    }
    const char *v = strstr(py_out, "V ");
    int best = -1, votes = -1, n = -1;
    long long med = 0;
    CHECK(v != NULL);
    if (v)
        CHECK_INT(sscanf(v, "V %d %d %lld %d", &best, &votes, &med, &n), 4);
    if (a.n == 2) {
        CHECK_INT(a.waited_for, best);
        CHECK(a.r[best].waited_for);
        CHECK_INT(a.r[best].waited_on, votes);
        CHECK_INT(a.waits_most, 1 - best);
        /* by step time: the longer mean step, whichever rank the others wait for */
        CHECK_INT(a.longest, a.r[0].step_mean > a.r[1].step_mean ? 0 : 1);
        CHECK(a.r[a.longest].longest_step && a.r[1 - a.longest].shortest_step);
        /* no timelines here: the offsets come from communication.json */
        CHECK_INT(a.align, ALIGN_COMM_JSON);
        CHECK_INT(a.align_ref, 0);
        CHECK_INT(a.r[1].align_matches, n);
        CHECK_NEAR((double)a.r[1].offset, (double)med, 1);
        CHECK_INT(a.r[0].offset, 0);
        CHECK(a.spread != NS_NONE);
        if (a.spread != NS_NONE)
            CHECK_INT(a.spread, llabs(a.r[0].step_mean - a.r[1].step_mean));
    }
    rank_analysis_done(&a);
    session_done(&ts);
}

TEST(comm_real_ranks_match_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char pairs[3][8300];
    const char *args[3];
    char *outs[3];
    for (int k = 0; k < 3; k++) {
        snprintf(pairs[k], sizeof pairs[k], "%s|%s", test_real(real_ranks[2 * k]), test_real(real_ranks[2 * k + 1]));
        args[k] = pairs[k];
    }
    python_each(py_pair, args, 3, outs);
    for (int k = 0; k < 3; k++) {
        check_real_pair(real_ranks[2 * k], real_ranks[2 * k + 1], outs[k]);
        free(outs[k]);
    }
}

/* What the acceptance check asks of `report --section comm`: every op of every rank, with
 * elapse_ms equal to the file's value. */
TEST(comm_real_report_sections)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    const char *dirs[2] = { real_ranks[0], real_ranks[1] };
    struct test_session ts;
    real_session(&ts, dirs, 2);
    struct report_opts o = { .format = FMT_JSON, .rank = -1 };
    struct rowset *rs = report_comm(&ts.s, &o);
    CHECK(rs != NULL);
    if (rs) {
        size_t c_rank = rowset_find_col(rs, "rank"), c_name = rowset_find_col(rs, "name");
        size_t c_el = rowset_find_col(rs, "elapse_ms");
        CHECK(c_rank != SIZE_MAX && c_name != SIZE_MAX && c_el != SIZE_MAX);
        CHECK_INT(rs->nrows, ts.rd[0].comm->nops + ts.rd[1].comm->nops);
        for (size_t r = 0; r < rs->nrows; r++) {
            int64_t rank = rowset_cell(rs, r, c_rank)->i;
            const char *name = strtab_get(rs->str, rowset_cell(rs, r, c_name)->s);
            const struct comm *c = ts.rd[rank].comm;
            const struct comm_op *op = NULL;
            for (size_t k = 0; k < c->nops; k++)
                if (!strcmp(strtab_get(c->str, c->ops[k].name), name))
                    op = &c->ops[k];
            CHECK(op != NULL);
            if (op) {
                /* the file's digits, as the reader kept them */
                CHECK_STR(strtab_get(rs->str, rowset_cell(rs, r, c_el)->s), comm_op_text(c, op, CF_ELAPSE));
                CHECK(strtod(strtab_get(rs->str, rowset_cell(rs, r, c_el)->s), NULL) == op->elapse_ms);
            }
        }
        rowset_free(rs);
    }
    o.rank = 1;
    rs = report_comm(&ts.s, &o);
    CHECK(rs && rs->nrows == ts.rd[1].comm->nops);
    rowset_free(rs);

    o.rank = -1;
    rs = report_ranks(&ts.s, &o);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rs->nrows, 2);
        size_t c_slow = rowset_find_col(rs, "waited_for"), c_mean = rowset_find_col(rs, "step_us_mean");
        CHECK(c_slow != SIZE_MAX && c_mean != SIZE_MAX);
        CHECK_INT(rowset_cell(rs, 0, c_slow)->i + rowset_cell(rs, 1, c_slow)->i, 1);
        CHECK(!rowset_is_null(rs, 0, c_mean));
        CHECK(rs->caption && strstr(rs->caption, "others wait for: rank"));
        CHECK(rs->caption && strstr(rs->caption, "longest mean step: rank"));
        CHECK(rowset_find_col(rs, "slowest") == SIZE_MAX);   /* no verdict that does not say what it measured */
        rowset_free(rs);
    }
    rs = comm_matrix_rowset(&ts.s, -1);
    CHECK(rs && rs->nrows == ts.rd[0].comm->nlinks + ts.rd[1].comm->nlinks);
    rowset_free(rs);
    rs = comm_rank_steps_rowset(&ts.s, -1);
    CHECK(rs && rs->nrows == 2);
    rowset_free(rs);
    session_done(&ts);
}

/* --- a generated four-rank case: rank 2 computes longer, the others wait for it ---------- */

#define GEN_RANKS 4
#define GEN_OPS 10
static const double gen_shift_us[GEN_RANKS] = { 0, 5.25, -7.5, 12 };   /* each rank's clock error */

static struct comm *gen_comm(int rank)
{
    struct comm *c = comm_new();
    const double base = 1736408883000000.0;
    for (int k = 0; k < GEN_OPS; k++) {
        char name[64];
        snprintf(name, sizeof name, "hcom_allReduce__1_%d_1@1234", k);
        struct comm_op op = { .kind = COMM_COLLECTIVE, .step_no = 1 };
        op.step = strtab_intern_cstr(c->str, "step1");
        op.name = strtab_intern_cstr(c->str, name);
        op.transit_ms = 1.0;
        op.wait_ms = rank == 2 ? 0.02 + 0.001 * k : 3.0 + 0.1 * rank + 0.01 * k;
        op.idle_ms = 0.1;
        op.elapse_ms = op.transit_ms + op.wait_ms + op.idle_ms;
        /* every rank ends the collective at the same true time, seen through its own clock */
        double end_us = base + 10000.0 * k + 8000.0 + gen_shift_us[rank];
        op.start_us = end_us - op.elapse_ms * 1000.0;
        op.has = CF_START | CF_ELAPSE | CF_TRANSIT | CF_WAIT | CF_IDLE;
        op.bw[CT_HCCS].has = CB_PRESENT | CB_GBPS;
        op.bw[CT_HCCS].gbps = 15.5;
        comm_add_op(c, &op);
    }
    struct comm_op total = { .kind = COMM_COLLECTIVE, .total = true, .step_no = 1,
                             .has = CF_WAIT | CF_ELAPSE, .wait_ms = 999, .elapse_ms = 999 };
    total.step = strtab_intern_cstr(c->str, "step1");
    total.name = strtab_intern_cstr(c->str, "Total Op Info");
    comm_add_op(c, &total);
    return c;
}

/* Two steps; rank 2 computes 30 ms a step, the others 20 ms and wait for it. */
static struct table *gen_step_trace(int rank, ns_t *step_sum)
{
    struct table *t = table_new(TK_STEP_TRACE, "");
    size_t cs = table_add_col(t, "Step", TC_NUM);
    size_t cc = table_add_col(t, "Computing", TC_TIME);
    size_t cn = table_add_col(t, "Communication(Not Overlapped)", TC_TIME);
    size_t cf = table_add_col(t, "Free", TC_TIME);
    *step_sum = 0;
    for (int s = 0; s < 2; s++) {
        size_t r = table_add_row(t);
        ns_t comp = (rank == 2 ? 30000000 : 20000000) + s * 1000;
        ns_t cnov = rank == 2 ? 1000000 : 11000000 + rank * 7;
        ns_t fr = 500000;
        table_set_num(t, r, cs, 7 + s);
        table_set_time(t, r, cc, comp);
        table_set_time(t, r, cn, cnov);
        table_set_time(t, r, cf, fr);
        *step_sum += comp + cnov + fr;
    }
    table_finish(t);
    return t;
}

TEST(comm_generated_four_ranks_slow_rank)
{
    struct test_session ts;
    memset(&ts, 0, sizeof ts);
    ts.d = diag_new();
    ts.s.ranks = ts.rd;
    ts.s.nranks = GEN_RANKS;
    ns_t sums[GEN_RANKS];
    for (int i = 0; i < GEN_RANKS; i++) {
        ts.rd[i].rank = i;
        ts.rd[i].device = 4 + i;
        ts.rd[i].comm = gen_comm(i);
        ts.rd[i].tables[TK_STEP_TRACE] = gen_step_trace(i, &sums[i]);
    }
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(&ts.s, &a), 0);
    CHECK_INT(a.waited_for, 2);
    CHECK(a.waits_most >= 0 && a.waits_most != 2);
    CHECK_INT(a.waits_most, 3);
    for (int i = 0; i < GEN_RANKS && a.n == GEN_RANKS; i++) {
        CHECK_INT(a.r[i].waited_for, i == 2);
        CHECK_INT(a.r[i].waited_on, i == 2 ? GEN_OPS : 0);
        CHECK_INT(a.r[i].nops, GEN_OPS);          /* the aggregate is not an op */
        CHECK_INT(a.r[i].nsteps, 2);
        CHECK_INT(a.r[i].step_mean, sums[i] / 2);
        double wait = 0;
        for (int k = 0; k < GEN_OPS; k++)
            wait += i == 2 ? 0.02 + 0.001 * k : 3.0 + 0.1 * i + 0.01 * k;
        CHECK_NEAR(a.r[i].wait_ms, wait, 1e-9);
        CHECK_NEAR(a.r[i].transit_ms, GEN_OPS * 1.0, 1e-9);
        /* alignment undoes each rank's clock error, to within the rounding of µs doubles
         * near 1.7e15 (a quarter µs apart) */
        CHECK_INT(a.align, ALIGN_COMM_JSON);
        CHECK_NEAR((double)a.r[i].offset, -1000.0 * gen_shift_us[i], 250);
    }
    ns_t lo = sums[0], hi = sums[0];
    for (int i = 1; i < GEN_RANKS; i++) {
        lo = sums[i] < lo ? sums[i] : lo;
        hi = sums[i] > hi ? sums[i] : hi;
    }
    CHECK_INT(a.spread, hi / 2 - lo / 2);
    rank_analysis_done(&a);

    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_ranks(&ts.s, &o);
    CHECK(rs && rs->nrows == GEN_RANKS);
    if (rs) {
        size_t c_slow = rowset_find_col(rs, "waited_for"), c_rank = rowset_find_col(rs, "rank");
        for (size_t r = 0; r < rs->nrows; r++)
            CHECK_INT(rowset_cell(rs, r, c_slow)->i, rowset_cell(rs, r, c_rank)->i == 2);
        CHECK(strstr(rs->caption, "others wait for: rank 2") != NULL);
        size_t c_off = rowset_find_col(rs, "offset_us");
        CHECK(rs->cols[c_off].type == RS_NS);
        CHECK_NEAR((double)rowset_cell(rs, 2, c_off)->i, 7500, 250);
        CHECK_INT(rowset_cell(rs, 2, rowset_find_col(rs, "align_ops"))->i, GEN_OPS);
        rowset_free(rs);
    }
    o.rank = 3;
    rs = report_ranks(&ts.s, &o);
    CHECK(rs && rs->nrows == 1);
    rowset_free(rs);
    rs = report_comm(&ts.s, &o);
    CHECK(rs && rs->nrows == GEN_OPS + 1);
    if (rs) {
        CHECK(rowset_is_null(rs, 0, rowset_find_col(rs, "rdma_gbps")));
        CHECK_NEAR(strtod(strtab_get(rs->str, rowset_cell(rs, 0, rowset_find_col(rs, "hccs_gbps"))->s), NULL), 15.5, 0);
    }
    rowset_free(rs);
    session_done(&ts);
}

/* Without step tables or communication.json: figures from the Overlap Analysis lanes, and
 * offsets from the communication lanes of the timelines. */
static struct model *gen_model(ns_t shift, ns_t comp, ns_t cnov, ns_t fr)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lc = model_lane(m, "7", 1, "1", 1), lp = model_lane(m, "7", 1, "2", 1);
    model_set_process_name(m, model_proc(m, "7", 1), "HCCL", 4);
    model_set_thread_name(m, lc, "Group 0 Communication", 21);
    model_set_thread_name(m, lp, "Plane 0", 7);
    for (int k = 0; k < 3; k++) {
        ns_t end = 1000000 + k * 100000 + shift;
        model_add_slice(m, lc, end - 20000 - k * 10, 20000 + k * 10, "hcom_allReduce_", 15, "", 0, 0, UINT64_MAX, 0);
        /* small tasks on a Plane lane, shifted by a different amount: must be ignored */
        model_add_slice(m, lp, end - 5000 + 777 * k, 100, "hcom_allReduce_", 15, "", 0, 0, UINT64_MAX, 0);
    }
    const char *names[3] = { "Computing", "Communication(Not Overlapped)", "Free" };
    ns_t durs[3] = { comp, cnov, fr };
    for (int i = 0; i < 3; i++) {
        char tid[8];
        snprintf(tid, sizeof tid, "%d", 10 + i);
        uint32_t l = model_lane(m, "9", 1, tid, strlen(tid));
        model_set_thread_name(m, l, names[i], strlen(names[i]));
        /* two slices each, inside the capture span */
        model_add_slice(m, l, 900000 + i * 100, durs[i] / 2, names[i], strlen(names[i]), "", 0, 0, UINT64_MAX, 0);
        model_add_slice(m, l, 1300000 + i * 100, durs[i] - durs[i] / 2, names[i], strlen(names[i]), "", 0, 0, UINT64_MAX, 0);
    }
    model_set_process_name(m, model_proc(m, "9", 1), "Overlap Analysis", 16);
    CHECK_INT(model_finalize(m), 0);
    return m;
}

TEST(comm_timeline_alignment_and_overlap_lanes)
{
    struct test_session ts;
    memset(&ts, 0, sizeof ts);
    ts.d = diag_new();
    ts.s.ranks = ts.rd;
    ts.s.nranks = 3;
    ts.rd[0].model = gen_model(0, 50000, 30000, 10001);
    ts.rd[1].model = gen_model(-4321, 60000, 20000, 10000);
    ts.rd[2].model = NULL;   /* a rank without a timeline */
    for (int i = 0; i < 3; i++)
        ts.rd[i].rank = i;
    ns_t off[3];
    size_t matches[3];
    int ref;
    CHECK_INT(comm_align_offsets(&ts.s, off, matches, &ref), ALIGN_TIMELINE);
    CHECK_INT(ref, 0);
    CHECK_INT(off[0], 0);
    CHECK_INT(off[1], 4321);
    CHECK_INT(matches[1], 3);
    CHECK_INT(off[2], 0);
    CHECK_INT(matches[2], 0);

    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(&ts.s, &a), 0);
    CHECK_INT(a.r[0].src, RSRC_OVERLAP);
    CHECK_INT(a.r[0].computing, 50000);
    CHECK_INT(a.r[0].comm_not_overlapped, 30000);
    CHECK_INT(a.r[0].free, 10001);
    CHECK_INT(a.r[0].step_mean, 90001);
    CHECK_INT(a.r[1].step_mean, 90000);
    CHECK_INT(a.r[2].nsteps, 0);
    /* no communication figures: only the step-time verdict */
    CHECK_INT(a.longest, 0);
    CHECK_INT(a.shortest, 1);
    CHECK_INT(a.waited_for, -1);
    CHECK_INT(a.spread, 1);
    rank_analysis_done(&a);

    /* one rank only: nothing to compare, nothing flagged, no offsets */
    ts.s.nranks = 1;
    CHECK_INT(comm_align_offsets(&ts.s, off, NULL, NULL), ALIGN_NONE);
    CHECK_INT(rank_analysis_run(&ts.s, &a), 0);
    CHECK_INT(a.longest, -1);
    CHECK_INT(a.waited_for, -1);
    CHECK(a.spread == NS_NONE);
    rank_analysis_done(&a);
    ts.s.nranks = 3;
    session_done(&ts);
}

/* --- broken and unusual inputs ---------------------------------------------------------------- */

static bool diag_has(struct diag *d, enum diag_level level, const char *needle)
{
    for (size_t i = 0; i < diag_count(d); i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m))
            continue;
        bool hit = m.level == level && strstr(m.text, needle);
        free(m.path);
        free(m.text);
        if (hit)
            return true;
    }
    return false;
}

TEST(comm_unknown_keys_and_wrong_types)
{
    static const char js[] =
        "{\"step3\": {\"p2p\": {}, \"future\": 1, \"collective\": {\n"
        "  \"opA@1\": {\"Communication Time Info\": {\"Elapse Time(ms)\": \"12\", \"Wait Time(ms)\": 0.5,\n"
        "             \"Transit Time(ms)\": 1e999, \"New Figure\": 3},\n"
        "           \"Communication Bandwidth Info\": {\"HCCS\": {\"Bandwidth(GB/s)\": 9.5, \"Size Distribution\": {\"1.5\": [3, 0.1], \"2\": [1, 0.2]}},\n"
        "                                          \"UB\": {}, \"RDMA\": [1]},\n"
        "           \"Extra\": {}},\n"
        "  \"opB@1\": 5,\n"
        "  \"Total Op Info\": {\"Communication Time Info\": {\"Elapse Time(ms)\": 2.25}}}},\n"
        " \"step4\": [] }";
    struct diag *d = diag_new();
    struct comm *c = NULL;
    CHECK_INT(comm_parse_buf(js, sizeof js - 1, "x/communication.json", &c, d), 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_INT(c->nops, 2);
        const struct comm_op *a = find_op(c, "step3", "collective", "opA@1");
        CHECK(a != NULL);
        if (a) {
            CHECK(!(a->has & CF_ELAPSE));            /* a string: diagnosed, absent */
            CHECK(!(a->has & CF_TRANSIT));           /* not finite */
            CHECK(a->has & CF_WAIT);
            CHECK(a->wait_ms == 0.5);
            CHECK(a->step_no == 3);
            CHECK(a->bw[CT_HCCS].gbps == 9.5);
            CHECK_INT(a->bw[CT_HCCS].packets, 4);
            CHECK_STR(strtab_get(c->str, a->bw[CT_HCCS].dist), "{\"1.5\":[3,0.1],\"2\":[1,0.2]}");
            CHECK(!(a->bw[CT_RDMA].has & CB_PRESENT));
            CHECK(!(a->bw[CT_SIO].has & CB_PRESENT));
        }
        const struct comm_op *t = find_op(c, "step3", "collective", "Total Op Info");
        CHECK(t && t->total && t->elapse_ms == 2.25);
        CHECK_INT(c->unknown_keys, 4);   /* future, New Figure, UB, Extra */
        CHECK_INT(c->bad_values, 5);     /* "12", 1e999, RDMA [1], opB 5, step4 [] */
    }
    CHECK(diag_has(d, DIAG_WARN, "key step3/collective/opA@1/Communication Time Info/Elapse Time(ms): expected a number, found a string"));
    CHECK(diag_has(d, DIAG_WARN, "key step3/collective/opB@1: expected an object, found a number"));
    CHECK(diag_has(d, DIAG_WARN, "key step4: expected an object, found an array"));
    CHECK(diag_has(d, DIAG_INFO, "4 unknown keys ignored (first: step3/future)"));
    comm_free(c);
    diag_free(d);
}

TEST(comm_bad_files)
{
    struct diag *d = diag_new();
    struct comm *c = NULL;
    /* not JSON: the position is named */
    static const char bad[] = "{\"step1\": {\n  \"collective\": {,}}}";
    CHECK_INT(comm_parse_buf(bad, sizeof bad - 1, "bad.json", &c, d), -1);
    CHECK(c == NULL);
    CHECK(diag_has(d, DIAG_ERROR, "line 2, column"));
    /* the wrong top-level type */
    CHECK_INT(comm_parse_buf("[1,2]", 5, "arr.json", &c, d), -1);
    CHECK(diag_has(d, DIAG_ERROR, "expected a JSON object at the top, found an array"));
    CHECK_INT(comm_parse_buf("", 0, "empty.json", &c, d), -1);
    CHECK(diag_has(d, DIAG_ERROR, "(empty file)"));
    /* trailing bytes after the object */
    CHECK_INT(comm_parse_buf("{} x", 4, "trail.json", &c, d), -1);
    CHECK(c == NULL);
    /* missing file */
    CHECK_INT(comm_load("/nonexistent/communication.json", &c, d), -1);
    CHECK(diag_has(d, DIAG_ERROR, "cannot open"));
    CHECK_INT(comm_load_matrix("/nonexistent/communication_matrix.json", &c, d), -1);
    CHECK(c == NULL);

    /* a file over the limit is refused without being read (sparse, costs no disk) */
    char tmp[] = "/tmp/aptop_comm_big_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_INT(ftruncate(fd, (off_t)COMM_JSON_MAX_BYTES + 1), 0);
        close(fd);
        CHECK_INT(comm_load(tmp, &c, d), -1);
        CHECK(diag_has(d, DIAG_ERROR, "larger than the 512 MiB"));
        unlink(tmp);
    }

    /* appending to an existing comm; an empty object is fine */
    CHECK_INT(comm_parse_buf("{}", 2, "e.json", &c, d), 0);
    CHECK(c && c->nops == 0);
    static const char one[] = "{\"step1\":{\"collective\":{\"a\":{\"Communication Time Info\":{\"Elapse Time(ms)\":1.5}}}}}";
    CHECK_INT(comm_parse_buf(one, sizeof one - 1, "1.json", &c, d), 0);
    CHECK_INT(comm_parse_buf(one, sizeof one - 1, "2.json", &c, d), 0);
    CHECK(c && c->nops == 2 && c->ops[1].elapse_ms == 1.5 && (c->sources & CS_JSON));
    /* groups written without a step level */
    static const char nostep[] = "{\"p2p\":{\"hcom_send_1\":{\"Communication Time Info\":{\"Wait Time(ms)\":0.25}}}}";
    CHECK_INT(comm_parse_buf(nostep, sizeof nostep - 1, "3.json", &c, d), 0);
    CHECK(c && c->nops == 3 && c->ops[2].kind == COMM_P2P && c->ops[2].step_no == -1);
    comm_free(c);
    diag_free(d);
}

TEST(comm_matrix_forms)
{
    struct diag *d = diag_new();
    struct comm *c = NULL;
    static const char obj[] =
        "{\"step2\": {\"p2p\": {\"hcom_send__822_0@1\": {\"0-8\": {\"Transport Type\": \"RDMA\","
        " \"Transit Size(MB)\": 20.97152, \"Transit Time(ms)\": 0.86, \"Bandwidth(GB/s)\": 24.2778}}},"
        " \"collective\": {\"g\": {\"x-y\": {\"Transport Type\": 7, \"Op Name\": 3}, \"1-0\": \"no\"}}}}";
    CHECK_INT(comm_parse_matrix_buf(obj, sizeof obj - 1, "m.json", &c, d), 0);
    CHECK(c && c->nlinks == 2);
    if (c && c->nlinks == 2) {
        const struct comm_link *l = &c->links[0];
        CHECK(l->kind == COMM_P2P && l->src == 0 && l->dst == 8 && (l->has & CL_RANKS));
        CHECK_STR(strtab_get(c->str, l->transport), "RDMA");
        CHECK(l->size_mb == 20.97152 && l->gbps == 24.2778);
        CHECK(!(c->links[1].has & CL_RANKS));           /* "x-y" is no rank pair */
        CHECK_STR(strtab_get(c->str, c->links[1].transport), "7");
        CHECK_INT(c->links[1].op_name, 0);
    }
    CHECK(diag_has(d, DIAG_WARN, "key step2/collective/g/x-y/Op Name: expected a string, found a number"));
    CHECK(diag_has(d, DIAG_WARN, "key step2/collective/g/1-0: expected an object, found a string"));
    /* the array form, with Transport Type as the integer enum */
    static const char arr[] =
        "[{\"op_name\": \"hcom_allReduce__1\", \"link_info\": [{\"Src Rank\": \"0\", \"Dst Rank\": 1,"
        " \"Transport Type\": 0, \"Transit Size(MB)\": 2.5, \"Bandwidth(Utilization)\": 0.5}]},"
        " {\"op_name\": \"Total HCCL Operators\", \"link_info\": []}, 3]";
    CHECK_INT(comm_parse_matrix_buf(arr, sizeof arr - 1, "a.json", &c, d), 0);
    CHECK(c && c->nlinks == 3);
    if (c && c->nlinks == 3) {
        const struct comm_link *l = &c->links[2];
        CHECK(l->src == 0 && l->dst == 1 && l->size_mb == 2.5);
        CHECK_STR(strtab_get(c->str, l->transport), "HCCS");
        CHECK_STR(strtab_get(c->str, l->link), "0-1");
        CHECK_STR(strtab_get(c->str, l->group), "hcom_allReduce__1");
        CHECK(c->sources & CS_MATRIX);
    }
    CHECK(diag_has(d, DIAG_WARN, "key [2]: expected an object, found a number"));
    comm_free(c);
    diag_free(d);
}

/* --- analysis.db ------------------------------------------------------------------------ */

static const char py_db[] =
    "import sqlite3\n"
    "def run(p):\n"
    " c=sqlite3.connect('file:'+p+'?mode=ro&immutable=1', uri=True)\n"
    " for r in c.execute('select hccl_op_name, group_name, step, elapse_time, wait_time, transit_time from CommAnalyzerTime'):\n"
    "  print('%s@%s\\t%s\\t%r\\t%r\\t%r' % r)\n"
    " print('links', c.execute('select count(*) from CommAnalyzerMatrix').fetchone()[0])\n"
    " c.close()\n";

TEST(comm_real_analysis_db)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    static const char *const dbs[] = {
        "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db",
        "Ascend-msinsight/test/data/pytorch/db/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db",
    };
    const char *paths[2] = { test_real(dbs[0]), test_real(dbs[1]) };
    char *outs[2];
    python_each(py_db, paths, 2, outs);
    for (size_t k = 0; k < 2; k++) {
        const char *path = paths[k];
        struct diag *d = diag_new();
        struct comm *c = NULL;
        CHECK_INT(comm_load_db(path, &c, d), 0);
        char *out = outs[k];
        size_t n = 0;
        long links = -1;
        for (char *save = NULL, *line = strtok_r(out, "\n", &save); line && c; line = strtok_r(NULL, "\n", &save)) {
            if (sscanf(line, "links %ld", &links) == 1)
                continue;
            char *f[5];
            int nf = 0;
            for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && nf < 5; t = strtok_r(NULL, "\t", &s2))
                f[nf++] = t;
            CHECK_INT(nf, 5);
            if (nf != 5)
                break;
            n++;
            const struct comm_op *op = find_op(c, f[1], "collective", f[0]);
            if (!op)
                op = find_op(c, f[1], "p2p", f[0]);
            CHECK(op != NULL);
            if (op) {
                CHECK(op->elapse_ms == strtod(f[2], NULL));
                CHECK(op->wait_ms == strtod(f[3], NULL));
                CHECK(op->transit_ms == strtod(f[4], NULL));
                CHECK(op->bw[CT_HCCS].has & CB_PRESENT);
            }
        }
        CHECK(n > 0);
        if (c) {
            CHECK_INT(c->nops, n);
            CHECK_INT(c->nlinks, links);
            CHECK(c->sources & CS_DB);
        }
        free(out);
        comm_free(c);
        diag_free(d);
    }
}

TEST(comm_us_to_ns_exact)
{
    CHECK_INT(comm_us_to_ns(1736408883732241.5), 1736408883732241500LL);
    CHECK_INT(comm_us_to_ns(1695115378810042.5), 1695115378810042500LL);
    CHECK_INT(comm_us_to_ns(-2.0005), -2001);   /* half away from zero */
    CHECK_INT(comm_us_to_ns(0.0004), 0);
    CHECK_INT(comm_us_to_ns(79089.52021875), 79089520);
    CHECK(comm_us_to_ns(1e16) == NS_NONE);
    CHECK(comm_us_to_ns(NAN) == NS_NONE);
    CHECK_INT(comm_step_number("step50"), 50);
    CHECK_INT(comm_step_number("12"), 12);
    CHECK_INT(comm_step_number("step"), -1);
    CHECK_INT(comm_step_number("step5x"), -1);
}
