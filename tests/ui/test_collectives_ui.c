/* The Collectives view (W), driven headless (--script): one row per collective instance
 * across ranks, sorted by the wait the last arriver caused, with the same figure as the
 * report's comm_ranks section (checked against the files by tests/checks/comm_check.py);
 * Enter shows the collective on every rank in X-Rank, aligned; t the link matrix, T the
 * next transport. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define REAL_L1 "Ascend-msinsight/test/data/pytorch/text/level1"

TEST(collectives_ui_instances_xrank_and_link_matrix_real)
{
    REAL_OR_SKIP(p, REAL_L1);
    int st = 0;
    /* the largest caused wait and its instance's rows, from the report */
    char *rep = test_aptop(&st, "report --format json --section comm_ranks '%s' | python3 -c '"
                           "import json,sys; d=json.load(sys.stdin)[\"comm_ranks\"]; "
                           "r=max((x for x in d if x[\"caused_wait_ms\"] is not None), key=lambda x: x[\"caused_wait_ms\"]); "
                           "print(r[\"name\"].split(\"@\")[0], r[\"rank\"], r[\"caused_wait_ms\"], "
                           "len({x[\"instance\"] for x in d}))'", p);
    CHECK_INT(st, 0);
    char name[256] = "", cw[64] = "";
    int last = -1, ninst = 0;
    CHECK(rep && sscanf(rep, "%255s %d %63s %d", name, &last, cw, &ninst) == 4);
    free(rep);
    char path[64], script[1024];
    snprintf(script, sizeof script,
             "loaded\nkeys W\nwait [W]Collectives\ndump\n"
             "keys Enter\nwait X-Rank: the collective on\ndump\n"
             "keys W t\nwait Link matrix\ndump\nkeys T\nwait transport\ndump\n");
    const char *f = test_temp_file("coll", script, path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    char *out = test_aptop(&st, "--script '%s' --size 140x30 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    CHECK(out != NULL);
    if (!out)
        return;
    char want[512];
    snprintf(want, sizeof want, "%d instances", ninst);
    CHECK(strstr(out, want) != NULL);
    /* the first row: the instance whose last arriver caused the most wait, the same figure */
    const char *row = strstr(out, "\n \xe2\x96\xb8 ");   /* the cursor row of the table */
    CHECK(row != NULL);
    if (row) {
        snprintf(want, sizeof want, "%s", name);
        CHECK(strncmp(row + 6, want, strlen(want)) == 0);
        const char *eol = strchr(row + 1, '\n');
        char line[1024];
        snprintf(line, sizeof line, "%.*s", eol ? (int)(eol - row) : 200, row);
        /* the same figure at its column's precision (at least 3 decimals: within 0.0005 ms) */
        bool same = false;
        double want_cw = strtod(cw, NULL);
        for (char *tok = strtok(line, " "); tok && !same; tok = strtok(NULL, " ")) {
            char *end;
            double v = strtod(tok, &end);
            same = end != tok && !*end && fabs(v - want_cw) <= 0.0005 + 1e-12;
        }
        CHECK(same);
    }
    snprintf(want, sizeof want, "rank %d arrived last", last);
    CHECK(strstr(out, want) != NULL);
    /* X-Rank on that collective, on both ranks, aligned */
    CHECK(strstr(out, "X-Rank: the collective on 2 of 2 ranks, aligned on collective ends") != NULL);
    CHECK(strstr(out, "lanes: by name HCCL") != NULL);
    CHECK(strstr(out, "Time: aligned on") != NULL);
    /* the link matrix, then the next transport */
    CHECK(strstr(out, "Link matrix HCCS (1 of 2 transports") != NULL);
    CHECK(strstr(out, "Link matrix LOCAL (2 of 2 transports") != NULL);
    free(out);
}

/* A terminal too narrow for every rank's column group says which ranks it shows, and
 * Left/Right bring the others (the first columns, name and caused wait, stay). */
TEST(collectives_ui_narrow_terminal_shows_which_ranks)
{
    const char *fx = "fixtures/vllm_decode_2rank";
    if (access(fx, R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    char path[64];
    const char *f = test_temp_file("coll", "loaded\nkeys W\nwait [W]Collectives\ndump\n"
                                 "keys Right Right Right Right Right\nwait ranks 1-1 shown\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 120x20 '%s' 2>&1", f, fx);
    unlink(f);
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "ranks 0-0 shown, 1 of 2 (Left/Right: the others)") != NULL);
    CHECK(out && strstr(out, "ranks 1-1 shown, 1 of 2") != NULL);
    CHECK(out && strstr(out, "20 instances") != NULL);
    free(out);
}
