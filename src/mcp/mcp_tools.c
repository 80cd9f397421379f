/* The MCP server's tools: report sections of a held capture, a diff of two, slices found by
 * name in a window, and a window exported for a trace viewer (see mcp.h). */
#include "mcp/mcp_tools.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/export/export_window.h"
#include "model/index/timeparse.h"
#include "model/rowsets/jsonbuf.h"
#include "model/rowsets/rowset_write.h"
#include "query/query.h"
#include "report/diff.h"
#include "report/report.h"
#include "util/oom.h"
#include "util/path_inside.h"

#define PAGE_DEFAULT 50
#define PAGE_MAX 1000

static const char units[] =
    "keys ending _us are microseconds with 3 decimals from exact nanoseconds, _ms milliseconds, "
    "_mb megabytes, _pct percent; start_us are absolute in the capture's own clock unless named "
    "relative; ts_us of find_slices is relative to the capture's start";

static const char query_units[] =
    "times (ts, dur and every *_ts, *_dur column of the tables) are integer ns in the capture's own clock; "
    "rows are objects keyed by column name, a page at a time";

/* --- arguments ------------------------------------------------------------------------- */

struct call {
    const cJSON *args;
    int *code;
    char *msg;
    size_t msgsz;
};

static bool bad(struct call *c, const char *fmt, const char *what)
{
    *c->code = MCP_INVALID_PARAMS;
    snprintf(c->msg, c->msgsz, fmt, what);
    return false;
}

/* A string argument; required ones missing are an error. */
static bool arg_str(struct call *c, const char *key, bool required, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return required ? bad(c, "argument '%s' is required", key) : true;
    if (!cJSON_IsString(v) || !v->valuestring)
        return bad(c, "argument '%s' must be a string", key);
    *out = v->valuestring;
    return true;
}

/* An integer argument in [lo, hi], def when absent. */
static bool arg_int(struct call *c, const char *key, long lo, long hi, long def, long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble || v->valuedouble < (double)lo ||
        v->valuedouble > (double)hi) {
        *c->code = MCP_INVALID_PARAMS;
        snprintf(c->msg, c->msgsz, "argument '%s' must be an integer from %ld to %ld", key, lo, hi);
        return false;
    }
    *out = (long)v->valuedouble;
    return true;
}

/* --- results --------------------------------------------------------------------------- */

/* A tool's answer: the object as structuredContent and as text. */
static cJSON *answer(cJSON *obj)
{
    cJSON *r = cJSON_CreateObject();
    char *text = cJSON_PrintUnformatted(obj);
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text ? text : "{}");
    cJSON_AddItemToArray(content, item);
    cJSON_AddItemToObject(r, "structuredContent", obj);
    cJSON_AddBoolToObject(r, "isError", false);
    free(text);
    return r;
}

/* The out-of-memory policy at the server's edge: figures that memory ran short for (rows a
 * section or query lost, parts of the capture not read: diag_out_of_memory) are answered
 * with what was kept and this flag, never as a plain failure. */
static void flag_incomplete(cJSON *o, bool rows_lost, const struct mcp_capture *a, const struct mcp_capture *b)
{
    size_t parts = (a ? diag_short_of_memory(a->d) : 0) + (b ? diag_short_of_memory(b->d) : 0);
    if (!rows_lost && !parts)
        return;
    char text[256];
    snprintf(text, sizeof text, "out of memory: figures incomplete (%s%s%s; the server's stderr names what)",
             rows_lost ? "rows were lost" : "", rows_lost && parts ? ", and " : "",
             parts ? "parts of the capture were not read" : "");
    cJSON_AddStringToObject(o, "incomplete", text);
}

/* A tool that ran but could not do it (a capture that does not load): isError true. */
static cJSON *tool_error(const char *fmt, const char *a, const char *b)
{
    char text[2048];
    snprintf(text, sizeof text, fmt, a, b);
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text);
    cJSON_AddItemToArray(content, item);
    cJSON_AddBoolToObject(r, "isError", true);
    return r;
}

