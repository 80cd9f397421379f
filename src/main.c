/* aptop: command line. `aptop PATH` opens the explorer, `aptop --list PATH` prints what was
 * found, `aptop report PATH` prints figures for scripts. Exit codes: 0 ok, 1 nothing could
 * be loaded, 2 usage error. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "io/discovery/capture_set.h"
#include "io/export/export_window.h"
#include "io/cache/cache_outside.h"
#include "io/cache/index_cache.h"
#include "io/load/loader.h"
#include "io/load/memcheck.h"
#include "io/load/rank_split.h"
#include "model/rowsets/rowset_write.h"
#include "query/query.h"
#include "mcp/mcp.h"
#include "report/diff.h"
#include "report/report.h"
#include "ui/shell/ui.h"
#include "ui/shell/script.h"
#include "ui/shell/version.h"
#include "util/oom.h"
#include "util/signals.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: aptop [--prefer db] [--rank R] PATH       open the explorer\n"
        "       aptop [--lazy] [--max-ranks N] PATH        many ranks: small files first, timelines when\n"
        "                    opened, at most N in memory (default 4; on by itself above 16 ranks)\n"
        "       aptop PATH PATH...                         several captures, one tab group each\n"
        "       aptop --diff BASE NEW                      open the comparison of two captures\n"
        "       aptop --list PATH                          list ranks and files found\n"
        "       aptop report [--format text|json|csv] [--section a,b] [--top N]\n"
        "                    [--rank R] [--prefer db] PATH  print figures\n"
        "       aptop report --diff [--fail-if COND]... [--format F] [--section a,b] BASE NEW\n"
        "       aptop query [--format text|json|csv] [--limit N] [--rank R] PATH 'SQL'\n"
        "                    SQL over the loaded index (tables: see man aptop, QUERY TABLES)\n"
        "       aptop export --window START..END [--rank R] PATH > out.json\n"
        "       aptop mcp [PATH...]                        a Model Context Protocol server on\n"
        "                    stdin/stdout (JSON-RPC, one message per line) over the captures\n"
        "                    one rank's events in a window (12.5ms..20ms from the capture's\n"
        "                    start) as a Chrome trace for Perfetto or chrome://tracing\n"
        "       aptop --keys | --help | --version\n"
        "       aptop --cache-info | --cache-clear          the index cache of past loads\n"
        "options: --no-cache (neither read nor write the index cache), --cache-size SIZE\n"
        "         (its limit, default 4G), --cache-min SIZE (trace files below it are not cached,\n"
        "         default 8M); sizes take K, M or G\n"
        "       aptop --bench-render FRAMES PATH             time timeline frames off-screen\n"
        "       aptop --script FILE [--size COLSxROWS] PATH   run the explorer off-screen,\n"
        "                    keys from FILE (keys, text, wait, loaded, dump, resize, timeout),\n"
        "                    the screens it dumps on stdout\n"
        "\n"
        "PATH is a capture directory (a folder of *_ascend_pt rank directories, one of them,\n"
        "its ASCEND_PROFILER_OUTPUT, a PROF_* directory) or a single trace, CSV or DB file;\n"
        "PATH:rankN (or PATH:N) takes only rank N of it (compare A:rank0 with A:rank2).\n"
        "COND: decode_p50>5%% or kernel:NAME>10%% (exit 3 when it grew more; repeatable).\n"
        "\nreport sections:\n");
    report_list_sections(out);
    fprintf(out, "\nreport --diff sections:\n");
    report_diff_list_sections(out);
}

static void script_cleanup(void)
{
    script_free(ui_script);
    ui_script = NULL;
}

/* Text the user typed (paths, options) is untrusted too: a globbed name can hold escapes. */
static const char *esc(const char *s, char *buf, size_t size)
{
    text_escape(s, strlen(s), buf, size);
    return buf;
}

