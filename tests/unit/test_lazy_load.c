/* The two-pass load (io/load/loader.h with max_ranks) driven as the UI thread drives it: every
 * rank's small files, then each timeline, give the very report a one-pass load gives (text
 * and CSV, Class B in parts, the 64-rank capture, the real text and DB exports); a rank's timeline freed to make room
 * takes its model, kernel table, steps and flow figures with it and keeps what came from its
 * small files; read again, the figures are the same. Also the split of a rank's files. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "io/load/rank_split.h"
#include "model/analysis/steps.h"
#include "report/report.h"

#define SECTIONS "kernels,ops,apis,step_trace,flows,steps,phases,ranks,comm,comm_ranks,comm_matrix,overview," \
                 "advice,capture,rank_steps,comm_ends,memory,memory_ops,memory_static,memory_ranks"

/* The report of every section but the load's own (time, diagnostics), as text. */
static char *report_text(const struct session *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct report_opts ro = { .sections = SECTIONS, .format = FMT_JSON, .rank = -1 };
    report_print(s, &ro, f);
    fclose(f);
    return buf;
}

/* The UI thread's turns until cond holds (or 30 s pass): install, plan, wait for the loader. */
static bool pump(struct loader *l, size_t keep, bool (*cond)(struct loader *, void *), void *arg)
{
    for (int i = 0; i < 3000; i++) {
        loader_apply(l);
        size_t evicted;
        loader_tick(l, keep, &evicted);
        bool ok = cond(l, arg);   /* every turn: conditions may watch the way there */
        if (ok && loader_done(l))
            return true;
        struct pollfd pf = { .fd = loader_fd(l), .events = POLLIN };
        poll(&pf, 1, 10);
    }
    return false;
}

static bool all_read(struct loader *l, void *arg)
{
    size_t n = *(size_t *)arg;
    for (size_t i = 0; i < n; i++) {
        enum lru_state st = loader_rank_state(l, i);
        if (st != LRU_IN && st != LRU_NONE)
            return false;
    }
    return true;
}

static bool rank_in(struct loader *l, void *arg)
{
    return loader_rank_state(l, *(size_t *)arg) == LRU_IN;
}

static void check_same_as_one_pass(const char *dir)
{
    struct diag *d1 = diag_new(), *d2 = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover(dir, &c, d1), 0);
    struct session *one = session_new(&c, d1), *two = session_new(&c, d2);
    struct loader_opts o = { .rank = -1 };
    CHECK(loader_run_sync(&c, one, &o) > 0);
    o.max_ranks = (unsigned)c.nranks;
    struct loader *l = loader_start(&c, two, &o);
    CHECK(l != NULL);
    size_t n = c.nranks;
    CHECK(l && pump(l, 0, all_read, &n));
    char *a = report_text(one), *b = report_text(two);
    CHECK(a && b && strlen(a) > 1000);
    if (a && b && strcmp(a, b)) {
        size_t k = 0;
        while (a[k] && a[k] == b[k])
            k++;
        printf("    %s: the reports differ at byte %zu:\n    one pass: %.200s\n    two passes: %.200s\n", dir, k,
               a + (k > 80 ? k - 80 : 0), b + (k > 80 ? k - 80 : 0));
        CHECK(!"same report");
    }
    for (size_t i = 0; i < n; i++)
        CHECK_INT(two->ranks[i].files_read, one->ranks[i].files_read);
    free(a);
    free(b);
    loader_stop(l);
    session_free(one);
    session_free(two);
    capture_free(&c);
    diag_free(d1);
    diag_free(d2);
}

TEST(lazy_load_two_passes_give_the_one_pass_report)
{
    static const char *const dirs[] = { "fixtures/vllm_decode_2rank", "fixtures/prof_classb", "fixtures/lazy64",
                                        "fixtures/ranks4_slow" };
    if (!test_is_dir(dirs[0]))
        SKIP("fixtures not generated (make fixtures)");
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (test_is_dir(dirs[i]))
            check_same_as_one_pass(dirs[i]);
}

TEST(lazy_load_two_passes_give_the_one_pass_report_real)
{
    static const char *const rel[] = { "Ascend-msinsight/test/data/pytorch/text/level0",
                                       "Ascend-msinsight/test/data/pytorch/text/level1",
                                       "Ascend-msinsight/test/data/pytorch/text/level2",
                                       "Ascend-msinsight/test/data/pytorch/db/level1",
                                       "Ascend-msinsight/test/data/pytorch/db/level2" };
    if (!test_real_dir())
        SKIP("../shared/real not found");
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        const char *p = test_real(rel[i]);
        if (p && test_is_dir(p))
            check_same_as_one_pass(p);
    }
}