/* The end of the JSON value at p (strings, nesting and escapes skipped), without parsing
 * it: the rows keep the report's exact digits, which a parse through doubles would not. */
static const char *value_end(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return p;
            if (!depth)
                return p + 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (--depth <= 0)
                return depth == 0 ? p + 1 : p;
        } else if (*p == ',' && !depth) {
            return p;
        }
    }
    return p;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static cJSON *raw(const char *a, const char *e)
{
    char *t = strndup(a, (size_t)(e - a));
    cJSON *r = t ? cJSON_CreateRaw(t) : NULL;
    free(t);
    return r;
}

/* The report's JSON object of sections, each array cut to rows [offset, offset+limit) as
 * raw text; *more when any had rows past the page. NULL when the text is not such an object. */
static cJSON *sections_page(const char *text, long offset, long limit, bool *more)
{
    const char *p = skip_ws(text);
    if (*p != '{')
        return NULL;
    cJSON *out = cJSON_CreateObject();
    for (p = skip_ws(p + 1); *p == '"';) {
        const char *ke = value_end(p);
        char *kt = strndup(p, (size_t)(ke - p));
        cJSON *key = kt ? cJSON_Parse(kt) : NULL;
        free(kt);
        p = skip_ws(ke);
        if (!cJSON_IsString(key) || *p != ':') {
            cJSON_Delete(key);
            break;
        }
        const char *v = skip_ws(p + 1), *ve = value_end(v);
        cJSON *val;
        if (*v == '[') {
            val = cJSON_CreateArray();
            long i = 0;
            for (const char *q = skip_ws(v + 1); *q && *q != ']'; i++) {
                const char *qe = value_end(q);
                if (i >= offset && i < offset + limit)
                    cJSON_AddItemToArray(val, raw(q, qe));
                q = skip_ws(qe);
                if (*q == ',')
                    q = skip_ws(q + 1);
            }
            *more |= i > offset + limit;
        } else {
            val = raw(v, ve);
        }
        cJSON_AddItemToObject(out, key->valuestring, val);
        cJSON_Delete(key);
        p = skip_ws(ve);
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return out;
}

/* Where a page is (offset, limit, next_offset: null on the last page) and the units of its keys. */
static void page_place(cJSON *o, long offset, long limit, bool more, const char *page_units)
{
    cJSON_AddNumberToObject(o, "offset", (double)offset);
    cJSON_AddNumberToObject(o, "limit", (double)limit);
    if (more)
        cJSON_AddNumberToObject(o, "next_offset", (double)(offset + limit));
    else
        cJSON_AddNullToObject(o, "next_offset");
    cJSON_AddStringToObject(o, "units", page_units);
}

/* A page of sections: the rows, where the page is, and the units of the keys. */
static cJSON *page_object(cJSON *sections, long offset, long limit, bool more, const char *capture)
{
    cJSON *o = cJSON_CreateObject();
    if (capture)
        cJSON_AddStringToObject(o, "capture", capture);
    cJSON_AddItemToObject(o, "sections", sections);
    page_place(o, offset, limit, more, units);
    return o;
}

/* A page of the JSON a print function writes (see sections_page); *short_of_memory when the
 * print lost rows for lack of memory (its status OOM_EXIT_STATUS: what it kept is paged). */
static cJSON *printed_page(int (*print)(const void *, const void *, const struct report_opts *, FILE *),
                           const void *a, const void *b, const struct report_opts *o, long offset, long limit,
                           const char *capture, bool *short_of_memory)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = print(a, b, o, f);
    fclose(f);
    bool more = false;
    *short_of_memory = rc == OOM_EXIT_STATUS;
    cJSON *j = (rc == 0 || *short_of_memory) && buf ? sections_page(buf, offset, limit, &more) : NULL;
    free(buf);
    return j ? page_object(j, offset, limit, more, capture) : NULL;
}

static int print_sections(const void *s, const void *unused, const struct report_opts *o, FILE *f)
{
    (void)unused;
    return report_print(s, o, f);
}