/* Prints the diagnostics (escaped: they quote file contents) to stderr. */
static void print_diags(struct diag *d, enum diag_level min)
{
    static const char *level[] = { "note", "warning", "error" };
    for (size_t i = 0, n = diag_count(d); i < n; i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m) < 0)
            continue;
        if (m.level >= min) {
            char p[2048], t[4096];
            text_escape(m.path, strlen(m.path), p, sizeof p);
            text_escape(m.text, strlen(m.text), t, sizeof t);
            fprintf(stderr, "aptop: %s: %s%s%s\n", level[m.level], p, p[0] ? ": " : "", t);
        }
        free(m.path);
        free(m.text);
    }
}

#define MAX_PATHS 16
#define MAX_FAIL 16

struct args {
    const char *path;
    const char *paths[MAX_PATHS];   /* every PATH typed, path == paths[0] */
    size_t npaths;
    bool diff;                      /* --diff BASE NEW */
    struct diff_fail fail[MAX_FAIL];
    size_t nfail;
    bool list, report, keys, prefer_db;
    bool query;                 /* query PATH SQL */
    const char *sql;
    long limit;                 /* --limit N: at most N rows (0: every row) */
    bool lazy;                  /* --lazy: a rank's timeline is read only when it is opened */
    unsigned max_ranks;         /* --max-ranks N: at most N timelines in memory (0: not given) */
    bool cache_info, cache_clear;
    struct cache_opts cache;
    long bench_frames;          /* --bench-render N: draw N timeline frames off-screen */
    const char *script;         /* --script FILE: headless run (ui/shell/script.h) */
    int script_cols, script_rows;   /* --size COLSxROWS */
    struct report_opts ro;
    const char *window;         /* export --window START..END */
};

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

/* "512M", "4G", "100000": bytes. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* --- options ------------------------------------------------------------------------------
 * One table: each option's name, its short form (0: none) and what its value is, said when the
 * value is missing or wrong. getopt_long reads them in the order typed, PATHs among them. */

enum opt_code {
    O_NO_CACHE = 256, O_CACHE_INFO, O_CACHE_CLEAR, O_CACHE_SIZE, O_CACHE_MIN, O_DIFF, O_FAIL_IF,
    O_BENCH_RENDER, O_MAX_RANKS, O_WINDOW, O_LAZY, O_KEYS, O_SCRIPT, O_SIZE, O_PREFER, O_LIMIT,
    O_RANK, O_TOP,
};

struct opt_spec {
    const char *name;
    int code;                   /* its short letter, or an opt_code */
    const char *takes;          /* its value, NULL when it takes none */
};

static const struct opt_spec opt_specs[] = {
    { "help", 'h', NULL },
    { "version", 'V', NULL },
    { "list", 'l', NULL },
    { "keys", O_KEYS, NULL },
    { "format", 'f', "text, json or csv" },
    { "section", 's', "a comma-separated list" },
    { "top", O_TOP, "a non-negative number" },
    { "rank", O_RANK, "a non-negative number" },
    { "prefer", O_PREFER, "'db' or 'text'" },
    { "diff", O_DIFF, NULL },
    { "fail-if", O_FAIL_IF, "a condition, e.g. decode_p50>5%" },
    { "limit", O_LIMIT, "a number of rows (0: every row)" },
    { "window", O_WINDOW, "START..END, e.g. 12.5ms..20ms" },
    { "lazy", O_LAZY, NULL },
    { "max-ranks", O_MAX_RANKS, "a number of ranks, at least 1" },
    { "no-cache", O_NO_CACHE, NULL },
    { "cache-info", O_CACHE_INFO, NULL },
    { "cache-clear", O_CACHE_CLEAR, NULL },
    { "cache-size", O_CACHE_SIZE, "a size (bytes, or with K, M or G)" },
    { "cache-min", O_CACHE_MIN, "a size (bytes, or with K, M or G)" },
    { "bench-render", O_BENCH_RENDER, "a frame count" },
    { "script", O_SCRIPT, "a file of commands" },
    { "size", O_SIZE, "COLSxROWS, e.g. 120x40" },
    { 0 }
};
#define NOPTS (sizeof opt_specs / sizeof opt_specs[0] - 1)

