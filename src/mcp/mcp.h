/* `aptop mcp [PATH...]`: a Model Context Protocol server on stdin/stdout, so that agents ask
 * aptop's exact figures instead of loading a whole trace for every question:
 *
 *   stdin ─► one JSON-RPC 2.0 message per line ─► initialize | tools/list | tools/call | ping
 *                                                    │
 *          open captures (mcp_captures.c) ◄──────────┤ a tool (mcp_tools.c): report sections,
 *          kept loaded between calls, cache-backed   │ diff, slices by name, SQL (the engine
 *                                                    │ of `aptop query`), window export
 *   stdout ◄─ one response per line ◄────────────────┘
 *
 * A tool answers with its rows as JSON (structuredContent, and the same text as content),
 * a page at a time: `offset`/`limit` arguments, `next_offset` while rows are left. Bad
 * arguments are JSON-RPC errors (-32602) and the server goes on; a capture that cannot be
 * loaded is a tool error naming the file and why. Diagnostics go to stderr. */
#ifndef APTOP_MCP_H
#define APTOP_MCP_H
#include <stddef.h>
#include <stdio.h>

#include "io/cache/index_cache.h"

/* The protocol version answered when the client asks for one this server does not know. */
#define MCP_PROTOCOL_VERSION "2025-06-18"

/* Serves until in ends. paths (n of them) are opened first; a tool works on the first
 * opened capture unless its "capture" argument names another. Returns 0. */
int mcp_serve(const char *const *paths, size_t n, const struct cache_opts *cache, FILE *in, FILE *out);

#endif