static int print_diff(const void *base, const void *new, const struct report_opts *o, FILE *f)
{
    return report_diff_print(base, new, o, f);
}

/* --- the tools ------------------------------------------------------------------------- */

/* The capture the call names ("capture"; NULL: the first one held). */
static struct mcp_capture *capture_of(struct mcp_captures *cs, struct call *c, const char *key, cJSON **err)
{
    const char *path;
    if (!arg_str(c, key, false, &path))
        return NULL;
    char why[1024];
    struct mcp_capture *mc = mcp_capture_get(cs, path, why, sizeof why);
    if (!mc)
        *err = tool_error("cannot load the capture: %s%s", why, "");
    return mc;
}

/* A tool that answers report sections of one capture. */
static cJSON *sections_tool(struct mcp_captures *cs, struct call *c, const char *sections, const char *path_key)
{
    long offset, limit, rank;
    if (!arg_int(c, "offset", 0, 1L << 40, 0, &offset) || !arg_int(c, "limit", 1, PAGE_MAX, PAGE_DEFAULT, &limit) ||
        !arg_int(c, "rank", -1, 1 << 20, -1, &rank))
        return NULL;
    cJSON *err = NULL;
    struct mcp_capture *mc = capture_of(cs, c, path_key, &err);
    if (!mc)
        return err;
    struct report_opts o = { .sections = sections, .format = FMT_JSON, .rank = (int)rank };
    bool lost;
    cJSON *j = printed_page(print_sections, mc->s, NULL, &o, offset, limit, mc->path, &lost);
    if (!j)
        return tool_error("the report of %s could not be made%s", mc->path,
                          lost || diag_short_of_memory(mc->d) ? ": out of memory, figures incomplete" : "");
    flag_incomplete(j, lost, mc, NULL);
    return answer(j);
}

static cJSON *tool_diff(struct mcp_captures *cs, struct call *c)
{
    const char *b, *n;
    long offset, limit;
    if (!arg_str(c, "base", true, &b) || !arg_str(c, "new", true, &n) ||
        !arg_int(c, "offset", 0, 1L << 40, 0, &offset) || !arg_int(c, "limit", 1, PAGE_MAX, PAGE_DEFAULT, &limit))
        return NULL;
    char why[1024];
    struct mcp_capture *mb = mcp_capture_get(cs, b, why, sizeof why);
    if (!mb)
        return tool_error("cannot load the base capture: %s%s", why, "");
    struct mcp_capture *mn = mcp_capture_get(cs, n, why, sizeof why);
    if (!mn)
        return tool_error("cannot load the new capture: %s%s", why, "");
    mb = mcp_capture_get(cs, b, why, sizeof why);   /* the array may have moved */
    struct report_opts o = { .format = FMT_JSON, .rank = -1 };
    bool lost;
    cJSON *j = printed_page(print_diff, mb->s, mn->s, &o, offset, limit, NULL, &lost);
    if (!j)
        return tool_error("the comparison of %s and %s could not be made", b, n);
    flag_incomplete(j, lost, mb, mn);
    return answer(j);
}