static const struct opt_spec *opt_find(int code)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (opt_specs[i].code == code)
            return &opt_specs[i];
    return NULL;
}

/* Says what option code takes (its value was missing or wrong): 2, a usage error. */
static int bad_value(int code)
{
    const struct opt_spec *o = opt_find(code);
    fprintf(stderr, "aptop: --%s takes %s\n", o->name, o->takes);
    return 2;
}

static int unknown_option(const char *typed)
{
    char e[1024];
    fprintf(stderr, "aptop: unknown option '%s' (see aptop --help)\n", esc(typed, e, sizeof e));
    return 2;
}

/* A number in [lo, hi] from v into *out, or a usage error naming the option. */
static int number_arg(int code, const char *v, long lo, long hi, long *out)
{
    return parse_long(v, out) < 0 || *out < lo || *out > hi ? bad_value(code) : 0;
}

/* A word that is not an option: PATH, or the statement after query's PATH. */
static int positional(const char *w, struct args *a)
{
    if (a->query && a->npaths == 1 && !a->sql) {
        a->sql = w;   /* query PATH SQL: the second word is the statement */
        return 0;
    }
    if (a->npaths == MAX_PATHS) {
        fprintf(stderr, "aptop: at most %d paths\n", MAX_PATHS);
        return 2;
    }
    a->paths[a->npaths++] = w;
    a->path = a->paths[0];
    return 0;
}

/* One option with its value v (NULL when it takes none). Returns 0, -1 (help or version
 * printed: exit 0) or 2 (a usage error, said). exporting: the command is export. */
static int apply_option(int code, const char *v, bool exporting, struct args *a)
{
    long n;
    uint64_t size;
    char why[256], e[1024];
    switch (code) {
    case 'h': usage(stdout); return -1;
    case 'V': version_print(stdout); return -1;
    case 'l': a->list = true; return 0;
    case O_KEYS: a->keys = true; return 0;
    case O_LAZY: a->lazy = true; return 0;
    case O_DIFF: a->diff = true; return 0;
    case O_NO_CACHE: a->cache.enabled = false; return 0;
    case O_CACHE_INFO: a->cache_info = true; return 0;
    case O_CACHE_CLEAR: a->cache_clear = true; return 0;
    case 'f':
        if (!a->report && !a->query)
            return unknown_option("--format");
        if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv"))
            return bad_value(code);
        a->ro.format = !strcmp(v, "json") ? FMT_JSON : !strcmp(v, "csv") ? FMT_CSV : FMT_TEXT;
        return 0;
    case 's':
        if (!a->report)
            return unknown_option("--section");
        a->ro.sections = v;
        return 0;
    case O_LIMIT:
        if (!a->query)
            return unknown_option("--limit");
        return number_arg(code, v, 0, LONG_MAX, &a->limit);
    case O_WINDOW:
        if (!exporting)
            return unknown_option("--window");
        a->window = v;
        return 0;
    case O_FAIL_IF:
        if (a->nfail == MAX_FAIL || diff_fail_parse(v, &a->fail[a->nfail], why, sizeof why) < 0) {
            fprintf(stderr, "aptop: --fail-if %s: %s\n", esc(v, e, sizeof e),
                    a->nfail == MAX_FAIL ? "too many conditions" : why);
            return 2;
        }
        a->nfail++;
        return 0;
    case O_CACHE_SIZE: case O_CACHE_MIN:
        if (parse_size(v, &size) < 0)
            return bad_value(code);
        *(code == O_CACHE_SIZE ? &a->cache.max_bytes : &a->cache.min_input) = size;
        return 0;
    case O_BENCH_RENDER:
        if (number_arg(code, v, 1, 1000000, &n))
            return 2;
        a->bench_frames = n;
        return 0;
    case O_MAX_RANKS:
        if (number_arg(code, v, 1, 1000000, &n))
            return 2;
        a->max_ranks = (unsigned)n;
        return 0;
    case O_RANK: case O_TOP:
        if (number_arg(code, v, 0, 1000000000, &n))
            return 2;
        if (code == O_RANK)
            a->ro.rank = (int)n;
        else
            a->ro.top = n;
        return 0;
    case O_SCRIPT: a->script = v; return 0;
    case O_SIZE:
        return script_parse_size(v, &a->script_cols, &a->script_rows) ? 0 : bad_value(code);
    case O_PREFER:
        if (strcmp(v, "db") && strcmp(v, "text"))
            return bad_value(code);
        a->prefer_db = !strcmp(v, "db");
        return 0;
    default:
        return 2;
    }
}

