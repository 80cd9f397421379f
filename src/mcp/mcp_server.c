/* The MCP server's JSON-RPC loop on stdin/stdout (see mcp.h). */
#include "mcp/mcp.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_captures.h"
#include "mcp/mcp_tools.h"

#define PARSE_ERROR (-32700)
#define INVALID_REQUEST (-32600)
#define METHOD_NOT_FOUND (-32601)

/* The protocol versions this server speaks; the client's is answered when it is one. */
static const char *const versions[] = { "2025-06-18", "2025-03-26", "2024-11-05" };

static void send_msg(FILE *out, cJSON *msg)
{
    char *text = cJSON_PrintUnformatted(msg);
    if (text) {
        fputs(text, out);
        fputc('\n', out);
        fflush(out);
    }
    free(text);
    cJSON_Delete(msg);
}

static cJSON *reply(const cJSON *id)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    return r;
}

static void send_error(FILE *out, const cJSON *id, int code, const char *message)
{
    cJSON *r = reply(id);
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    send_msg(out, r);
}

static void send_result(FILE *out, const cJSON *id, cJSON *result)
{
    cJSON *r = reply(id);
    cJSON_AddItemToObject(r, "result", result);
    send_msg(out, r);
}

static cJSON *initialize(const cJSON *params)
{
    const cJSON *asked = params ? cJSON_GetObjectItemCaseSensitive(params, "protocolVersion") : NULL;
    const char *version = MCP_PROTOCOL_VERSION;
    for (size_t i = 0; cJSON_IsString(asked) && i < sizeof versions / sizeof versions[0]; i++)
        if (!strcmp(asked->valuestring, versions[i]))
            version = versions[i];
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", version);
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddBoolToObject(tools, "listChanged", false);
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "aptop");
    cJSON_AddStringToObject(info, "version", APTOP_VERSION);
    cJSON_AddStringToObject(r, "instructions",
                            "Profiling captures of Ascend NPUs and GPUs: open_capture first (or start the server with "
                            "paths), then ask overview, advice, kernels, steps, ranks, memory, or query in SQL (times "
                            "integer ns); pages of 50 rows, "
                            "ask again with offset = next_offset for more.");
    return r;
}

/* One message: a request gets one response, a notification none. */
static void handle(struct mcp_captures *cs, const cJSON *msg, FILE *out)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    bool notification = id == NULL;
    if (!cJSON_IsObject(msg) || !cJSON_IsString(method)) {
        if (!notification || !cJSON_IsObject(msg))
            send_error(out, id, INVALID_REQUEST, "not a JSON-RPC 2.0 request (an object with a method)");
        return;
    }
    const char *m = method->valuestring;
    if (notification)   /* notifications/initialized, cancelled, ...: nothing to answer */
        return;
    if (!strcmp(m, "initialize")) {
        send_result(out, id, initialize(params));
    } else if (!strcmp(m, "ping")) {
        send_result(out, id, cJSON_CreateObject());
    } else if (!strcmp(m, "tools/list")) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddItemToObject(r, "tools", mcp_tools_list());
        send_result(out, id, r);
    } else if (!strcmp(m, "tools/call")) {
        const cJSON *name = params ? cJSON_GetObjectItemCaseSensitive(params, "name") : NULL;
        if (!cJSON_IsString(name)) {
            send_error(out, id, MCP_INVALID_PARAMS, "tools/call needs params.name, a tool's name");
            return;
        }
        int code = 0;
        char why[1024] = "";
        cJSON *r = mcp_tool_call(cs, name->valuestring, cJSON_GetObjectItemCaseSensitive(params, "arguments"), &code,
                                 why, sizeof why);
        if (r)
            send_result(out, id, r);
        else
            send_error(out, id, code ? code : MCP_INVALID_PARAMS, why);
    } else {
        char text[300];
        snprintf(text, sizeof text, "method not found: %.200s", m);
        send_error(out, id, METHOD_NOT_FOUND, text);
    }
}

/* One line of input, whole (NULL at the end); the caller frees it. */
static char *read_line(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, in);
    if (n < 0) {
        free(line);
        return NULL;
    }
    return line;
}

int mcp_serve(const char *const *paths, size_t n, const struct cache_opts *cache, FILE *in, FILE *out)
{
    struct mcp_captures cs = { .cache = cache };
    for (size_t i = 0; i < n; i++) {
        char why[1024];
        if (!mcp_capture_get(&cs, paths[i], why, sizeof why))
            fprintf(stderr, "aptop mcp: %s: not loaded: %s\n", paths[i], why);
    }
    char *line;
    while ((line = read_line(in))) {
        size_t len = strspn(line, " \t\r\n");
        if (line[len]) {
            cJSON *msg = cJSON_Parse(line);
            if (!msg)
                send_error(out, NULL, PARSE_ERROR, "the line is not JSON");
            else if (cJSON_IsArray(msg))
                send_error(out, NULL, INVALID_REQUEST, "batches are not supported: one message per line");
            else
                handle(&cs, msg, out);
            cJSON_Delete(msg);
        }
        free(line);
    }
    mcp_captures_free(&cs);
    return 0;
}
