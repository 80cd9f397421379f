/* The command line: options, exit codes, messages, report shapes. Runs the real binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"

static char *run(const char *args, int *status)
{
    return test_aptop(status, "%s 2>&1", args);
}

TEST(cli_help_and_version)
{
    int st;
    char *out = run("--help", &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "usage: aptop") != NULL);
    CHECK(strstr(out, "kernels") != NULL);
    free(out);
    out = run("--version", &st);
    CHECK_INT(st, 0);
    CHECK(strncmp(out, "aptop ", 6) == 0);
    free(out);
}

TEST(cli_bad_options_exit_2)
{
    int st;
    char *out = run("--no-such-option x", &st);
    CHECK_INT(st, 2);
    CHECK(strstr(out, "unknown option") != NULL);
    free(out);
    out = run("", &st);
    CHECK_INT(st, 2);
    free(out);
    out = run("report --format xml x", &st);
    CHECK_INT(st, 2);
    free(out);
    out = run("report --top -3 x", &st);
    CHECK_INT(st, 2);
    free(out);
}

TEST(cli_missing_path_names_it)
{
    int st;
    char *out = run("/nonexistent/capture/dir", &st);
    CHECK_INT(st, 1);
    CHECK(strstr(out, "/nonexistent/capture/dir") != NULL);
    CHECK(strchr(out, '\n') != NULL);
    free(out);
    out = run("report /nonexistent/capture/dir", &st);
    CHECK_INT(st, 1);
    free(out);
}

TEST(cli_empty_dir_and_zero_byte_file)
{
    char dir[] = "/tmp/aptop-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char args[512], path[512];
    int st;
    snprintf(args, sizeof args, "report %s", dir);
    char *out = run(args, &st);
    CHECK_INT(st, 1);
    CHECK(strstr(out, dir) != NULL);
    free(out);
    snprintf(path, sizeof path, "%s/trace_view.json", dir);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    snprintf(args, sizeof args, "--list %s", path);
    out = run(args, &st);
    CHECK_INT(st, 1);
    CHECK(strstr(out, "trace_view.json") != NULL);
    free(out);
    unlink(path);
    rmdir(dir);
}

TEST(cli_report_unknown_section)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/server/src/test/fuzz/test_data/trace_view_tiny.json");
    char args[4096];
    int st;
    snprintf(args, sizeof args, "report --section nosuch %s", p);
    char *out = run(args, &st);
    CHECK_INT(st, 2);
    CHECK(strstr(out, "unknown report section") != NULL);
    free(out);
}

TEST(cli_report_pipe_closed_is_quiet)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
    char cmd[4096];
    int st;
    snprintf(cmd, sizeof cmd, "%s report --section summary,kernels %s 2>&1 | head -c 20 >/dev/null; echo \"rc=${PIPESTATUS[0]}\"", test_bin(), p);
    char full[4200];
    snprintf(full, sizeof full, "bash -c '%s'", cmd);
    /* quote-safe enough: paths under ../shared/real have no quotes */
    char *out = test_run(full, &st);
    CHECK(strstr(out, "rc=0") != NULL);
    CHECK(strstr(out, "Broken pipe") == NULL && strstr(out, "ERROR") == NULL);
    free(out);
}

TEST(cli_report_json_is_one_object)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
    int st;
    char *out = test_aptop(&st, "report --format json --section summary,kernels %s | python3 -c "
                           "'import json,sys; d=json.load(sys.stdin); print(sorted(d), type(d[\"summary\"]).__name__, type(d[\"kernels\"]).__name__)'",
                           p);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "['kernels', 'summary'] dict list") != NULL);
    free(out);
}

TEST(cli_man_keys_match_key_table)
{
    char cmd[4096];
    int st;
    snprintf(cmd, sizeof cmd, "python3 tools/man_keys.py --check %s man/aptop.1 2>&1", test_bin());
    char *out = test_run(cmd, &st);
    if (strstr(out, "No such file") || strstr(out, "not found")) {
        free(out);
        SKIP("python3 not available");
    }
    CHECK_INT(st, 0);
    CHECK(strstr(out, "matches") != NULL);
    free(out);
}

TEST(cli_keys_lists_every_view)
{
    int st;
    char *out = run("--keys", &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "Timeline") != NULL);
    CHECK(strstr(out, "Quit") != NULL);
    CHECK(strstr(out, "Follow the flow forward") != NULL);
    free(out);
}

/* Options read the GNU way: --opt=value equals --opt value, short forms, and "--" ends the
 * options (what follows is a PATH even when it starts with '-'). */
TEST(cli_option_forms_agree)
{
    int st1, st2;
    char *a = run("report -f csv -s kernels --top 3 --rank 0 fixtures/vllm_decode_2rank", &st1);
    char *b = run("report --format=csv --section=kernels --top=3 --rank=0 -- fixtures/vllm_decode_2rank", &st2);
    CHECK_INT(st1, 0);
    CHECK_INT(st2, 0);
    CHECK(a && strstr(a, "name") != NULL);
    CHECK(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    char *c = run("--list -- -no-such-dir", &st1);
    CHECK_INT(st1, 1);
    CHECK(c && strstr(c, "-no-such-dir: cannot open") != NULL);
    free(c);
}

/* Every way an option can be wrong is a usage error (status 2) saying what the option takes. */
TEST(cli_option_errors_say_what_is_wanted)
{
    static const char *const cases[][2] = {
        { "report --top", "--top takes a non-negative number" },
        { "report --format", "--format takes text, json or csv" },
        { "report --format=xml x", "--format takes text, json or csv" },
        { "--rank=-1 x", "--rank takes a non-negative number" },
        { "--lazy=1 x", "--lazy takes no value" },
        { "-x x", "unknown option '-x'" },
        { "-lq x", "unknown option '-q'" },
        { "--format json x", "unknown option '--format'" },
        { "query --section a x 'select 1'", "unknown option '--section'" },
        { "report --limit 3 x", "unknown option '--limit'" },
        { "report --cache-size=5Q x", "--cache-size takes a size" },
        { "--fail-if", "--fail-if takes a condition" },
        { "mcp --bogus", "mcp takes [--no-cache]" },
        { "mcp --no-cache=1", "mcp takes [--no-cache]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *out = run(cases[i][0], &st);
        if (st != 2 || !out || !strstr(out, cases[i][1]))
            fprintf(stderr, "    '%s': status %d, said: %s", cases[i][0], st, out ? out : "(nothing)\n");
        CHECK_INT(st, 2);
        CHECK(out && strstr(out, cases[i][1]) != NULL);
        free(out);
    }
}