/* What getopt_long reports as wrong, said the way the other usage errors are: 2. */
static int getopt_failure(int c, int optc, char **argv)
{
    const struct opt_spec *o = optopt ? opt_find(optopt) : NULL;
    if (c == ':' && o)
        return bad_value(o->code);
    if (o) {
        fprintf(stderr, "aptop: --%s takes no value\n", o->name);
        return 2;
    }
    if (optopt) {
        char typed[3] = { '-', (char)optopt, 0 };
        return unknown_option(typed);
    }
    return unknown_option(optind - 1 < optc ? argv[optind - 1] : "?");
}

/* The options that do not go together, or a command without its PATH: 2 (said), else 0. */
static int check_combinations(const struct args *a)
{
    if (!a->path && !a->keys && !a->cache_info && !a->cache_clear) {
        usage(stderr);
        return 2;
    }
    const char *bad = NULL;
    if (a->query && (!a->sql || a->diff || a->list || a->bench_frames || a->script))
        bad = a->sql ? "query takes one PATH and one SQL statement, and no other command"
                     : "query takes a PATH and an SQL statement: aptop query PATH 'SELECT ...'";
    else if (a->diff && a->npaths != 2)
        bad = "--diff takes two paths: BASE NEW";
    else if (a->nfail && !(a->report && a->diff))
        bad = "--fail-if goes with report --diff";
    else if (a->npaths > 1 && a->report && !a->diff)
        bad = "report takes one PATH (or --diff BASE NEW)";
    else if (a->npaths > 1 && (a->list || a->bench_frames))
        bad = "--list and --bench-render take one PATH";
    else if ((a->lazy || a->max_ranks) && (a->report || a->query || a->list || a->bench_frames || a->diff))
        bad = "--lazy and --max-ranks go with the explorer (report reads every rank whole)";
    else if (a->npaths > 1 && a->ro.rank >= 0)
        bad = "--rank picks a rank of one capture; with several, write PATH:rankN";
    if (bad) {
        fprintf(stderr, "aptop: %s\n", bad);
        return 2;
    }
    return 0;
}

/* Returns -1 to exit 0 (help/version printed), 0 to go on, 2 on a usage error. */
static int parse_args(int argc, char **argv, struct args *a)
{
    cache_opts_default(&a->cache);
    a->ro.rank = -1;
    a->ro.format = FMT_TEXT;
    const char *cmd = argc > 1 ? argv[1] : "";
    bool exporting = !strcmp(cmd, "export");
    a->report = exporting || !strcmp(cmd, "report");   /* both load everything at once and print */
    a->query = !strcmp(cmd, "query");
    if (a->report || a->query)      /* the command's own words start after it */
        argc--, argv++;
    struct option longs[NOPTS + 1];
    for (size_t i = 0; i < NOPTS; i++)
        longs[i] = (struct option){ opt_specs[i].name, opt_specs[i].takes ? required_argument : no_argument,
                                    NULL, opt_specs[i].code };
    longs[NOPTS] = (struct option){ 0 };
    /* '-': words that are not options come back in order (as 1); ':': a missing value as ':' */
    static const char shorts[] = "-:hVlf:s:";
    opterr = 0;
    optind = 1;
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 1)
            rc = positional(optarg, a);
        else if (c == '?' || c == ':')
            rc = getopt_failure(c, argc, argv);
        else
            rc = apply_option(c, optarg, exporting, a);
    }
    for (int i = optind; rc == 0 && i < argc; i++)    /* after "--": PATHs only */
        rc = positional(argv[i], a);
    if (rc)
        return rc;
    if (exporting && (!a->window || a->npaths != 1)) {
        fprintf(stderr, "aptop: export takes --window START..END and one PATH (see aptop --help)\n");
        return 2;
    }
    return check_combinations(a);
}

