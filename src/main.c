/* aptop: command line. `aptop PATH` opens the explorer, `aptop --list PATH` prints what was
 * found, `aptop report PATH` prints figures for scripts. Exit codes: 0 ok, 1 nothing could
 * be loaded, 2 usage error. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "io/discovery/capture_set.h"
#include "io/cache/index_cache.h"
#include "io/load/loader.h"
#include "io/load/memcheck.h"
#include "io/load/rank_split.h"
#include "model/rowsets/rowset_write.h"
#include "query/query.h"
#include "mcp/mcp.h"
#include "report/diff.h"
#include "report/export_window.h"
#include "report/report.h"
#include "ui/shell/ui.h"
#include "ui/shell/script.h"
#include "ui/shell/version.h"
#include "util/oom.h"
#include "util/path_inside.h"
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

/* The index cache options; returns 1 when o was one of them (and *i moved past its value),
 * 0 when it is another option, 2 on a usage error. */
static int parse_cache_opt(const char *o, const char *val, int *i, struct args *a)
{
    if (!strcmp(o, "--no-cache")) {
        a->cache.enabled = false;
    } else if (!strcmp(o, "--cache-info")) {
        a->cache_info = true;
    } else if (!strcmp(o, "--cache-clear")) {
        a->cache_clear = true;
    } else if (!strcmp(o, "--cache-size") || !strcmp(o, "--cache-min")) {
        uint64_t v;
        if (!val || parse_size(val, &v) < 0) {
            fprintf(stderr, "aptop: %s takes a size (bytes, or with K, M or G)\n", o);
            return 2;
        }
        *(!strcmp(o, "--cache-size") ? &a->cache.max_bytes : &a->cache.min_input) = v;
        (*i)++;
    } else {
        return 0;
    }
    return 1;
}

/* The report and comparison options (--format, --section, --diff, --fail-if); returns like
 * parse_cache_opt. --format and --section are options of report only. */
static int parse_report_opt(const char *o, const char *val, int *i, struct args *a)
{
    if ((a->report || a->query) && (!strcmp(o, "--format") || !strcmp(o, "-f"))) {
        if (!val || (strcmp(val, "text") && strcmp(val, "json") && strcmp(val, "csv"))) {
            fprintf(stderr, "aptop: --format takes text, json or csv\n");
            return 2;
        }
        a->ro.format = !strcmp(val, "json") ? FMT_JSON : !strcmp(val, "csv") ? FMT_CSV : FMT_TEXT;
        (*i)++;
    } else if (a->report && (!strcmp(o, "--section") || !strcmp(o, "-s"))) {
        if (!val) {
            fprintf(stderr, "aptop: --section takes a comma-separated list\n");
            return 2;
        }
        a->ro.sections = val;
        (*i)++;
    } else if (!strcmp(o, "--diff")) {
        a->diff = true;
    } else if (!strcmp(o, "--fail-if")) {
        char why[256], e[1024];
        if (!val || a->nfail == MAX_FAIL || diff_fail_parse(val, &a->fail[a->nfail], why, sizeof why) < 0) {
            fprintf(stderr, "aptop: --fail-if %s: %s\n", val ? esc(val, e, sizeof e) : "",
                    !val ? "takes a condition" : a->nfail == MAX_FAIL ? "too many conditions" : why);
            return 2;
        }
        a->nfail++;
        (*i)++;
    } else {
        return 0;
    }
    return 1;
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
/* The value after option o, or NULL after saying what it takes. */
static const char *value_of(const char *o, const char *val, const char *takes)
{
    if (!val)
        fprintf(stderr, "aptop: %s takes %s\n", o, takes);
    return val;
}

static int parse_args(int argc, char **argv, struct args *a)
{
    cache_opts_default(&a->cache);
    a->ro.rank = -1;
    a->ro.format = FMT_TEXT;
    int i = 1;
    bool exporting = argc > 1 && strcmp(argv[1], "export") == 0;
    if (argc > 1 && (strcmp(argv[1], "report") == 0 || exporting)) {
        a->report = true;   /* both load everything at once and print */
        i = 2;
    } else if (argc > 1 && strcmp(argv[1], "query") == 0) {
        a->query = true;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int c = parse_cache_opt(o, val, &i, a);
        if (!c)
            c = parse_report_opt(o, val, &i, a);
        if (c == 2)
            return 2;
        if (c == 1)
            continue;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(o, "--version") || !strcmp(o, "-V")) {
            version_print(stdout);
            return -1;
        } else if (!strcmp(o, "--list") || !strcmp(o, "-l")) {
            a->list = true;
        } else if (!strcmp(o, "--bench-render")) {
            long v;
            if (!val || parse_long(val, &v) < 0 || v < 1 || v > 1000000) {
                fprintf(stderr, "aptop: --bench-render takes a frame count\n");
                return 2;
            }
            a->bench_frames = v;
            i++;
        } else if (!strcmp(o, "--max-ranks")) {
            long v;
            if (!val || parse_long(val, &v) < 0 || v < 1 || v > 1000000) {
                fprintf(stderr, "aptop: --max-ranks takes a number of ranks, at least 1\n");
                return 2;
            }
            a->max_ranks = (unsigned)v;
            i++;
        } else if (!strcmp(o, "--window") && exporting) {
            if (!(a->window = value_of(o, val, "START..END, e.g. 12.5ms..20ms")))
                return 2;
            i++;
        } else if (!strcmp(o, "--lazy")) {
            a->lazy = true;
        } else if (!strcmp(o, "--keys")) {
            a->keys = true;
        } else if (!strcmp(o, "--script")) {
            if (!(a->script = value_of(o, val, "a file of commands")))
                return 2;
            i++;
        } else if (!strcmp(o, "--size")) {
            if (!val || !script_parse_size(val, &a->script_cols, &a->script_rows)) {
                fprintf(stderr, "aptop: --size takes COLSxROWS, e.g. 120x40\n");
                return 2;
            }
            i++;
        } else if (!strcmp(o, "--prefer")) {
            if (!val || (strcmp(val, "db") && strcmp(val, "text"))) {
                fprintf(stderr, "aptop: --prefer takes 'db' or 'text'\n");
                return 2;
            }
            a->prefer_db = !strcmp(val, "db");
            i++;
        } else if (a->query && !strcmp(o, "--limit")) {
            long v;
            if (!val || parse_long(val, &v) < 0 || v < 0) {
                fprintf(stderr, "aptop: --limit takes a number of rows (0: every row)\n");
                return 2;
            }
            a->limit = v;
            i++;
        } else if (!strcmp(o, "--rank") || !strcmp(o, "--top")) {
            long v;
            if (!val || parse_long(val, &v) < 0 || v < 0 || v > 1000000000) {
                fprintf(stderr, "aptop: %s takes a non-negative number\n", o);
                return 2;
            }
            if (!strcmp(o, "--rank"))
                a->ro.rank = (int)v;
            else
                a->ro.top = v;
            i++;
        } else if (o[0] == '-' && o[1]) {
            char e[1024];
            fprintf(stderr, "aptop: unknown option '%s' (see aptop --help)\n", esc(o, e, sizeof e));
            return 2;
        } else if (a->query && a->npaths == 1 && !a->sql) {
            a->sql = o;   /* query PATH SQL: the second word is the statement */
        } else if (a->npaths == MAX_PATHS) {
            fprintf(stderr, "aptop: at most %d paths\n", MAX_PATHS);
            return 2;
        } else {
            a->paths[a->npaths++] = o;
            a->path = a->paths[0];
        }
    }
    if (exporting && (!a->window || a->npaths != 1)) {
        fprintf(stderr, "aptop: export takes --window START..END and one PATH (see aptop --help)\n");
        return 2;
    }
    return check_combinations(a);
}