/* Slices whose name matches a regular expression, in a window relative to the capture's start. */
static cJSON *tool_find_slices(struct mcp_captures *cs, struct call *c)
{
    const char *pattern, *from, *to;
    long offset, limit, rank;
    if (!arg_str(c, "pattern", true, &pattern) || !arg_str(c, "start", false, &from) || !arg_str(c, "end", false, &to) ||
        !arg_int(c, "offset", 0, 1L << 40, 0, &offset) || !arg_int(c, "limit", 1, PAGE_MAX, PAGE_DEFAULT, &limit) ||
        !arg_int(c, "rank", -1, 1 << 20, -1, &rank))
        return NULL;
    ns_t w0 = INT64_MIN, w1 = INT64_MAX;
    if ((from && time_text_to_ns(from, &w0) != 0) || (to && time_text_to_ns(to, &w1) != 0))
        return bad(c, "argument '%s' must be a time such as 12.5ms", from && time_text_to_ns(from, &w0) ? "start" : "end"),
               NULL;
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return bad(c, "argument 'pattern' is not a regular expression: %s", pattern), NULL;
    cJSON *err = NULL;
    struct mcp_capture *mc = capture_of(cs, c, "capture", &err);
    if (!mc) {
        regfree(&re);
        return err;
    }
    const struct session *s = mc->s;
    ns_t origin = session_origin(s);
    cJSON *rows = cJSON_CreateArray();
    long matched = 0;
    bool lost = false;
    for (size_t r = 0; r < s->nranks; r++) {
        const struct model *m = s->ranks[r].model;
        if (!m || (rank >= 0 && s->ranks[r].rank != rank))
            continue;
        for (uint32_t i = 0; i < m->nslices; i++) {
            ns_t t = m->start[i] - origin;
            if (t < w0 || t >= w1 || regexec(&re, model_str(m, m->name[i]), 0, NULL, 0) != 0)
                continue;
            if (matched++ < offset || matched > offset + limit)
                continue;
            struct jbuf b = { 0 };
            char head[96];
            snprintf(head, sizeof head, "{\"rank\":%d,\"slice\":%u,\"name\":", s->ranks[r].rank, i);
            jputs(&b, head);
            jstr(&b, model_str(m, m->name[i]));
            jputs(&b, ",\"lane\":");
            jstr(&b, model_str(m, m->lanes[m->lane[i]].name));
            jputs(&b, ",\"ts_us\":");
            jus(&b, t);
            jputs(&b, ",\"dur_us\":");
            jus(&b, m->dur[i]);
            jputs(&b, "}");
            if (b.p && !b.oom)
                cJSON_AddItemToArray(rows, cJSON_CreateRaw(b.p));
            else
                lost = true;
            free(b.p);
        }
    }
    regfree(&re);
    cJSON *sections = cJSON_CreateObject();
    cJSON_AddItemToObject(sections, "slices", rows);
    cJSON *o = page_object(sections, offset, limit, matched > offset + limit, mc->path);
    cJSON_AddNumberToObject(o, "matched", (double)matched);
    flag_incomplete(o, lost, mc, NULL);
    return answer(o);
}

/* SQL over a held capture through the engine of `aptop query` (query/query.h), a page of
 * rows at a time: the statement runs again for each page, its rows up to the page's end kept
 * (one more says whether a next page exists). The engine stays open with the capture. */
static cJSON *tool_query(struct mcp_captures *cs, struct call *c)
{
    const char *sql;
    long offset, limit;
    if (!arg_str(c, "sql", true, &sql) || !arg_int(c, "offset", 0, 1L << 40, 0, &offset) ||
        !arg_int(c, "limit", 1, PAGE_MAX, PAGE_DEFAULT, &limit))
        return NULL;
    cJSON *err = NULL;
    struct mcp_capture *mc = capture_of(cs, c, "capture", &err);
    if (!mc)
        return err;
    char why[1024];
    if (!mc->q && !(mc->q = query_open(mc->s, why, sizeof why)))
        return tool_error("the query engine could not start: %s%s", why, "");
    struct rowset *rs = query_run(mc->q, sql, (size_t)(offset + limit + 1), why, sizeof why);
    if (!rs && strstr(why, "out of memory"))
        return tool_error("the query could not run: %s (no figures)%s", why, "");
    if (!rs)
        return bad(c, "argument 'sql': %s", why), NULL;
    /* the rows as `aptop query --format json` writes them (exact digits), paged as text */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        fputs("{\"rows\":", f);
        rowset_write(rs, FMT_JSON, f);
        fputs("}", f);
        fclose(f);
    }
    bool more = false;
    cJSON *page = buf ? sections_page(buf, offset, limit, &more) : NULL;
    free(buf);
    cJSON *rows = page ? cJSON_DetachItemFromObjectCaseSensitive(page, "rows") : NULL;
    cJSON_Delete(page);
    if (!rows) {
        rowset_free(rs);
        return tool_error("the rows of the query could not be written (out of memory)%s%s", "", "");
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "capture", mc->path);
    cJSON *cols = cJSON_AddArrayToObject(o, "columns");
    for (size_t i = 0; i < rs->ncols; i++)
        cJSON_AddItemToArray(cols, cJSON_CreateString(rs->cols[i].key));
    cJSON_AddItemToObject(o, "rows", rows);
    page_place(o, offset, limit, more, query_units);
    flag_incomplete(o, rs->lost_rows > 0, mc, NULL);
    rowset_free(rs);
    return answer(o);
}

