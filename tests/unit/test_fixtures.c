/* The generated fixtures (tools/gen_fixtures.py → fixtures/) agree with their EXPECTED.json
 * as far as capture discovery goes: ranks, devices, directories, files and their kinds. */
#include <cJSON.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/discovery/capture.h"
#include "model/index/diag.h"
#include "../runner.h"

#define FIXTURES "fixtures"

static cJSON *load_expected(const char *fixture)
{
    char p[512];
    snprintf(p, sizeof p, FIXTURES "/%s/EXPECTED.json", fixture);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                break;
            buf = nb;
        }
    }
    fclose(f);
    cJSON *j = buf ? cJSON_ParseWithLength(buf, len) : NULL;
    free(buf);
    return j;
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valueint : -999;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const char *rel(const struct capture_rank *r, const struct capture_file *f)
{
    size_t n = strlen(r->dir);
    return !strncmp(f->path, r->dir, n) && f->path[n] == '/' ? f->path + n + 1 : f->path;
}

/* The rank's files are exactly the expected list (same order: both sorted by path). */
static void check_files(const struct capture_rank *r, const cJSON *files)
{
    CHECK_INT(r->nfiles, cJSON_GetArraySize(files));
    size_t i = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, files) {
        if (i >= r->nfiles)
            break;
        CHECK_STR(rel(r, &r->files[i]), str(f, "path"));
        CHECK_STR(file_kind_name(r->files[i].kind), str(f, "kind"));
        const cJSON *pb = cJSON_GetObjectItemCaseSensitive(f, "problem");
        CHECK_INT(r->files[i].problem != NULL, cJSON_IsTrue(pb));
        i++;
    }
}

static void check_class_fixture(const char *fixture, enum capture_class cls)
{
    cJSON *e = load_expected(fixture);
    if (!e) {
        SKIP("fixtures not generated (make fixtures)");
    }
    char p[512];
    snprintf(p, sizeof p, FIXTURES "/%s", fixture);
    struct capture c;
    struct diag *d = diag_new();
    CHECK_INT(capture_discover(p, &c, d), 0);
    CHECK_INT(diag_count(d), 0);      /* analysed, complete, nothing to say */
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(e, "ranks");
    CHECK_INT(c.nranks, num(e, "rank_count"));
    CHECK_INT(c.nranks, cJSON_GetArraySize(ranks));
    size_t i = 0;
    const cJSON *er;
    cJSON_ArrayForEach(er, ranks) {
        if (i >= c.nranks)
            break;
        const struct capture_rank *r = &c.ranks[i++];
        CHECK_INT(r->rank, num(er, "rank"));
        CHECK_INT(r->device, num(er, "device"));
        CHECK_STR(r->label, str(er, "dir"));
        CHECK_INT(r->cls, cls);
        CHECK(r->problem == NULL);
        check_files(r, cJSON_GetObjectItemCaseSensitive(er, "files"));
    }
    capture_free(&c);
    diag_free(d);
    cJSON_Delete(e);
}

TEST(fixture_vllm_discovery)
{
    check_class_fixture("vllm_decode_2rank", CLASS_A);
}

TEST(fixture_classb_discovery)
{
    check_class_fixture("prof_classb", CLASS_B);
}

TEST(fixture_broken_discovery)
{
    cJSON *e = load_expected("broken");
    if (!e)
        SKIP("fixtures not generated (make fixtures)");
    struct capture c;
    struct diag *d = diag_new();
    CHECK_INT(capture_discover(FIXTURES "/broken", &c, d), 0);
    /* each case folder is a capture of its own: one is shown, the others listed, none is a
     * rank of another */
    CHECK_INT(c.nranks, 1);
    CHECK_INT(c.ngroups, num(e, "rank_count"));
    CHECK_INT(c.nranks + c.nother, num(e, "rank_count"));
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(e, "cases"), *cs;
    int loadable_ranks = 0;
    cJSON_ArrayForEach(cs, cases) {
        const struct capture_rank *r = NULL;
        for (size_t i = 0; i < c.nranks; i++)
            if (!strcmp(c.ranks[i].label, cs->string))
                r = &c.ranks[i];
        for (size_t i = 0; i < c.nother; i++)
            if (!strcmp(c.other[i].label, cs->string))
                r = &c.other[i];
        CHECK(r != NULL);
        if (!r)
            continue;
        check_files(r, cJSON_GetObjectItemCaseSensitive(cs, "files"));
        int any = 0;
        for (size_t k = 0; k < r->nfiles; k++)
            any |= capture_file_loadable(&r->files[k]);
        CHECK_INT(any, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cs, "loadable")));
        loadable_ranks += any;
    }
    CHECK_INT(loadable_ranks, num(e, "loadable_ranks"));
    capture_free(&c);
    diag_free(d);
    /* the empty case alone has nothing to load */
    d = diag_new();
    CHECK_INT(capture_discover(FIXTURES "/broken/empty_file", &c, d), 1);
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 1);
    capture_free(&c);
    diag_free(d);
    cJSON_Delete(e);
}