/* The report reached stdout whole, or a line on stderr says it did not (a full disk, a file
 * size limit: SIGXFSZ is ignored, util/signals.h) and the status is 1. A pipe closed by its
 * reader (`| head`) is no failure. rc: report_print's status; loaded: something was. */
static int report_written(int rc, bool loaded)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (!failed)
        return rc;
    if (errno == EPIPE)
        return loaded ? 0 : 1;
    fprintf(stderr, "aptop: error: the report could not be written whole to stdout: %s\n",
            errno ? strerror(errno) : "write failed");
    return 1;
}

/* Several captures (or one rank of one, PATH:rankN): one merged capture, a group each;
 * report --diff compares group 0 with group 1, the explorer shows a tab group per capture. */
static int run_set(const struct args *a)
{
    struct diag *d = diag_new();
    struct capture c = { 0 };
    struct session_group *groups = NULL;
    int found = capture_set_open(a->paths, a->npaths, &c, &groups, d);
    struct session *s = NULL;
    int rc = 1;
    /* several captures read in two passes only when asked: Compare needs every rank's kernels */
    bool asked = a->lazy || a->max_ranks;
    unsigned keep = a->report || a->diff || !asked ? 0 : loader_lazy_max(c.nranks, a->max_ranks, a->lazy, false);
    if (found != 0 || (keep ? rank_split_memcheck(&c, a->prefer_db, keep, d) : memcheck_capture_env(&c, -1, NULL, d))) {
        print_diags(d, DIAG_WARN);
        capture_groups_free(groups, a->npaths);
        goto out;
    }
    if (!(s = session_new(&c, d))) {
        oom_exit("the session", sizeof *s);
    }
    session_set_groups(s, groups, a->npaths);
    struct cache_opts cache = a->cache;
    cache_keep_outside(&cache, a->paths, a->npaths, &c, d);
    struct loader_opts lo = { .prefer_db = a->prefer_db, .rank = -1, .cache = &cache, .max_ranks = keep,
                              .on_demand = a->lazy };
    if (a->report) {
        loader_run_sync(&c, s, &lo);
        print_diags(d, DIAG_WARN);
        struct session g0 = session_group_view(s, 0), g1 = session_group_view(s, a->npaths > 1 ? 1 : 0);
        char e[4096];
        bool empty = false;
        for (size_t g = 0; g < a->npaths; g++) {
            struct session gv = session_group_view(s, g);
            if (session_nothing_loaded(&gv)) {
                fprintf(stderr, "aptop: error: %s: nothing could be loaded\n", esc(a->paths[g], e, sizeof e));
                empty = true;
            }
        }
        if (empty)
            goto out;
        rc = a->diff ? report_diff_print(&g0, &g1, &a->ro, stdout) : report_print(&g0, &a->ro, stdout);
        rc = report_written(rc, true);
        if (rc == 0 && a->nfail && diff_fail_check(&g0, &g1, a->fail, a->nfail, stderr))
            rc = 3;
    } else {
        struct loader *l = loader_start(&c, s, &lo);
        rc = l ? ui_run_view(s, l, s->root, a->diff ? "Compare" : NULL) : 1;
        bool complete = l && loader_done(l);
        loader_stop(l);
        if (rc == 0 && complete && session_nothing_loaded(s))
            rc = 1;
    }
out:
    session_free(s);
    capture_free(&c);
    diag_free(d);
    return rc;
}

