/* End to end: the whole load path (discovery, loader, readers, analyses) on the generated
 * two-rank capture, compared with the generator's own known answers in EXPECTED.json. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/analysis/steps.h"
#include "report/report.h"

static cJSON *read_json(const char *path)
{
    char *buf = test_read_file(path, NULL);
    cJSON *j = buf ? cJSON_Parse(buf) : NULL;
    free(buf);
    return j;
}

static int64_t jint(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

TEST(e2e_fixture_matches_expected)
{
    const char *dir = "fixtures/vllm_decode_2rank";
    cJSON *exp = read_json("fixtures/vllm_decode_2rank/EXPECTED.json");
    if (!exp)
        SKIP("fixtures not generated (make fixtures)");
    struct diag *d = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover(dir, &c, d), 0);
    struct session *s = session_new(&c, d);
    struct loader_opts o = { .rank = -1 };
    CHECK(loader_run_sync(&c, s, &o) > 0);
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(exp, "ranks");
    CHECK_INT(s->nranks, cJSON_GetArraySize(ranks));
    const cJSON *er;
    size_t i = 0;
    cJSON_ArrayForEach(er, ranks) {
        if (i >= s->nranks)
            break;
        struct rank_data *rd = &s->ranks[i++];
        CHECK_INT(rd->rank, jint(er, "rank"));
        const struct model *m = rd->model;
        CHECK(m != NULL);
        if (!m)
            continue;
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(er, "trace");
        CHECK_INT(m->events, jint(tr, "events"));
        const cJSON *ph;
        cJSON_ArrayForEach(ph, cJSON_GetObjectItemCaseSensitive(tr, "events_by_ph"))
            CHECK_INT(m->events_by_ph[(unsigned char)ph->string[0]], (int64_t)ph->valuedouble);
        /* device kernels by name, exact to the ns */
        size_t n = 0;
        struct agg_row *rows = model_aggregate(m, NULL, 0, LANE_DEVICE, INT64_MIN, INT64_MAX, &n);
        const cJSON *k;
        size_t names = 0;
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(tr, "kernels")) {
            names++;
            const struct agg_row *hit = NULL;
            for (size_t r = 0; r < n; r++)
                if (!strcmp(model_str(m, rows[r].name), k->string))
                    hit = &rows[r];
            CHECK(hit != NULL);
            if (hit) {
                CHECK_INT(hit->count, jint(k, "count"));
                CHECK_INT(hit->total, jint(k, "total_ns"));
            }
        }
        CHECK_INT(n, names);
        free(rows);
        /* steps: count, phases, first kernel start */
        const cJSON *es = cJSON_GetObjectItemCaseSensitive(er, "steps");
        CHECK(rd->steps != NULL);
        CHECK_INT(steps_count(rd->steps), jint(es, "count"));
        const cJSON *st;
        size_t j = 0;
        cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(es, "list")) {
            if (j >= steps_count(rd->steps))
                break;
            const struct step *got = steps_get(rd->steps, j++);
            CHECK_STR(step_phase_name(got->phase), cJSON_GetObjectItemCaseSensitive(st, "phase")->valuestring);
            /* JSON numbers this large hold ~256 ns of precision as doubles */
            CHECK_NEAR((double)got->start, cJSON_GetObjectItemCaseSensitive(st, "start_ns")->valuedouble, 1000.0);
            CHECK_INT(got->kernels, jint(st, "kernels"));
        }
        CHECK(rd->tables[TK_KERNELS] != NULL);
        CHECK(rd->comm != NULL);
    }
    session_free(s);
    capture_free(&c);
    diag_free(d);
    cJSON_Delete(exp);
}

/* A generated four-rank job whose rank 2 computes 35% slower: the whole load path names it
 * the rank the others wait for, and every rank's mean step is the mean of the durations the
 * steps section shows for that rank (one step, one duration). */
TEST(e2e_four_ranks_slow_rank_named)
{
    cJSON *exp = read_json("fixtures/ranks4_slow/EXPECTED.json");
    if (!exp)
        SKIP("fixtures not generated (make fixtures)");
    struct diag *d = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover("fixtures/ranks4_slow", &c, d), 0);
    struct session *s = session_new(&c, d);
    struct loader_opts o = { .rank = -1 };
    CHECK(loader_run_sync(&c, s, &o) > 0);
    CHECK_INT(s->nranks, 4);
    struct report_opts ro = { .rank = -1 };
    struct rowset *rs = report_ranks(s, &ro);
    struct rowset *steps = report_steps(s, &ro);
    CHECK(rs != NULL && steps != NULL);
    if (rs && steps) {
        size_t c_rank = rowset_find_col(rs, "rank"), c_slow = rowset_find_col(rs, "waited_for");
        size_t c_mean = rowset_find_col(rs, "step_us_mean");
        size_t s_rank = rowset_find_col(steps, "rank"), s_dur = rowset_find_col(steps, "dur_us");
        CHECK(c_rank != SIZE_MAX && c_slow != SIZE_MAX && c_mean != SIZE_MAX);
        int slowest = -1, named = 0;
        const cJSON *er;
        cJSON_ArrayForEach(er, cJSON_GetObjectItemCaseSensitive(exp, "ranks")) {
            int rank = (int)jint(er, "rank");
            ns_t sum = 0, n = 0;
            for (size_t r = 0; r < steps->nrows; r++)
                if (rowset_cell(steps, r, s_rank)->i == rank) {
                    sum += rowset_cell(steps, r, s_dur)->i;
                    n++;
                }
            CHECK(n > 0);
            for (size_t r = 0; r < rs->nrows && c_mean != SIZE_MAX && n; r++)
                if (rowset_cell(rs, r, c_rank)->i == rank)
                    CHECK_NEAR((double)rowset_cell(rs, r, c_mean)->i, (double)sum / (double)n, 0.5);
        }
        for (size_t r = 0; r < rs->nrows && c_slow != SIZE_MAX; r++)
            if (!rowset_is_null(rs, r, c_slow) && rowset_cell(rs, r, c_slow)->i) {
                slowest = (int)rowset_cell(rs, r, c_rank)->i;
                named++;
            }
        CHECK_INT(named, 1);
        CHECK_INT(slowest, jint(exp, "slow_rank"));
    }
    rowset_free(rs);
    rowset_free(steps);
    session_free(s);
    capture_free(&c);
    diag_free(d);
    cJSON_Delete(exp);
}