/* Nothing of s could be loaded (no timeline, no table, no communication figures). */
static bool nothing_loaded(const struct session *s)
{
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (rd->model || rd->comm)
            return false;
        for (int t = 0; t < TK_COUNT; t++)
            if (rd->tables[t])
                return false;
    }
    return true;
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

/* The read-only promise covers the index cache: a cache folder inside the capture (an
 * XDG_CACHE_HOME pointing there) turns the cache off for this run, with a warning, since
 * even a hit writes (a use refreshes the file's time, a damaged file is removed). *o is a
 * copy of the options: the caller's stay as typed. */
static void keep_cache_outside(struct cache_opts *o, const struct capture *c, const struct args *a, struct diag *d)
{
    const char *inside = NULL;
    for (size_t i = 0; o->enabled && !inside && i < a->npaths; i++)
        if (path_inside(o->dir, a->paths[i]))
            inside = a->paths[i];
    for (size_t i = 0; o->enabled && !inside && i < c->nranks; i++)
        if (path_inside(o->dir, c->ranks[i].dir) || (c->ranks[i].group && path_inside(o->dir, c->ranks[i].group)))
            inside = c->ranks[i].group ? c->ranks[i].group : c->ranks[i].dir;
    if (!inside)
        return;
    o->enabled = false;
    diag_add(d, DIAG_WARN, o->dir, "the index cache folder lies inside the capture %s: running without the cache "
             "(aptop never writes into a capture; set XDG_CACHE_HOME elsewhere)", inside);
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
    keep_cache_outside(&cache, &c, a, d);
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
            if (nothing_loaded(&gv)) {
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
        if (rc == 0 && complete && nothing_loaded(s))
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
    struct export_window w;
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
    if (rc == 0 && loader_was_complete && nothing_loaded(s))
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

/* `aptop mcp [--no-cache] [PATH...]`: the server until its input ends. */
static int run_mcp(int argc, char **argv)
{
    struct cache_opts cache;
    cache_opts_default(&cache);
    const char *paths[MAX_PATHS];
    size_t n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--no-cache")) {
            cache.enabled = false;
        } else if (argv[i][0] == '-' || n == MAX_PATHS) {
            char e[1024];
            fprintf(stderr, "aptop: mcp takes [--no-cache] and at most %d paths, not '%s'\n", MAX_PATHS,
                    esc(argv[i], e, sizeof e));
            return 2;
        } else {
            paths[n++] = argv[i];
        }
    }
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
        keep_cache_outside(&cache, &c, a, d);
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
    if (!a->path || a->report || a->query || a->list || a->bench_frames || a->script || (isatty(0) && isatty(1)))
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
        return run_mcp(argc - 2, argv + 2);
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