/* EXPECTED.json of the vLLM fixture is consistent with itself: the trace's device kernels
 * are the kernel_details rows minus the collectives, the steps hold every kernel. */
TEST(fixture_vllm_expected_consistent)
{
    cJSON *e = load_expected("vllm_decode_2rank");
    if (!e)
        SKIP("fixtures not generated (make fixtures)");
    const cJSON *er;
    cJSON_ArrayForEach(er, cJSON_GetObjectItemCaseSensitive(e, "ranks")) {
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(er, "trace");
        const cJSON *kd = cJSON_GetObjectItemCaseSensitive(er, "kernel_details");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(er, "steps");
        const cJSON *k;
        int count = 0;
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(tr, "kernels")) {
            const cJSON *row = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kd, "kernels"), k->string);
            CHECK(row != NULL);
            CHECK_INT(num(k, "count"), num(row, "count"));
            count += num(k, "count");
        }
        CHECK_INT(count, num(tr, "kernel_count"));
        int comm = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(er, "comm_ops_elapse_ms"));
        CHECK(comm > 0);
        CHECK_INT(count + comm, num(kd, "rows"));
        int in_steps = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(st, "list"))
            in_steps += num(s, "kernels") + num(s, "collectives");
        CHECK_INT(in_steps, num(kd, "rows"));
        CHECK_INT(num(st, "count"), 5);
        CHECK_INT(num(st, "profiler_step_markers"), 0);
        const cJSON *an = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tr, "flows"), "async_npu");
        CHECK_INT(num(an, "pairs"), num(kd, "rows"));
    }
    cJSON_Delete(e);
}

/* Every bandwidth figure the generator writes (communication.json per transport,
 * communication_matrix.json per link) is its size over its time (MB / ms = GB/s) and in the
 * range real links reach (a few to a few hundred GB/s), as in captures of real jobs. */
static void check_bandwidths(const cJSON *o, int *checked, int *bad)
{
    if (!cJSON_IsObject(o) && !cJSON_IsArray(o))
        return;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "Bandwidth(GB/s)");
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(o, "Transit Size(MB)");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "Transit Time(ms)");
    if (cJSON_IsNumber(g) && cJSON_IsNumber(mb) && cJSON_IsNumber(ms) && mb->valuedouble > 0 && ms->valuedouble > 0) {
        double want = mb->valuedouble / ms->valuedouble;
        ++*checked;
        if (fabs(g->valuedouble - want) > 1e-4 + 1e-6 * want || want < 0.5 || want > 1000) {
            if (!(*bad)++)
                printf("  bandwidth %.4f GB/s for %.6f MB in %.6f ms\n", g->valuedouble, mb->valuedouble,
                       ms->valuedouble);
        }
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, o)
        check_bandwidths(c, checked, bad);
}

TEST(fixture_bandwidths_plausible)
{
    glob_t gl;
    if (glob(FIXTURES "/*/*/ASCEND_PROFILER_OUTPUT/communication*.json", 0, NULL, &gl) || !gl.gl_pathc) {
        globfree(&gl);
        SKIP("fixtures not generated (make fixtures)");
    }
    int checked = 0, bad = 0;
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        FILE *f = fopen(gl.gl_pathv[i], "rb");
        CHECK(f != NULL);
        if (!f)
            continue;
        static char buf[1 << 22];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        cJSON *j = cJSON_ParseWithLength(buf, len);
        CHECK(j != NULL);
        check_bandwidths(j, &checked, &bad);
        cJSON_Delete(j);
    }
    globfree(&gl);
    CHECK(checked > 100);
    CHECK_INT(bad, 0);
}
