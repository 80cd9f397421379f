/* Input shapes read again from a trace (io/trace/trace_shapes.h): the Kineto array and the
 * torch_npu text forms, a call without shapes, the same from a gzipped copy, and a file
 * that changed after the load (its calls keep no shapes, the message names the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace/trace_json.h"
#include "io/trace/trace_shapes.h"
#include "model/host/host_ops.h"
#include "../runner.h"

static const char trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,"
    "\"args\":{\"Input Dims\":[[2, 3], [3, 4]],\"Input type\":[\"float\",\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
    "\"args\":{\"Input Dims\":[[8,3],[3,4]]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,"
    "\"args\":{\"Input Dims\":\"4,4;\\r\\n4,4\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,"
    "\"args\":{\"Sequence number\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":7,"
    "\"args\":{\"Input Dims\":[[2,3],[3,4]]}}\n"
    "]}\n";

static const struct host_op *row(const struct model *m, const struct host_ops *h, const struct host_shapes *sh,
                                 const char *name, const char *shapes)
{
    for (size_t i = 0; h && i < h->n; i++) {
        const char *t = h->ops[i].shapes ? strtab_get(sh->str, h->ops[i].shapes - 1) : NULL;
        if (!strcmp(model_str(m, h->ops[i].name), name) && (shapes ? t && !strcmp(t, shapes) : !t))
            return &h->ops[i];
    }
    return NULL;
}

/* Loads path, reads its shapes and checks the rows per name and shapes. */
static void check_rows(const char *path)
{
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    char err[256];
    struct host_shapes *sh = trace_shapes_read(m, NULL, err, sizeof err);
    CHECK(sh != NULL);
    CHECK_STR(err, "");
    struct host_ops *h = sh ? host_ops_compute(m, sh) : NULL;
    CHECK(h && h->n == 4);
    CHECK_INT(sh ? sh->recorded : 0, 4);
    const struct host_op *a = row(m, h, sh, "aten::mm", "[[2,3],[3,4]]");
    const struct host_op *b = row(m, h, sh, "aten::mm", "[[8,3],[3,4]]");
    CHECK(a && a->calls == 2 && a->total == 12000);
    CHECK(b && b->calls == 1);
    CHECK(row(m, h, sh, "aten::add", "4,4;4,4") != NULL);       /* the text without its line breaks */
    CHECK(row(m, h, sh, "aten::relu", NULL) != NULL);           /* no shapes: null */
    host_ops_free(h);
    host_shapes_free(sh);
    diag_free(d);
    model_free(m);
}

TEST(trace_shapes_plain_and_gzipped)
{
    char path[64], gz[80], cmd[256];
    if (!test_temp_file("shapes", trace, path, sizeof path))
        SKIP("no temporary file");
    check_rows(path);
    snprintf(gz, sizeof gz, "%s.json.gz", path);
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", path, gz);
    int st = 0;
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    if (!st)
        check_rows(gz);
    unlink(gz);
    unlink(path);
}

TEST(trace_shapes_file_changed_after_load)
{
    char path[64];
    if (!test_temp_file("shapes", trace, path, sizeof path))
        SKIP("no temporary file");
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(truncate(path, 200), 0);   /* the first event only */
    char err[256];
    struct host_shapes *sh = trace_shapes_read(m, NULL, err, sizeof err);
    CHECK(sh != NULL);
    CHECK(strstr(err, path) && strstr(err, "ended before"));
    CHECK(sh && sh->recorded == 1 && sh->read_errors == 4);
    host_shapes_free(sh);
    unlink(path);
    struct host_shapes *gone = trace_shapes_read(m, NULL, err, sizeof err);
    CHECK(gone && gone->recorded == 0 && strstr(err, path));   /* the file is gone: no shapes, said */
    host_shapes_free(gone);
    diag_free(d);
    model_free(m);
}
