/* Collectives across ranks and the link matrix: on the generated capture with planted late
 * arrivers and a planted slow link (tools/gen_comm_fixtures.py, answers in its
 * EXPECTED.json), on hand-made edge cases, and against the independent check on the real
 * multi-rank captures (tests/checks/comm_check.py). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/analysis/comm.h"
#include "model/analysis/comm_links.h"
#include "model/analysis/comm_match.h"
#include "report/report.h"

#define FIX "fixtures/comm_xrank"


static cJSON *expected(void)
{
    char *buf = test_read_file(FIX "/EXPECTED.json", NULL);
    cJSON *j = buf ? cJSON_Parse(buf) : NULL;
    free(buf);
    return j;
}

/* Session index of rank number r, or SIZE_MAX. */
static size_t index_of_rank(const struct session *s, int r)
{
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].rank == r)
            return i;
    return SIZE_MAX;
}

/* The op named name in rank index ri's comm, or SIZE_MAX. */
static size_t op_named(const struct session *s, size_t ri, const char *name)
{
    const struct comm *c = ri < s->nranks ? s->ranks[ri].comm : NULL;
    for (size_t k = 0; c && k < c->nops; k++)
        if (!strcmp(strtab_get(c->str, c->ops[k].name), name))
            return k;
    return SIZE_MAX;
}

static bool same_number(const char *a, const char *b)
{
    int c = 2;
    return a && b && decimal_cmp(a, b, &c) && c == 0;
}

TEST(comm_xrank_planted_late_arrivers)
{
    cJSON *e = expected();
    if (!e)
        SKIP("fixtures not generated (make fixtures)");
    struct test_loaded l;
    CHECK(test_load(&l, FIX));
    CHECK_INT(l.s ? l.s->nranks : 0, 4);
    struct comm_instances ci;
    CHECK_INT(comm_instances_build(l.s, &ci), 0);
    CHECK_INT(ci.n, 7);   /* six collectives and one p2p */
    const cJSON *inst;
    size_t k = 0;
    cJSON_ArrayForEach(inst, cJSON_GetObjectItem(e, "instances")) {
        const cJSON *names = cJSON_GetObjectItem(inst, "names");
        /* rank 0's op of this instance; every rank's op (named differently) is in it */
        size_t r0 = index_of_rank(l.s, 0), q0 = op_named(l.s, r0, cJSON_GetArrayItem(names, 0)->valuestring);
        CHECK(q0 != SIZE_MAX);
        if (q0 == SIZE_MAX)
            continue;
        uint32_t t = ci.of[r0][q0];
        CHECK(t != COMM_NO_INSTANCE);
        if (t == COMM_NO_INSTANCE)
            continue;
        const struct comm_instance *in = &ci.inst[t];
        CHECK_INT(in->n, 4);
        for (int r = 0; r < 4; r++) {
            size_t ri = index_of_rank(l.s, r), q = op_named(l.s, ri, cJSON_GetArrayItem(names, r)->valuestring);
            CHECK(q != SIZE_MAX && ci.of[ri][q] == t);
        }
        int last = cJSON_GetObjectItem(inst, "last_arriver")->valueint;
        CHECK(in->last != COMM_NO_INSTANCE);
        if (in->last != COMM_NO_INSTANCE) {
            CHECK_INT(l.s->ranks[ci.mem[in->last].rank].rank, last);
            char buf[128];
            const char *caused = decimal_sum_text(&in->caused, buf, sizeof buf);
            CHECK(same_number(caused, cJSON_GetObjectItem(inst, "caused_wait_ms")->valuestring));
        }
        k++;
    }
    CHECK_INT(k, 6);
    /* the planted ones: rank 3 late at the third collective, rank 1 at the fifth */
    const cJSON *third = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "instances"), 2);
    const cJSON *fifth = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "instances"), 4);
    CHECK_INT(cJSON_GetObjectItem(third, "last_arriver")->valueint, 3);
    CHECK_INT(cJSON_GetObjectItem(fifth, "last_arriver")->valueint, 1);
    /* the p2p sends all waited the same: nobody waited for anyone */
    const cJSON *p2p = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "p2p"), "names");
    size_t r0 = index_of_rank(l.s, 0), q = op_named(l.s, r0, cJSON_GetArrayItem(p2p, 0)->valuestring);
    CHECK(q != SIZE_MAX);
    if (q != SIZE_MAX && ci.of[r0][q] != COMM_NO_INSTANCE) {
        CHECK_INT(ci.inst[ci.of[r0][q]].n, 4);
        CHECK(ci.inst[ci.of[r0][q]].last == COMM_NO_INSTANCE);
    }
    comm_instances_done(&ci);

    /* the rank analysis votes with the same verdicts: rank 3 is the last arriver of 5 */
    struct rank_analysis a;
    CHECK_INT(rank_analysis_run(l.s, &a), 0);
    size_t r3 = index_of_rank(l.s, 3);
    CHECK(r3 != SIZE_MAX && a.r[r3].waited_on == 5 && a.waited_for == (int)r3);
    rank_analysis_done(&a);

    /* the report section: one row per op per rank, aggregates left out, --rank filters */
    struct report_opts o = { .format = FMT_JSON, .rank = -1 };
    struct rowset *rs = report_comm_ranks(l.s, &o);
    CHECK(rs && rs->nrows == 28);
    size_t c_last = rs ? rowset_find_col(rs, "last_arriver") : SIZE_MAX;
    size_t lasts = 0;
    for (size_t r = 0; rs && r < rs->nrows; r++)
        lasts += !strcmp(strtab_get(rs->str, rowset_cell(rs, r, c_last)->s), "true");
    CHECK_INT(lasts, 6);
    rowset_free(rs);
    o.rank = 2;
    rs = report_comm_ranks(l.s, &o);
    CHECK(rs && rs->nrows == 7);
    rowset_free(rs);

    /* the view's rowset: one row per instance, caused wait and 4 columns per rank */
    CHECK_INT(comm_instances_build(l.s, &ci), 0);
    rs = comm_instances_rowset(l.s, &ci);
    CHECK(rs && rs->nrows == 7 && rowset_find_col(rs, "r3_arrival_us") != SIZE_MAX);
    if (rs && ci.n == 7) {
        /* the third collective's arrivals: rank 3 4.5 ms after the first arrival */
        size_t c = rowset_find_col(rs, "r3_arrival_us"), c0 = rowset_find_col(rs, "r0_arrival_us");
        for (size_t r = 0; r < rs->nrows; r++) {
            const char *nm = strtab_get(rs->str, rowset_cell(rs, r, rowset_find_col(rs, "name"))->s);
            if (!strcmp(nm, "hcom_allGather__321_2_1")) {
                CHECK_INT(rowset_cell(rs, r, c)->i, 4505250);
                CHECK_INT(rowset_cell(rs, r, c0)->i, 0);
            }
        }
    }
    rowset_free(rs);
    comm_instances_done(&ci);
    test_unload(&l);
    cJSON_Delete(e);
}

