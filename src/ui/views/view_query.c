/* The Query view: `:` asks for an SQL statement and shows its result as a table (the engine
 * of query/query.h over the loaded parts, the same as `aptop query`). The table sorts,
 * filters and exports like the others; Enter on a row that names a slice (or holds ts, with
 * dur and rank when present) shows it on the timeline. The statements typed are kept, most
 * recent last, in the settings file (never inside a capture); `:` offers the last one, Up
 * and Down step through the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"
#include "ui/shell/settings.h"
#include "ui/table/view_table.h"

#define HISTORY_KEY "query_history"
#define HISTORY_MAX 50
/* Rows kept for the screen: a statement returning more says so in its caption. */
#define SCREEN_ROWS 200000

struct qview {
    struct vtable tab;
    struct query *q;             /* over ui->s; closed whenever parts change */
    char sql[256];               /* the last statement run */
};

static struct qview *qv_of(struct view *v) { return v->priv; }

static void query_init(struct view *v)
{
    struct qview *qv = qv_of(v);
    vt_init(&qv->tab);
    qv->tab.origin = NS_NONE;    /* times as the statement gives them */
    snprintf(qv->tab.caption, sizeof qv->tab.caption, "Query");
    vt_empty(&qv->tab, "press : and type an SQL statement, e.g. SELECT name, count(*), sum(dur) FROM slice GROUP BY name"
                       "  (tables: man aptop, QUERY TABLES)");
    const char *last[HISTORY_MAX];
    size_t n = settings_get_all(HISTORY_KEY, last, HISTORY_MAX);
    if (n)
        snprintf(qv->sql, sizeof qv->sql, "%s", last[(n > HISTORY_MAX ? HISTORY_MAX : n) - 1]);
}

static void query_done(struct view *v)
{
    struct qview *qv = qv_of(v);
    vt_free(&qv->tab);
    query_close(qv->q);
    qv->q = NULL;
}

/* Parts were installed or freed: the engine saw the old ones (the result keeps its rows). */
static void query_changed(struct view *v)
{
    struct qview *qv = qv_of(v);
    query_close(qv->q);
    qv->q = NULL;
}

/* The statement becomes the most recent of the history (once). */
static void remember(const char *sql)
{
    const char *old[HISTORY_MAX];
    size_t n = settings_get_all(HISTORY_KEY, old, HISTORY_MAX);
    if (n > HISTORY_MAX)
        n = HISTORY_MAX;
    const char *keep[HISTORY_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(old[i], sql) && k + 1 < HISTORY_MAX)
            keep[k++] = old[i];
    /* settings_set_all replaces the values the pointers point into: copy them first */
    char *copies[HISTORY_MAX];
    size_t nc = 0;
    for (size_t i = 0; i < k; i++)
        if ((copies[nc] = strdup(keep[i])))
            nc++;
    copies[nc] = strdup(sql);
    if (copies[nc])
        nc++;
    settings_set_all(HISTORY_KEY, (const char *const *)copies, nc);
    for (size_t i = 0; i < nc; i++)
        free(copies[i]);
}

static void run(struct view *v, const char *sql)
{
    struct qview *qv = qv_of(v);
    struct ui *ui = v->ui;
    char err[512] = "";
    if (!qv->q && ui->s)
        qv->q = query_open(ui->s, err, sizeof err);
    struct rowset *rs = qv->q ? query_run(qv->q, sql, SCREEN_ROWS, err, sizeof err) : NULL;
    vt_set(&qv->tab, NULL);      /* a new result: a fresh table in its own order */
    qv->tab.sel = qv->tab.top = 0;
    /* the count first: a long statement is cut at the screen's edge */
    snprintf(qv->tab.caption, sizeof qv->tab.caption, "Query%s%s%s: %s", rs && rs->caption ? ", " : "",
             rs && rs->caption ? rs->caption : "", ui->load.loading ? " (still loading: over what is loaded)" : "", sql);
    if (!rs) {
        vt_empty(&qv->tab, "%s", err);
        ui_error(ui, "query: %s", err);
        return;
    }
    vt_set(&qv->tab, rs);
    if (!rs->nrows)
        vt_empty(&qv->tab, "no rows");
}

static void prompt_done(struct view *v, void *user, const char *text, bool accepted)
{
    (void)user;
    struct qview *qv = qv_of(v);
    while (*text == ' ')
        text++;
    if (!accepted || !*text)
        return;
    snprintf(qv->sql, sizeof qv->sql, "%s", text);
    remember(qv->sql);
    run(v, qv->sql);
}

/* The rank index of rank id `rank` in the session, or SIZE_MAX. */
static size_t rank_index(const struct ui *ui, int64_t rank)
{
    for (size_t i = 0; ui->s && i < ui->s->nranks; i++)
        if (ui->s->ranks[i].rank == rank)
            return i;
    return SIZE_MAX;
}

/* Enter: the row's slice, else its time range, on the timeline. */
static void open_row(struct view *v, size_t row)
{
    struct qview *qv = qv_of(v);
    struct ui *ui = v->ui;
    uint64_t link = qv->tab.rs->link[row];
    int64_t ts, dur = 0, rank;
    if (link != QUERY_NO_LINK) {
        ui_goto_slice(ui, rowset_link_rank(link), (uint32_t)rowset_link_entry(link));
        return;
    }
    if (!vt_int(&qv->tab, row, "ts", &ts)) {
        ui_error(ui, "this row names no slice (slice.id, slice_id) and has no ts column");
        return;
    }
    vt_int(&qv->tab, row, "dur", &dur);
    size_t ri = vt_int(&qv->tab, row, "rank", &rank) ? rank_index(ui, rank) : ui->rank;
    if (ri == SIZE_MAX) {
        ui_error(ui, "rank %lld is not loaded", (long long)rank);
        return;
    }
    ui_goto_range(ui, ri, ts, ts + (dur > 0 ? dur : 1));
}

static enum request query_request(struct view *v, enum request req, int key)
{
    struct qview *qv = qv_of(v);
    struct ui *ui = v->ui;
    if (req == REQ_VIEW_QUERY) {
        ui_prompt(ui, v, "SQL: ", qv->sql, NULL, prompt_done, NULL);
        const char *hist[HISTORY_MAX];
        size_t n = settings_get_all(HISTORY_KEY, hist, HISTORY_MAX);
        ui_prompt_history(ui, hist, n < HISTORY_MAX ? n : HISTORY_MAX);
        return REQ_NONE;
    }
    req = vt_request(v, &qv->tab, req, key);
    if (req == REQ_ENTER) {
        size_t row = vt_selected(&qv->tab);
        if (row != SIZE_MAX)
            open_row(v, row);
        return REQ_NONE;
    }
    return req;
}

static void query_draw(struct view *v, WINDOW *w)
{
    werase(w);
    vt_draw(&qv_of(v)->tab, w, 0, getmaxy(w));
}

static const char *query_hint(struct view *v)
{
    (void)v;
    return ":SQL  Enter:timeline  e:export  /:search  &:filter  <>:sort";
}

const struct view_ops view_query = {
    .open = REQ_VIEW_QUERY,
    .help = "SQL over the loaded index: asks for a statement, shows its rows (man aptop, QUERY TABLES)",
    .name = "Query", .scopes = SCOPE_TABLE, .private_size = sizeof(struct qview),
    .init = query_init, .done = query_done, .draw = query_draw, .request = query_request,
    .data_changed = query_changed, .hint = query_hint,
};
