/* A slice's fields read off the caller's thread (io/load/slice_fields.h): the same fields
 * as the synchronous readers, a wake-up byte when done, and a job given up before it ends
 * freed by its own thread. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/load/slice_fields.h"
#include "io/trace/trace_args.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "../runner.h"

static const char doc[] =
    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"args\":{\"Input Dims\":\"1,2\",\"n\":{\"deep\":[1,2,3]}}},\n"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}]";

static struct model *load_doc(char *path, size_t size)
{
    if (!test_temp_file("slice-fields", doc, path, size))
        return NULL;
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    if (trace_json_load(m, path, d, NULL) != 0) {
        model_free(m);
        m = NULL;
    } else {
        model_finalize(m);
    }
    diag_free(d);
    return m;
}

static uint32_t slice_named(const struct model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nslices; i++)
        if (!strcmp(model_str(m, m->name[i]), name))
            return i;
    return SLICE_NONE;
}

TEST(slice_fields_off_thread_equal_the_args_and_wake)
{
    char path[256];
    struct model *m = load_doc(path, sizeof path);
    CHECK(m != NULL);
    if (!m)
        return;
    int p[2];
    CHECK(pipe(p) == 0);
    uint32_t a = slice_named(m, "a");
    struct slice_fields_job *j = slice_fields_start(m, a, p[1]);
    CHECK(j != NULL);
    struct pollfd pf = { .fd = p[0], .events = POLLIN };
    CHECK_INT(poll(&pf, 1, 10000), 1);   /* the wake-up byte comes */
    CHECK(slice_fields_done(j));
    CHECK_INT(slice_fields_pending(), 0);
    const struct slice_field *f;
    const char *err;
    size_t n = slice_fields_get(j, &f, &err);
    CHECK_INT(n, 2);
    CHECK_STR(err, "");
    CHECK_STR(slice_fields_what(j), "Args");
    if (n == 2) {
        CHECK_STR(f[0].section, "Args");
        CHECK_STR(f[0].key, "Input Dims");
        CHECK_STR(f[0].value, "1,2");
        CHECK_STR(f[1].key, "n");
        CHECK_STR(f[1].value, "{\"deep\":[1,2,3]}");
    }
    slice_fields_release(j);
    /* a slice without args: done at once, the reason said, no thread */
    j = slice_fields_start(m, slice_named(m, "b"), p[1]);
    CHECK(slice_fields_done(j));
    CHECK_INT(slice_fields_get(j, &f, &err), 0);
    CHECK(strstr(err, "no args") != NULL);
    slice_fields_release(j);
    /* read now equals the synchronous reader */
    j = slice_fields_read_now(m, a);
    char e2[256];
    cJSON *args = trace_args_load(m, a, e2, sizeof e2);
    CHECK_INT(slice_fields_get(j, &f, &err), cJSON_GetArraySize(args));
    cJSON_Delete(args);
    slice_fields_release(j);
    close(p[0]);
    close(p[1]);
    model_free(m);
    unlink(path);
}

TEST(slice_fields_given_up_before_done_frees_itself)
{
    char path[256];
    struct model *m = load_doc(path, sizeof path);
    CHECK(m != NULL);
    if (!m)
        return;
    /* many jobs released at once, the model freed while they may still read: each copied
     * what it reads, and each thread frees its job (ASan finds a leak or a use otherwise) */
    for (int i = 0; i < 64; i++)
        slice_fields_release(slice_fields_start(m, slice_named(m, "a"), -1));
    model_free(m);
    for (int i = 0; i < 1000 && slice_fields_pending(); i++)
        usleep(10000);
    CHECK_INT(slice_fields_pending(), 0);
    usleep(50000);   /* the threads' last step after pending reached 0: their unref */
    unlink(path);
}

/* Numbers in args keep the file's digits: one a double would print with more digits, an id
 * above 2^53, an exponent; nested values and strings as before. */
TEST(slice_fields_numbers_keep_the_file_digits)
{
    static const char text[] =
        "[{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":"
        "{ \"x\" : 0.6002072538860104 , \"big\":18446744073709551615,\"e\":1.5E3,\"s\":\"0.10\","
        "\"n\":[1, 2],\"k\\\"q\":-0.0}}]";
    char path[256];
    CHECK(test_temp_file("slice-fields-digits", text, path, sizeof path) != NULL);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    model_finalize(m);
    struct slice_fields_job *j = slice_fields_read_now(m, slice_named(m, "c"));
    const struct slice_field *f;
    const char *err;
    size_t n = slice_fields_get(j, &f, &err);
    CHECK_INT(n, 6);
    static const char *const want[][3] = { { "x", "0.6002072538860104", "j" }, { "big", "18446744073709551615", "j" },
                                           { "e", "1.5E3", "j" }, { "s", "0.10", "" }, { "n", "[1,2]", "j" },
                                           { "k\"q", "-0.0", "j" } };
    for (size_t i = 0; i < n && i < 6; i++) {
        CHECK_STR(f[i].key, want[i][0]);
        CHECK_STR(f[i].value, want[i][1]);
        CHECK_INT(f[i].is_json, want[i][2][0] == 'j');
    }
    slice_fields_release(j);
    model_free(m);
    diag_free(d);
    unlink(path);
}