TEST(lazy_load_evicted_rank_keeps_its_small_files_and_reads_again)
{
    const char *dir = "fixtures/vllm_decode_2rank";
    if (!test_is_dir(dir))
        SKIP("fixtures not generated (make fixtures)");
    struct diag *d = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover(dir, &c, d), 0);
    struct session *s = session_new(&c, d);
    struct loader_opts o = { .rank = -1, .max_ranks = 1, .on_demand = true };
    struct loader *l = loader_start(&c, s, &o);
    CHECK(l != NULL && c.nranks == 2);
    if (!l || c.nranks != 2)
        return;
    size_t r0 = 0, r1 = 1;
    /* on demand: the small files only, until a rank is opened */
    CHECK(pump(l, 0, all_read, &(size_t){ 0 }));
    CHECK(s->ranks[0].model == NULL && s->ranks[0].comm != NULL && s->ranks[0].tables[TK_STEP_TRACE] != NULL);
    CHECK_STR(s->ranks[0].status, "not loaded: Enter loads it");
    CHECK_INT(loader_timelines_in(l), 0);
    loader_want(l, 0);
    CHECK(pump(l, 0, rank_in, &r0));
    struct rank_data *rd = &s->ranks[0];
    CHECK(rd->model && rd->tables[TK_KERNELS] && rd->steps && rd->flowstats);
    size_t slices = rd->model ? rd->model->nslices : 0, steps = steps_count(rd->steps);
    unsigned files = rd->files_read;
    const struct comm *comm = rd->comm;
    /* rank 1 opened: rank 0 is freed to make room, its small files stay */
    loader_want(l, 1);
    CHECK(pump(l, 1, rank_in, &r1));
    CHECK_INT(loader_timelines_in(l), 1);
    CHECK(rd->model == NULL && rd->tables[TK_KERNELS] == NULL && rd->steps == NULL && rd->flowstats == NULL);
    CHECK(rd->comm == comm && rd->tables[TK_STEP_TRACE] != NULL);
    CHECK_STR(rd->status, "evicted: Enter loads it");
    CHECK(rd->files_read < files);
    CHECK(s->ranks[1].model != NULL);
    /* and read again: the same figures, without repeating its diagnostics */
    size_t before = diag_count(d);
    loader_want(l, 0);
    CHECK(pump(l, 0, rank_in, &r0));
    CHECK(rd->model && rd->model->nslices == slices && steps_count(rd->steps) == steps);
    CHECK_INT(rd->files_read, files);
    CHECK_INT(diag_count(d), before);
    CHECK(s->ranks[1].model == NULL);
    loader_stop(l);
    session_free(s);
    capture_free(&c);
    diag_free(d);
}

TEST(lazy_load_split_of_a_rank)
{
    const char *dir = "fixtures/vllm_decode_2rank";
    if (!test_is_dir(dir))
        SKIP("fixtures not generated (make fixtures)");
    struct diag *d = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover(dir, &c, d), 0);
    for (size_t r = 0; r < c.nranks; r++) {
        struct rank_split sp;
        CHECK_INT(rank_split_make(&c.ranks[r], false, &sp), 0);
        CHECK(rank_split_has_timeline(&sp, false));
        size_t clocks = 0;
        for (size_t i = 0; i < c.ranks[r].nfiles; i++)
            clocks += c.ranks[r].files[i].kind == FK_CLOCK;
        /* every file in one half, the clock files in both */
        CHECK_INT(sp.small.nfiles + sp.timeline.nfiles, c.ranks[r].nfiles + clocks);
        for (size_t i = 0; i < sp.small.nfiles; i++) {
            enum file_kind k = sp.small.files[i].kind;
            CHECK(k != FK_TRACE_JSON && k != FK_KERNEL_DETAILS && k != FK_MEMORY_CSV);
        }
        for (size_t i = 0; i < sp.timeline.nfiles; i++) {
            enum file_kind k = sp.timeline.files[i].kind;
            CHECK(k != FK_COMMUNICATION && k != FK_STEP_TRACE_TIME && k != FK_PROFILER_METADATA);
        }
        CHECK(rank_split_timeline_bytes(&sp) > 0);
        rank_split_free(&sp);
    }
    /* the memory check of two passes counts the small files and the largest timelines only */
    CHECK_INT(rank_split_memcheck(&c, false, 1, d), 0);
    capture_free(&c);
    diag_free(d);
}

/* Ranks in memory (installed models) never more than the limit. */
static size_t models_in(const struct session *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nranks; i++)
        k += s->ranks[i].model != NULL;
    return k;
}

struct opened { struct session *s; size_t rank, max; bool over; };

static bool opened_in(struct loader *l, void *arg)
{
    struct opened *o = arg;
    o->over |= models_in(o->s) > o->max || loader_timelines_in(l) > o->max;
    return loader_rank_state(l, o->rank) == LRU_IN;
}

TEST(lazy_load_ranks_opened_during_the_background_stay_within_the_limit)
{
    const char *dir = "fixtures/lazy64";
    if (!test_is_dir(dir))
        SKIP("fixtures not generated (make fixtures)");
    struct diag *d = diag_new();
    struct capture c = { 0 };
    CHECK_INT(capture_discover(dir, &c, d), 0);
    struct session *s = session_new(&c, d);
    struct loader_opts o = { .rank = -1, .max_ranks = 8 };
    struct loader *l = loader_start(&c, s, &o);
    CHECK(l != NULL && c.nranks == 64);
    if (!l || c.nranks != 64)
        return;
    /* the background starts, then ranks are opened one after the other, some while it reads */
    struct opened op = { s, 0, 8, false };
    CHECK(pump(l, 0, opened_in, &op));
    static const size_t order[] = { 40, 50, 63, 2, 40, 17, 33, 9, 61, 62, 5, 50 };
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        op.rank = order[k];
        loader_want(l, op.rank);
        CHECK(pump(l, op.rank, opened_in, &op));
        CHECK(s->ranks[op.rank].model != NULL && s->ranks[op.rank].steps != NULL);
        CHECK(!op.over);
    }
    /* settled: the background filled what room there was, every rank out of memory says so */
    CHECK_INT(loader_timelines_in(l), 8);
    CHECK_INT(models_in(s), 8);
    for (size_t i = 0; i < 64; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (loader_rank_state(l, i) == LRU_IN)
            CHECK(rd->model && rd->tables[TK_KERNELS] && !strncmp(rd->status, "loaded", 6));
        else
            CHECK(!rd->model && !rd->tables[TK_KERNELS] && !rd->steps && strstr(rd->status, "Enter loads it"));
        CHECK(rd->comm && rd->tables[TK_STEP_TRACE]);
    }
    loader_stop(l);
    session_free(s);
    capture_free(&c);
    diag_free(d);
}