/* A window of one rank written as a Chrome trace file (export_window.h). */
static cJSON *tool_export_window(struct mcp_captures *cs, struct call *c)
{
    const char *window, *out;
    long rank;
    if (!arg_str(c, "window", true, &window) || !arg_str(c, "out", true, &out) ||
        !arg_int(c, "rank", -1, 1 << 20, -1, &rank))
        return NULL;
    struct export_window w = { 0 };
    char why[1024];
    if (export_window_parse(window, &w, why, sizeof why) != 0)
        return bad(c, "%s", why), NULL;
    cJSON *err = NULL;
    struct mcp_capture *mc = capture_of(cs, c, "capture", &err);
    if (!mc)
        return err;
    w.rank = export_window_rank(mc->s, (int)rank);
    if (w.rank == SIZE_MAX)
        return tool_error("%s: no timeline%s to export", mc->path, rank >= 0 ? " of that rank" : "");
    if (mc->s->root && path_inside(out, mc->s->root))
        return tool_error("%s: inside the capture; aptop never writes there%s", out, "");
    FILE *f = fopen(out, "wx");
    if (!f)
        return tool_error("%s: cannot be created (it may exist already)%s", out, "");
    long n = export_window_write(mc->s, &w, f, why, sizeof why);
    if (fclose(f) != 0 && n >= 0) {
        n = -1;
        snprintf(why, sizeof why, "the export could not be written");
    }
    if (n < 0)
        return tool_error("%s: %s", out, why);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "capture", mc->path);
    cJSON_AddStringToObject(o, "out", out);
    cJSON_AddNumberToObject(o, "events", (double)n);
    cJSON_AddStringToObject(o, "units", "the file's ts and dur are microseconds relative to otherData.origin_us");
    flag_incomplete(o, false, mc, NULL);
    return answer(o);
}

/* --- the table of tools ------------------------------------------------------------------ */

enum tool_kind { TK_SECTIONS, TK_OPEN, TK_DIFF, TK_FIND, TK_QUERY, TK_EXPORT };

struct tool {
    const char *name, *description;
    enum tool_kind kind;
    const char *sections;   /* TK_SECTIONS, TK_OPEN */
    const char *params;     /* the inputSchema's properties, JSON */
    const char *required;   /* JSON array */
};

#define CAPTURE_P "\"capture\":{\"type\":\"string\",\"description\":\"path of the capture (default: the first one opened)\"}"
#define PAGE_P "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"first row (next_offset of the last page)\"}," \
               "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":\"rows per section (default 50)\"}"
#define RANK_P "\"rank\":{\"type\":\"integer\",\"description\":\"only this rank (default: every rank)\"}"