/* --script FILE: the commands read before anything loads; 0, or 2 when they cannot be. */
static int open_script(const struct args *a)
{
    if (a->report || a->list || a->bench_frames || !a->path) {
        fprintf(stderr, "aptop: --script runs the explorer: give it a PATH, without report, --list or --bench-render\n");
        return 2;
    }
    char err[1024];
    ui_script = script_open(a->script, a->script_cols ? a->script_cols : 120, a->script_rows ? a->script_rows : 40,
                            stdout, err, sizeof err);
    if (!ui_script) {
        char e[2048];
        fprintf(stderr, "aptop: error: %s\n", esc(err, e, sizeof e));
        return 2;
    }
    atexit(script_cleanup);
    return 0;
}

/* --bench-render: the load time, then timeline and table frames drawn off-screen. */
static int run_bench(const struct args *a, const struct capture *c, struct session *s, const struct loader_opts *lo)
{
    int parts = loader_run_sync(c, s, lo);
    printf("load: %.1f ms\n", s->load_ms);
    bool timeline = false, table = false;
    for (size_t i = 0; i < s->nranks; i++) {
        timeline |= s->ranks[i].model != NULL;
        table |= s->ranks[i].tables[TK_KERNELS] != NULL;
    }
    int rc = parts > 0 ? 0 : 1;
    if (rc == 0 && timeline)
        rc = timeline_bench(s, (int)a->bench_frames, stdout);
    if (rc == 0 && table)
        rc = table_bench(s, (int)a->bench_frames, stdout);
    return rc;
}

static int run_report(const struct args *a, const struct capture *c, struct session *s, const struct loader_opts *lo,
                      struct diag *d)
{
    int parts = loader_run_sync(c, s, lo);
    print_diags(d, DIAG_WARN);
    char e[4096];
    if (parts == 0)
        fprintf(stderr, "aptop: error: %s: nothing could be loaded\n", esc(a->path, e, sizeof e));
    int rc = parts > 0 ? report_print(s, &a->ro, stdout) : 1;
    rc = report_written(rc, parts > 0);
    /* what memory kept is printed; the status says it is not all (the messages say what) */
    if (rc == 0 && diag_short_of_memory(d)) {
        fprintf(stderr, "aptop: error: memory ran out while reading: the report is incomplete\n");
        rc = OOM_EXIT_STATUS;
    }
    return rc;
}

/* query PATH SQL: the capture loaded (or reopened from the index cache), the statement run
 * over it, its rows printed in the report's formats. */
static int run_query(const struct args *a, const struct capture *c, struct session *s, const struct loader_opts *lo,
                     struct diag *d)
{
    int parts = loader_run_sync(c, s, lo);
    print_diags(d, DIAG_WARN);
    char e[4096], err[1024];
    if (parts == 0) {
        fprintf(stderr, "aptop: error: %s: nothing could be loaded\n", esc(a->path, e, sizeof e));
        return 1;
    }
    struct query *q = query_open(s, err, sizeof err);
    struct rowset *rs = q ? query_run(q, a->sql, (size_t)a->limit, err, sizeof err) : NULL;
    int rc = 0;
    if (!rs) {
        fprintf(stderr, "aptop: error: query: %s\n", esc(err, e, sizeof e));
        rc = 1;
    } else {
        rowset_write(rs, a->ro.format, stdout);
        if (a->ro.format == FMT_JSON)
            putchar('\n');
        if (a->limit && rs->nrows == (size_t)a->limit && rs->caption && strstr(rs->caption, "--limit"))
            fprintf(stderr, "aptop: note: %s\n", rs->caption);
    }
    rowset_free(rs);
    query_close(q);
    if (fflush(stdout) != 0 && errno != EPIPE)
        rc = 1;
    return rc;
}