TEST(comm_xrank_link_matrix_planted_slow)
{
    cJSON *e = expected();
    if (!e)
        SKIP("fixtures not generated (make fixtures)");
    struct test_loaded l;
    CHECK(test_load(&l, FIX));
    struct comm_linkmat m;
    CHECK_INT(comm_links_build(l.s, &m), 0);
    CHECK_INT(m.n, 12);   /* the -top1/-middle/-bottom1 samples are not summed again */
    size_t found = 0, slow = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "links")) {
        for (size_t i = 0; i < m.n; i++) {
            const struct comm_linkagg *a = &m.l[i];
            if (a->src != cJSON_GetObjectItem(x, "src")->valueint || a->dst != cJSON_GetObjectItem(x, "dst")->valueint
                || strcmp(a->transport, cJSON_GetObjectItem(x, "transport")->valuestring))
                continue;
            found++;
            char b1[128], b2[128], b3[64];
            CHECK(same_number(decimal_sum_text(&a->size_mb, b1, sizeof b1), cJSON_GetObjectItem(x, "size_mb")->valuestring));
            CHECK(same_number(decimal_sum_text(&a->time_ms, b2, sizeof b2), cJSON_GetObjectItem(x, "time_ms")->valuestring));
            CHECK(same_number(comm_scaled_text(a->gbps_e4, 4, b3, sizeof b3), cJSON_GetObjectItem(x, "bandwidth_gbps")->valuestring));
            CHECK_INT(a->slow, cJSON_IsTrue(cJSON_GetObjectItem(x, "slow")));
            slow += a->slow;
            if (a->slow)
                CHECK(a->src == 2 && a->dst == 3);
        }
    }
    CHECK_INT(found, 12);
    CHECK_INT(slow, 1);
    comm_links_done(&m);
    test_unload(&l);
    cJSON_Delete(e);
}

