/* `aptop report --section memory,memory_ops,memory_static` on the real captures, checked by the
 * independent computation in tests/checks/memory_check.py (csv and sqlite3 modules), and the
 * sections' shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

TEST(cli_memory_equals_independent_python)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    int st;
    char *out = test_check("memory", &st);
    if (st)
        printf("    %s", out);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "memory ") == out);
    CHECK(strstr(out, " ok ") != NULL);
    CHECK(strstr(out, "captures with memory data exact") != NULL);
    /* every capture that has memory data is exact: "N/N captures" */
    int exact = -1, total = -2;
    const char *ok = strstr(out, " ok ");
    CHECK(ok && sscanf(ok, " ok %d/%d captures", &exact, &total) == 2);
    CHECK(exact == total && total > 0);
    free(out);
}

TEST(cli_memory_sections_keys)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level0");
    int st;
    char *out = test_aptop(&st, "report --format json --section memory,memory_ops '%s' | python3 -c "
                           "'import json,sys; d=json.load(sys.stdin); m=d[\"memory\"]; o=d[\"memory_ops\"]; "
                           "print(len(m), len(o), sorted({r[\"rank\"] for r in m}), "
                           "[k for k in (\"rank\",\"component\",\"peak_allocated_mb\",\"peak_reserved_mb\",\"peak_at_us\") if k not in m[0]], "
                           "[k for k in (\"rank\",\"name\",\"size_kb\",\"alloc_us\",\"release_us\",\"lifetime_us\") if k not in o[0]], "
                           "sum(1 for r in o if r[\"release_us\"] is None))'", p);
    CHECK_INT(st, 0);
    /* two ranks, each: APP, PTA, PTA+GE, GE and the npu_module_mem components; 184 ops per rank */
    CHECK(strstr(out, " 368 [0, 1] [] [] ") != NULL);
    free(out);
}

TEST(cli_memory_section_absent_says_so)
{
    int st;
    char *out = test_aptop(&st, "report --section memory fixtures/vllm_decode_2rank 2>&1");
    CHECK(strstr(out, "== memory: not available for this capture") != NULL);
    free(out);
}