/* export --window: one rank's window as a Chrome trace on stdout. */
static int run_export(const struct args *a, const struct capture *c, struct session *s, const struct loader_opts *lo,
                      struct diag *d)
{
    struct export_window w = { 0 };
    char err[512], e[1024];
    if (export_window_parse(a->window, &w, err, sizeof err) != 0) {
        fprintf(stderr, "aptop: %s\n", esc(err, e, sizeof e));
        return 2;
    }
    int parts = loader_run_sync(c, s, lo);
    print_diags(d, DIAG_WARN);
    w.rank = export_window_rank(s, a->ro.rank);
    if (parts == 0 || w.rank == SIZE_MAX) {
        fprintf(stderr, "aptop: error: %s: no timeline%s to export\n", esc(a->path, e, sizeof e),
                a->ro.rank >= 0 ? " of that rank" : "");
        return 1;
    }
    long n = export_window_write(s, &w, stdout, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "aptop: error: %s\n", esc(err, e, sizeof e));
        return 1;
    }
    fprintf(stderr, "aptop: exported %ld events of rank %d in %s\n", n, s->ranks[w.rank].rank, esc(a->window, e, sizeof e));
    return 0;
}

static int run_explorer(const struct args *a, const struct capture *c, struct session *s, const struct loader_opts *lo)
{
    struct loader *l = loader_start(c, s, lo);
    char title[512];
    snprintf(title, sizeof title, "%s", a->path);
    int rc = l ? ui_run(s, l, title) : 1;
    bool loader_was_complete = l && loader_done(l);   /* not cut short by a quick quit */
    loader_stop(l);
    /* the explorer shows what went wrong; the exit status still says nothing loaded */
    if (rc == 0 && loader_was_complete && session_nothing_loaded(s))
        rc = 1;
    return rc;
}

/* How many timelines the explorer holds at once: 0 reads every rank whole in one pass (report,
 * bench and captures of few ranks), else the small files of every rank come first. */
static unsigned timelines_held(const struct args *a, const struct capture *c)
{
    if (a->report || a->query || a->bench_frames)
        return 0;
    return loader_lazy_max(c->nranks, a->max_ranks, a->lazy, a->ro.rank >= 0);
}

/* A capture whose index cannot fit is refused now, not killed halfway through. */
static bool fits_in_memory(const struct args *a, const struct capture *c, unsigned keep, struct diag *d)
{
    if (keep)
        return rank_split_memcheck(c, a->prefer_db, keep, d) == 0;
    return memcheck_capture_env(c, a->ro.rank, NULL, d) == 0;
}

/* A PATH of `aptop mcp` (w), or a wrong word (NULL: the option just read): 2, said. */
static int mcp_path(const char *w, const char **paths, size_t *n, char **argv)
{
    if (w && *n < MAX_PATHS) {
        paths[(*n)++] = w;
        return 0;
    }
    char e[1024];
    fprintf(stderr, "aptop: mcp takes [--no-cache] and at most %d paths, not '%s'\n", MAX_PATHS,
            esc(w ? w : argv[optind - 1], e, sizeof e));
    return 2;
}

/* `aptop mcp [--no-cache] [PATH...]`: the server until its input ends. argv[0] is "mcp". */
static int run_mcp(int argc, char **argv)
{
    struct cache_opts cache;
    cache_opts_default(&cache);
    const char *paths[MAX_PATHS];
    size_t n = 0;
    static const struct option longs[] = { { "no-cache", no_argument, NULL, O_NO_CACHE }, { 0 } };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "-", longs, NULL)) != -1) {
        if (c == O_NO_CACHE)
            cache.enabled = false;
        else if (mcp_path(c == 1 ? optarg : NULL, paths, &n, argv))
            return 2;
    }
    for (int i = optind; i < argc; i++)     /* after "--" */
        if (mcp_path(argv[i], paths, &n, argv))
            return 2;
    return mcp_serve(paths, n, &cache, stdin, stdout);
}

