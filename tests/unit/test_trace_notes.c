/* Files beside traces that are not traces: a JSON array of plain objects (another tool's
 * notes, such as execution_details.json) is neither read as events of an unknown phase nor
 * taken for a Kineto trace without its schemaVersion. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace/trace_json.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0);
    if (f)
        fclose(f);
}

TEST(trace_notes_array_of_plain_objects_is_not_a_trace)
{
    char dir[] = "/tmp/aptop_notes_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_file(dir, "execution_details.json",
               "[\n  {\n    \"file\": \"run_rank_0.pt.trace.json\",\n    \"batch_size\": 8192,\n    \"mode\": \"PIECEWISE\"\n  }\n]\n");
    write_file(dir, "run_rank_0.pt.trace.json",
               "{\"schemaVersion\": 1, \"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
               " \"ts\": 10, \"dur\": 2, \"args\": {\"correlation\": 1}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 2,"
               " \"args\": {\"correlation\": 1}}]}\n");
    int st;
    char *out = test_aptop(&st, "report --no-cache --format json --section summary,diagnostics '%s' 2>&1", dir);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "\"events_by_ph\": {\"X\": 2}") != NULL);
    CHECK(strstr(out, "\"unknown_ph\": 0") != NULL);
    CHECK(strstr(out, "without schemaVersion") == NULL);
    CHECK(strstr(out, "\"lanes\": 2") != NULL);
    free(out);
    out = test_aptop(&st, "--list '%s' 2>&1", dir);
    CHECK(strstr(out, "execution_details.json  [not read") != NULL);
    free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/execution_details.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/run_rank_0.pt.trace.json", dir);
    unlink(path);
    rmdir(dir);
}

/* Read as a trace all the same (a trace_view.json of such objects), the items are skipped
 * with a message, never counted as events of phase "?". */
TEST(trace_notes_items_without_ph_and_ts_are_not_events)
{
    static const char *json = "[{\"file\": \"a\", \"batch_size\": 1}, {\"ph\": \"X\", \"name\": \"k\", \"pid\": 1,"
                              " \"tid\": 1, \"ts\": 5, \"dur\": 1}, {\"ph\": \"i\", \"name\": \"g\", \"s\": \"g\","
                              " \"pid\": 1, \"tid\": 1, \"ts\": 6}]";
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "trace_view.json", json, strlen(json), d), 0);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->events, 2);
    CHECK_INT(m->events_by_ph['?'], 0);
    CHECK_INT(m->events_by_ph['i'], 1);
    CHECK_INT(m->unknown_ph, 0);
    CHECK_INT(m->nslices, 1);
    CHECK(diag_count(d) == 1);
    model_free(m);
    diag_free(d);
}
