/* Captures held loaded by the MCP server (see mcp_captures.h). */
#include "mcp/mcp_captures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cache/cache_outside.h"
#include "io/load/loader.h"
#include "io/load/memcheck.h"
#include "util/grow.h"

static void capture_close(struct mcp_capture *mc)
{
    query_close(mc->q);   /* it borrows the session */
    session_free(mc->s);
    capture_free(&mc->c);
    diag_free(mc->d);
    free(mc->path);
}

/* The first error (else warning) of d as one line, for a tool's answer. */
static void first_problem(struct diag *d, char *err, size_t errsz)
{
    for (int want = DIAG_ERROR; want >= DIAG_WARN; want--)
        for (size_t i = 0, n = diag_count(d); i < n; i++) {
            struct diag_msg m;
            if (diag_get(d, i, &m) < 0)
                continue;
            bool hit = (int)m.level == want;
            if (hit)
                snprintf(err, errsz, "%s%s%s", m.path, m.path[0] ? ": " : "", m.text);
            free(m.path);
            free(m.text);
            if (hit)
                return;
        }
}

/* The load's warnings and errors on stderr (the server's diagnostics), once. */
static void print_problems(struct diag *d)
{
    for (size_t i = 0, n = diag_count(d); i < n; i++) {
        struct diag_msg m;
        if (diag_get(d, i, &m) < 0)
            continue;
        if (m.level >= DIAG_WARN)
            fprintf(stderr, "aptop mcp: %s: %s%s%s\n", diag_level_name(m.level), m.path, m.path[0] ? ": " : "",
                    m.text);
        free(m.path);
        free(m.text);
    }
}

/* Discovers, checks against the memory and loads path, as `aptop report` does: the index
 * cache off when it lies inside the capture (cache_outside.h). */
static bool capture_open(struct mcp_capture *mc, const char *path, const struct cache_opts *cache, char *err,
                         size_t errsz)
{
    memset(mc, 0, sizeof *mc);
    mc->d = diag_new();
    mc->path = strdup(path);
    if (!mc->d || !mc->path) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    snprintf(err, errsz, "%s: nothing could be loaded", path);
    if (capture_discover(path, &mc->c, mc->d) != 0 || memcheck_capture_env(&mc->c, -1, NULL, mc->d) != 0) {
        first_problem(mc->d, err, errsz);
        return false;
    }
    if (!(mc->s = session_new(&mc->c, mc->d))) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    struct cache_opts kept = *cache;
    cache_keep_outside(&kept, &path, 1, &mc->c, mc->d);
    struct loader_opts lo = { .rank = -1, .cache = &kept };
    int parts = loader_run_sync(&mc->c, mc->s, &lo);
    print_problems(mc->d);
    if (parts <= 0 || session_nothing_loaded(mc->s)) {
        first_problem(mc->d, err, errsz);
        return false;
    }
    err[0] = 0;
    return true;
}

struct mcp_capture *mcp_capture_get(struct mcp_captures *cs, const char *path, char *err, size_t errsz)
{
    if (!path) {
        if (cs->n)
            return &cs->v[0];
        snprintf(err, errsz, "no capture is open: call open_capture with a path first");
        return NULL;
    }
    for (size_t i = 0; i < cs->n; i++)
        if (!strcmp(cs->v[i].path, path))
            return &cs->v[i];
    struct mcp_capture mc;
    if (!capture_open(&mc, path, cs->cache, err, errsz)) {
        capture_close(&mc);
        return NULL;
    }
    struct mcp_capture *nv = grow_array(cs->v, &cs->cap, cs->n + 1, sizeof *cs->v);
    if (!nv) {
        capture_close(&mc);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    cs->v = nv;
    cs->v[cs->n] = mc;
    return &cs->v[cs->n++];
}

void mcp_captures_free(struct mcp_captures *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        capture_close(&cs->v[i]);
    free(cs->v);
    *cs = (struct mcp_captures){ 0 };
}
