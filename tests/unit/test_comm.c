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

#include "io/comm_json.h"
#include "model/comm.h"
#include "model/diag.h"

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
 * bandwidths ("-" when absent), each as repr (which reads back to the same double). */
static const char py_ops[] =
    "import json,sys\n"
    "d=json.load(open(sys.argv[1]))\n"
    "T=['Start Timestamp(us)','Elapse Time(ms)','Transit Time(ms)','Wait Time(ms)',"
    "'Synchronization Time(ms)','Idle Time(ms)','Wait Time Ratio','Synchronization Time Ratio']\n"
    "for s,g in d.items():\n"
    " for k in ('collective','p2p'):\n"
    "  for op,v in (g.get(k) or {}).items():\n"
    "   t=v.get('Communication Time Info',{}); b=v.get('Communication Bandwidth Info',{})\n"
    "   f=[repr(t[x]) if x in t else '-' for x in T]\n"
    "   f+=[repr(b[x]['Bandwidth(GB/s)']) if x in b and 'Bandwidth(GB/s)' in b[x] else '-' for x in ('HCCS','RDMA','SDMA','PCIE','SIO')]\n"
    "   print('\\t'.join([s,k,op]+f))\n";

static char *python(const char *script, const char *arg, int *status)
{
    char tmp[] = "/tmp/aptop_test_comm_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *status = -1;
        return calloc(1, 1);
    }
    size_t len = strlen(script);
    CHECK_INT(write(fd, script, len), (long long)len);
    close(fd);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 %s '%s' 2>&1", tmp, arg);
    char *out = test_run(cmd, status);
    unlink(tmp);
    return out;
}

TEST(comm_real_ops_match_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    size_t total = 0;
    for (size_t r = 0; r < NREAL; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/communication.json", test_real(real_ranks[r]));
        struct diag *d = diag_new();
        struct comm *c = NULL;
        CHECK_INT(comm_load(path, &c, d), 0);
        CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
        int st;
        char *out = python(py_ops, path, &st);
        CHECK_INT(st, 0);
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
            }
            for (int t = 0; t < CT_COUNT; t++) {
                bool want = strcmp(f[11 + t], "-") != 0;
                CHECK_INT(!!(op->bw[t].has & CB_GBPS), want);
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
    "import json,sys\n"
    "d=json.load(open(sys.argv[1]))\n"
    "n=0; s=0.0\n"
    "for st,g in d.items():\n"
    " for k in ('collective','p2p'):\n"
    "  for grp,links in (g.get(k) or {}).items():\n"
    "   for l,v in links.items():\n"
    "    n+=1; s+=v.get('Transit Size(MB)',0)\n"
    "print(n, repr(s))\n";

TEST(comm_real_matrix_match_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    for (size_t r = 0; r < NREAL; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/communication_matrix.json", test_real(real_ranks[r]));
        struct diag *d = diag_new();
        struct comm *c = NULL;
        CHECK_INT(comm_load_matrix(path, &c, d), 0);
        CHECK_INT(diag_count_level(d, DIAG_WARN), 0);
        int st;
        char *out = python(py_matrix, path, &st);
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
