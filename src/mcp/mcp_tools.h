/* The MCP server's tools (see mcp.h): each takes its arguments object and answers a result
 * object, or fails with a JSON-RPC error code and message. Private to src/mcp. */
#ifndef APTOP_MCP_TOOLS_H
#define APTOP_MCP_TOOLS_H
#include <cjson/cJSON.h>

#include "mcp/mcp_captures.h"

#define MCP_INVALID_PARAMS (-32602)

/* tools/list's "tools" array (the caller deletes it). */
cJSON *mcp_tools_list(void);
/* Runs tool `name`. Returns the tools/call result (content, structuredContent, isError), or
 * NULL with *code and msg set for a JSON-RPC error (unknown tool, bad arguments). */
cJSON *mcp_tool_call(struct mcp_captures *cs, const char *name, const cJSON *args, int *code, char *msg,
                     size_t msgsz);

#endif
