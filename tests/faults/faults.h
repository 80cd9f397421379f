/* Fault injection: the real aptop binary run while something goes wrong around it, and what
 * it must do then (the policies of man aptop, SIGNALS AND FAULTS):
 *   test_shrink.c     a trace cut by another program while it is read (explorer, report)
 *   test_terminal.c   no terminal at all, a terminal that goes away (hang-up, SIGHUP)
 *   test_signals.c    SIGQUIT during a load (explorer, report), SIGXFSZ (a file size limit)
 *   test_settings.c   a settings file that is /dev/zero or a FIFO
 * A new fault family gets a file of its own here (`make check-faults` builds every
 * C file of tests/faults into build/san/faults_tests). Every test asserts that aptop did not die
 * by a signal, restored the terminal where it had one, and ended with the exit status and the
 * message stated; a test that cannot make its fault happen says so and fails, it never passes
 * on a run where nothing went wrong. The helpers below start aptop with its input, output,
 * environment and limits set, and wait for it with a deadline (a hang is a failure, never a
 * stuck run). */
#ifndef APTOP_TEST_FAULTS_H
#define APTOP_TEST_FAULTS_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How to start aptop (fields left 0 take the default). */
struct fault_cmd {
    const char *args[24];      /* aptop's arguments, NULL-terminated */
    const char *env[8];        /* NAME=VALUE set for it, NULL-terminated */
    int tty;                   /* a terminal (pty slave fd) for stdin, stdout; 0: none */
    const char *out, *err;     /* files for stdout and stderr (default /dev/null) */
    const char *in;            /* file for stdin when tty is 0 (default /dev/null) */
    uint64_t file_limit;       /* RLIMIT_FSIZE in bytes (ulimit -f); 0: none */
};

/* Starts it; the pid, or -1 (a failure recorded). */
pid_t fault_start(const struct fault_cmd *c);
/* Waits up to timeout_ms for pid, then kills it (SIGKILL) and records a failure naming
 * `what`. The wait status, or -1 when it had to be killed. */
int fault_wait(pid_t pid, long timeout_ms, const char *what);
/* Records a failure unless status is a normal exit with code `code` (names a signal death). */
void fault_check_exit_at(const char *file, int line, int status, int code);
#define fault_check_exit(status, code) fault_check_exit_at(__FILE__, __LINE__, status, code)

/* A new empty folder /tmp/aptop-fault-STEM-XXXXXX in buf; false when it cannot be made. */
bool fault_dir(const char *stem, char *buf, size_t size);
/* Removes a folder made by fault_dir and everything in it. */
void fault_rm(const char *dir);
/* Writes a Class A capture into dir/cap (cap/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/
 * trace_view.json, about mb MiB of device kernels), so that the rest of dir (a cache folder,
 * output files) lies outside it; the capture's folder in cap, the trace's path in path (both
 * FAULT_PATH bytes). */
#define FAULT_PATH 4096
bool fault_capture(const char *dir, unsigned mb, char *cap, char *path);
/* Waits until process pid has a mapping of file (it is being read); false after timeout_ms. */
bool fault_wait_mapped(pid_t pid, const char *file, long timeout_ms);
/* Waits until folder dir holds a name containing part; false after timeout_ms. */
bool fault_wait_name(const char *dir, const char *part, long timeout_ms);
/* How many names in dir contain part (-1: no folder). */
int fault_count_names(const char *dir, const char *part);
/* The whole file (malloc'd, "" when unreadable). */
char *fault_read(const char *path);

/* A pseudo-terminal for aptop to run on: what it writes is kept (drained while waiting, so
 * that it never blocks on a full terminal). */
struct fault_pty {
    int master, slave;     /* slave: give it as fault_cmd.tty; -1 once closed */
    char *out;             /* everything read from the master so far, NUL-terminated */
    size_t len, cap;
};
/* Opens one of cols x rows; false (a failure recorded) when none can be had. */
bool fault_pty_open(struct fault_pty *p, int cols, int rows);
/* Reads what aptop wrote for up to ms (returns early once `until` was seen, when not NULL);
 * true when `until` was seen. */
bool fault_pty_read(struct fault_pty *p, long ms, const char *until);
/* fault_wait, draining the terminal meanwhile. */
int fault_pty_wait(struct fault_pty *p, pid_t pid, long timeout_ms, const char *what);
/* The terminal is back in its normal mode (canonical input, echo): what aptop restores when
 * it ends. Asked on the slave side, which the test keeps open. */
bool fault_pty_restored(const struct fault_pty *p);
void fault_pty_close(struct fault_pty *p);

#endif