static const struct tool tools[] = {
    { "open_capture", "Open (load, or reopen from the index cache) a profiling capture and return its overview: "
      "span, device busy, computing/communication/free, host-bound idle, top kernels, steps.", TK_OPEN, "overview",
      "\"path\":{\"type\":\"string\",\"description\":\"a capture folder or file on this host\"}", "[\"path\"]" },
    { "overview", "Where the time goes, per rank (times in µs).", TK_SECTIONS, "overview",
      CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "advice", "The advisor's findings by cost, with their evidence (rule, severity, cost_us, where).", TK_SECTIONS,
      "advice", CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "kernels", "Device kernels by name: count, total/avg/min/max µs, share of busy time.", TK_SECTIONS, "kernels",
      CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "steps", "Steps (prefill/decode/mixed) with their times, and step-time percentiles per phase.", TK_SECTIONS,
      "steps,phases", CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "ranks", "Every rank's step figures, the straggler, and the communication ops per rank and step.",
      TK_SECTIONS, "ranks,comm", CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "memory", "Device memory peaks per rank and component (MB).", TK_SECTIONS, "memory",
      CAPTURE_P "," PAGE_P "," RANK_P, "[]" },
    { "diff", "Compare two captures: kernels, steps and phases before and after.", TK_DIFF, NULL,
      "\"base\":{\"type\":\"string\"},\"new\":{\"type\":\"string\"}," PAGE_P, "[\"base\",\"new\"]" },
    { "find_slices", "Slices whose name matches a regular expression, optionally in a time window "
      "relative to the capture's start (start/end as 12.5ms, 300us, 2s).", TK_FIND, NULL,
      "\"pattern\":{\"type\":\"string\",\"description\":\"POSIX extended regular expression\"},"
      "\"start\":{\"type\":\"string\"},\"end\":{\"type\":\"string\"}," CAPTURE_P "," PAGE_P "," RANK_P, "[\"pattern\"]" },
    { "query", "Run one SQLite statement over the capture's index, as `aptop query` does. Tables: slice(id, ts, "
      "dur, name, category, track_id, depth, parent_id, rank), track, thread_track, counter_track, flow(slice_out, "
      "slice_in), counter, kernel, step, comm_op, memory (every column in `man aptop`, QUERY TABLES); functions "
      "args(slice_id), extract_arg(slice_id, key). Every time is an integer in ns (no rounding). Returns columns, "
      "rows (objects keyed by column name) and next_offset while rows are left.", TK_QUERY, NULL,
      "\"sql\":{\"type\":\"string\",\"description\":\"one SQL statement; ts and dur are integer ns\"}," CAPTURE_P
      "," PAGE_P, "[\"sql\"]" },
    { "export_window", "Write one rank's events in a time window (START..END from the capture's start, e.g. "
      "12.5ms..20ms) as a Chrome trace JSON file for Perfetto; returns the number of events.", TK_EXPORT, NULL,
      "\"window\":{\"type\":\"string\"},\"out\":{\"type\":\"string\",\"description\":\"a new file outside the capture\"},"
      CAPTURE_P "," RANK_P, "[\"window\",\"out\"]" },
};

cJSON *mcp_tools_list(void)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        const struct tool *t = &tools[i];
        char schema[2048];
        snprintf(schema, sizeof schema, "{\"type\":\"object\",\"properties\":{%s},\"required\":%s}", t->params,
                 t->required);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", t->name);
        cJSON_AddStringToObject(o, "description", t->description);
        cJSON *s = cJSON_Parse(schema);
        cJSON_AddItemToObject(o, "inputSchema", s ? s : cJSON_CreateObject());
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

cJSON *mcp_tool_call(struct mcp_captures *cs, const char *name, const cJSON *args, int *code, char *msg,
                     size_t msgsz)
{
    struct call c = { .args = args, .code = code, .msg = msg, .msgsz = msgsz };
    if (args && !cJSON_IsObject(args)) {
        bad(&c, "%s: arguments must be an object", name);
        return NULL;
    }
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        const struct tool *t = &tools[i];
        if (strcmp(t->name, name))
            continue;
        switch (t->kind) {
        case TK_OPEN: return sections_tool(cs, &c, t->sections, "path");
        case TK_SECTIONS: return sections_tool(cs, &c, t->sections, "capture");
        case TK_DIFF: return tool_diff(cs, &c);
        case TK_FIND: return tool_find_slices(cs, &c);
        case TK_QUERY: return tool_query(cs, &c);
        case TK_EXPORT: return tool_export_window(cs, &c);
        }
    }
    bad(&c, "unknown tool: %s", name);
    return NULL;
}