TEST(comm_xrank_helpers)
{
    const char *g, *t;
    size_t gl, tl;
    comm_op_group("hcom_allReduce__586_0_1@17522688603477080586", &g, &gl);
    CHECK(gl == 20 && !strncmp(g, "17522688603477080586", gl));
    comm_op_type("hcom_allReduce__586_0_1@17522688603477080586", &t, &tl);
    CHECK(tl == 14 && !strncmp(t, "hcom_allReduce", tl));
    comm_op_group("ncclDevKernel_AllReduce_Sum_f32_RING_LL", &g, &gl);
    CHECK_INT(gl, 0);
    comm_op_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL", &t, &tl);
    CHECK_INT(tl, strlen("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    comm_op_type("name_without@group__x", &t, &tl);   /* "__" after the '@' is not the type's end */
    CHECK_INT(tl, 12);
    CHECK(comm_link_group_is_sample("allreduce-top1@1752"));
    CHECK(comm_link_group_is_sample("allreduce-bottom12@1752"));
    CHECK(comm_link_group_is_sample("allgather-middle"));
    CHECK(!comm_link_group_is_sample("allreduce-total@1752"));
    CHECK(!comm_link_group_is_sample("hcom_allReduce__483_2@9350434047717501483"));
    CHECK(!comm_link_group_is_sample("x-top@1"));
    int c = 9;
    CHECK(decimal_cmp("0.0724014375", "0.07240143750", &c) && c == 0);
    CHECK(decimal_cmp("2e-05", "0.00001", &c) && c == 1);
    CHECK(decimal_cmp("-1", "0", &c) && c == -1);
    CHECK(!decimal_cmp("abc", "1", &c));
    char b[32];
    CHECK_STR(comm_scaled_text(157599, 4, b, sizeof b), "15.7599");
    CHECK_STR(comm_scaled_text(170000, 4, b, sizeof b), "17.0");
    CHECK_STR(comm_scaled_text(-5, 5, b, sizeof b), "-0.00005");
}

/* Two ranks built by hand: ties, missing waits, a rank without comm, overflowing figures. */
TEST(comm_xrank_edge_cases)
{
    struct rank_data rd[3];
    memset(rd, 0, sizeof rd);
    struct session s = { .ranks = rd, .nranks = 3 };
    for (int r = 0; r < 2; r++) {
        rd[r].rank = r;
        struct comm *c = comm_new();
        rd[r].comm = c;
        static const char *const waits[2][3] = { { "0.5", "0", NULL }, { "0.5000", "1e400", "0.1" } };
        for (int k = 0; k < 3; k++) {
            struct comm_op op = { .kind = COMM_COLLECTIVE };
            op.step = strtab_intern_cstr(c->str, "step1");
            char nm[64];
            snprintf(nm, sizeof nm, "hcom_allReduce__1_%d@77", k + 10 * r);
            op.name = strtab_intern_cstr(c->str, nm);
            op.text[comm_bit_index(CF_START)] = strtab_intern_cstr(c->str, k ? "100.5" : "100");
            op.has = CF_START;
            if (waits[r][k]) {
                op.has |= CF_WAIT;
                op.text[comm_bit_index(CF_WAIT)] = strtab_intern_cstr(c->str, waits[r][k]);
                op.wait_ms = strtod(waits[r][k], NULL);
            }
            comm_add_op(c, &op);
        }
    }
    rd[2].rank = 2;   /* no comm at all */
    struct comm_instances ci;
    CHECK_INT(comm_instances_build(&s, &ci), 0);
    CHECK_INT(ci.n, 3);
    /* equal waits written differently ("0.5" and "0.5000"): nobody waited for anyone */
    CHECK(ci.inst[ci.of[0][0]].last == COMM_NO_INSTANCE);
    /* 0 against 1e400: compared by value even when the digits do not fit */
    const struct comm_instance *in = &ci.inst[ci.of[0][1]];
    CHECK(in->last != COMM_NO_INSTANCE && ci.mem[in->last].rank == 0);
    /* a wait on one rank only: undecided */
    CHECK(ci.inst[ci.of[0][2]].last == COMM_NO_INSTANCE);
    CHECK(ci.of[2] == NULL);
    comm_instances_done(&ci);
    struct rowset *rs = comm_ranks_ops_rowset(&s, -1);
    CHECK(rs && rs->nrows == 6);
    rowset_free(rs);
    comm_free(rd[0].comm);
    comm_free(rd[1].comm);

    /* nothing to match */
    struct session empty = { 0 };
    CHECK_INT(comm_instances_build(&empty, &ci), 0);
    CHECK_INT(ci.n, 0);
    comm_instances_done(&ci);
    CHECK(comm_ranks_ops_rowset(&empty, -1) == NULL);
    CHECK(comm_links_rowset(&empty, -1) == NULL);
}

/* The independent computation on the real multi-rank captures (json/sqlite3 only). */
TEST(comm_xrank_equals_independent_check)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "APTOP_BIN='%s' python3 tests/checks/run.py comm 2>&1", test_bin());
    int st = -1;
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "comm ") && strstr(out, " ok "));
    if (test_failed_now() && out)
        fprintf(stderr, "%s", out);
    free(out);
}