/* One capture (PATH): --list, or found, checked against the memory, loaded and run. */
static int run_capture(const struct args *a)
{
    struct diag *d = diag_new();
    struct capture c = { 0 };
    struct session *s = NULL;
    int found = capture_discover(a->path, &c, d), rc = 1;
    unsigned keep = 0;   /* timelines held at once with many ranks (0: every rank, one pass) */
    if (a->list) {
        capture_print(&c, stdout);
        print_diags(d, DIAG_WARN);
        rc = found == 0 ? 0 : 1;
    } else if (found != 0) {
        print_diags(d, DIAG_WARN);
    } else if (!fits_in_memory(a, &c, keep = timelines_held(a, &c), d)) {
        print_diags(d, DIAG_ERROR);
    } else if (!(s = session_new(&c, d))) {
        oom_exit("the session", sizeof *s);
    } else {
        struct cache_opts cache = a->cache;
        cache_keep_outside(&cache, a->paths, a->npaths, &c, d);
        struct loader_opts lo = { .prefer_db = a->prefer_db, .rank = a->ro.rank, .cache = &cache, .max_ranks = keep,
                                  .on_demand = a->lazy };
        rc = a->bench_frames ? run_bench(a, &c, s, &lo)
           : a->window     ? run_export(a, &c, s, &lo, d)
           : a->report     ? run_report(a, &c, s, &lo, d)
           : a->query      ? run_query(a, &c, s, &lo, d)
                           : run_explorer(a, &c, s, &lo);
    }
    session_free(s);
    capture_free(&c);
    diag_free(d);
    return rc;
}

/* The explorer draws on a terminal and reads keys from it: without one on stdin and stdout
 * (ssh without -t, nohup, a pipe) it would draw into the void and wait for keys that never
 * come, so it refuses at once and names what works there. --script runs off-screen. */
static bool explorer_without_terminal(const struct args *a)
{
    if (!a->path || a->report || a->query || a->window || a->list || a->bench_frames || a->script ||
        (isatty(0) && isatty(1)))
        return false;
    /* a path that is not there is named first, as with a terminal (exit 1) */
    for (size_t i = 0; i < a->npaths; i++) {
        char p[4096];
        int rank = -1;
        struct stat st;
        if (stat(capture_spec_parse(a->paths[i], p, sizeof p, &rank) == 0 ? p : a->paths[i], &st) != 0)
            return false;
    }
    fprintf(stderr, "aptop: the explorer needs a terminal on stdin and stdout (ssh -t, tmux or screen); "
                    "without one, `aptop report PATH` prints the figures\n");
    return true;
}

int main(int argc, char **argv)
{
    signals_install();   /* every mode, the server included (util/signals.h) */
    if (argc > 1 && !strcmp(argv[1], "mcp"))
        return run_mcp(argc - 1, argv + 1);
    struct args a = { 0 };
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.keys) {
        keys_print(stdout);
        return 0;
    }
    if (explorer_without_terminal(&a))
        return 2;
    if (a.script && (rc = open_script(&a)) != 0)
        return rc;
    if (a.cache_clear)
        printf("index cache: removed %d file(s) from %s\n", index_cache_clear(&a.cache), a.cache.dir);
    if (a.cache_info)
        index_cache_info(&a.cache, stdout);
    if (!a.path)
        return 0;
    if (a.npaths > 1 || a.diff) {
        return run_set(&a);
    } else if (!a.list && !a.bench_frames && !a.query) {
        char p[4096];
        int r = -1;
        if (capture_spec_parse(a.path, p, sizeof p, &r) == 0 && r >= 0)
            return run_set(&a);
    }
    return run_capture(&a);
}
