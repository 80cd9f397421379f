/* `aptop mcp`: a scripted client (tests/checks/mcp_client.py) speaks JSON-RPC to the real
 * binary over a copy of a fixture capture; every tool's rows equal `aptop report`'s, the query
 * tool's the counts and sums recomputed from the trace files. */
#include "../runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(mcp_server_answers_a_scripted_client)
{
    const char *f = "fixtures/vllm_decode_2rank";
    if (!test_is_dir(f))
        SKIP("fixtures missing: make fixtures");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 tests/checks/mcp_client.py '%s' '%s' 2>&1", test_bin(), f);
    int st;
    char *out = test_run(cmd, &st);
    if (st)
        printf("%s", out);
    CHECK_INT(st, 0);
    CHECK(strstr(out, " 0 failed") != NULL);
    CHECK(strstr(out, "ok   a second call is answered from the capture already loaded") != NULL);
    CHECK(strstr(out, "ok   a capture that cannot be loaded is a tool error naming it") != NULL);
    CHECK(strstr(out, "ok   query: slice counts and dur sums of ") != NULL);
    CHECK(strstr(out, "ok   query: bad SQL is error -32602") != NULL);
    CHECK(strstr(out, "ok   a second query is answered from the capture already loaded") != NULL);
    free(out);
}
