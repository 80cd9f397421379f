/* The Collectives view (W) driven from the keyboard in tmux on the generated 4-rank capture
 * (tools/gen_comm_fixtures.py): the planted late arrival (rank 3, 4.5 ms late at the third
 * collective) is the first row with the wait it caused, a narrow terminal shows fewer ranks
 * and says so, Enter opens X-Rank on that collective, t the link matrix with the planted
 * slow link 2 -> 3 marked. */
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define FIX "fixtures/comm_xrank"
#define WAIT 15000

TEST(collectives_tmux_planted_late_arriver_and_slow_link)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    struct tmux t;
    if (!tmux_open(&t, FIX, 300, 30, "loaded ", WAIT)) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "W", NULL);
    CHECK(tmux_wait(&t, "[W]Collectives", WAIT) >= 0);
    CHECK(tmux_wait(&t, "7 instances", WAIT) >= 0);
    CHECK(tmux_wait(&t, "Collectives x rank: 4 ranks", WAIT) >= 0);   /* wide: every rank shown */
    char *s = tmux_screen(&t);
    /* sorted by caused wait: the planted instance first, its last arriver rank 3 */
    const char *row = s ? strstr(s, "hcom_allGather__321_2_1") : NULL;
    const char *other = s ? strstr(s, "hcom_allGather__321_4_1") : NULL;
    CHECK(row != NULL && other != NULL && row < other);
    if (row) {
        const char *eol = strchr(row, '\n');
        char line[400];
        size_t n = eol ? (size_t)(eol - row) : strlen(row);
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, row, n);
        line[n] = 0;
        CHECK(strstr(line, "13.5165") != NULL);
        CHECK(strstr(line, " 3 ") != NULL);
        CHECK(strstr(line, "last") != NULL);
    }
    CHECK(s && strstr(s, "rank 3 arrived last") != NULL);
    free(s);

    /* Enter: X-Rank on that collective, every rank's slice found */
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "X-Rank: the collective on 4 of 4", WAIT) >= 0);

    /* the link matrix: HCCS first, one slow link, the cursor cell described in full */
    tmux_keys(&t, "W", NULL);
    CHECK(tmux_wait(&t, "[W]Collectives", WAIT) >= 0);
    tmux_keys(&t, "t", NULL);
    CHECK(tmux_wait(&t, "Link matrix HCCS", WAIT) >= 0);
    CHECK(tmux_wait(&t, "1 slow", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK(s && strstr(s, "4.1051!") != NULL);   /* 2 -> 3, a quarter of the others */
    free(s);
    tmux_keys(&t, "T", NULL);
    CHECK(tmux_wait(&t, "Link matrix LOCAL", WAIT) >= 0);
    tmux_kill(&t);

    /* a narrow terminal: fewer rank groups, and the header says which */
    if (!tmux_open(&t, FIX, 100, 30, "loaded ", WAIT)) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "W", NULL);
    CHECK(tmux_wait(&t, "[W]Collectives", WAIT) >= 0);
    CHECK(tmux_wait(&t, " of 4 (Left/Right: the others)", WAIT) >= 0);
    tmux_kill(&t);
}
