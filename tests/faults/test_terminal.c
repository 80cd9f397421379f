/* The explorer and its terminal: without one it refuses at once (pointing to report) instead
 * of drawing into the void; a terminal that goes away (hung up, or SIGHUP) ends it with the
 * status of SIGHUP (129) instead of a loop that spins on a dead input. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "faults.h"

#define FIXTURE "fixtures/vllm_decode_2rank"

static bool have_fixture(void)
{
    return access(FIXTURE, R_OK) == 0;
}

TEST(faults_explorer_without_a_terminal_refuses_at_once)
{
    if (!have_fixture())
        SKIP("fixtures missing: make fixtures");
    char dir[256], out[300], err[300];
    if (!fault_dir("notty", dir, sizeof dir))
        SKIP("no temporary folder");
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    /* stdin and stdout not terminals (ssh without -t, nohup); then stdout alone not one */
    for (int k = 0; k < 2; k++) {
        struct fault_pty p = { .master = -1, .slave = -1 };
        struct fault_cmd c = { .args = { FIXTURE }, .out = out, .err = err };
        if (k == 1) {
            if (!fault_pty_open(&p, 100, 30))
                break;
            c.in = ptsname(p.master);
        }
        int status = fault_wait(fault_start(&c), 10000, "the explorer without a terminal");
        fault_check_exit(status, 2);
        char *e = fault_read(err), *o = fault_read(out);
        if (!strstr(e, "needs a terminal") || !strstr(e, "aptop report"))
            test_fail(__FILE__, __LINE__, "case %d: stderr does not say why nor what works:\n%s", k, e);
        CHECK_INT(strlen(o), 0);   /* not a byte of screen drawn into the file */
        free(e);
        free(o);
        fault_pty_close(&p);
    }
    fault_rm(dir);
}

/* The explorer on a pty whose other side is closed: its input hangs up. It is no session
 * leader of that terminal, so no SIGHUP comes: the hang-up itself must end it. */
TEST(faults_explorer_ends_when_its_terminal_hangs_up)
{
    if (!have_fixture())
        SKIP("fixtures missing: make fixtures");
    struct fault_pty p;
    if (!fault_pty_open(&p, 120, 40))
        return;
    struct fault_cmd c = { .args = { FIXTURE }, .tty = p.slave, .env = { "TERM=xterm", "LANG=C.UTF-8" } };
    pid_t pid = fault_start(&c);
    bool drawn = fault_pty_read(&p, 30000, "help");
    CHECK(drawn);
    close(p.master);   /* the window is closed */
    p.master = -1;
    int status = fault_pty_wait(&p, pid, 10000, "the explorer on a hung-up terminal");
    fault_check_exit(status, 128 + SIGHUP);
    fault_pty_close(&p);
}

TEST(faults_explorer_sighup_ends_it_with_the_terminal_restored)
{
    if (!have_fixture())
        SKIP("fixtures missing: make fixtures");
    struct fault_pty p;
    if (!fault_pty_open(&p, 120, 40))
        return;
    struct fault_cmd c = { .args = { FIXTURE }, .tty = p.slave, .env = { "TERM=xterm", "LANG=C.UTF-8" } };
    pid_t pid = fault_start(&c);
    CHECK(fault_pty_read(&p, 30000, "help"));
    CHECK(!fault_pty_restored(&p));   /* the explorer has the terminal in its own mode */
    kill(pid, SIGHUP);
    int status = fault_pty_wait(&p, pid, 10000, "the explorer after SIGHUP");
    fault_check_exit(status, 128 + SIGHUP);
    CHECK(fault_pty_restored(&p));
    CHECK(memmem(p.out, p.len, "\033[?1049l", 8) != NULL);   /* xterm's alternate screen left */
    fault_pty_close(&p);
}
