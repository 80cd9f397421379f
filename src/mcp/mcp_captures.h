/* The captures an MCP server holds loaded: opened once (from the index cache when it has
 * them), found again by the path a tool names. Private to src/mcp. */
#ifndef APTOP_MCP_CAPTURES_H
#define APTOP_MCP_CAPTURES_H
#include <stdbool.h>
#include <stddef.h>

#include "io/cache/index_cache.h"
#include "io/discovery/capture.h"
#include "model/index/session.h"
#include "query/query.h"

struct mcp_capture {
    char *path;
    struct capture c;
    struct session *s;
    struct diag *d;
    struct query *q;    /* the query tool's engine over s, opened at its first call */
};

struct mcp_captures {
    struct mcp_capture *v;
    size_t n, cap;
    const struct cache_opts *cache;
};

/* The capture at path, loaded now if it was not (NULL path: the first one opened). NULL
 * with the reason in err (the file and what is wrong) when it cannot be loaded. */
struct mcp_capture *mcp_capture_get(struct mcp_captures *cs, const char *path, char *err, size_t errsz);
void mcp_captures_free(struct mcp_captures *cs);

#endif
