/* The signal policy, in one place:
 * - The faults a thread's own instruction raises (SIGBUS, SIGSEGV, SIGFPE, SIGILL) are never
 *   blocked in any thread: a blocked fault is not delivered to its handler (the mapped-file
 *   handler, io/files/mapped_file.h), the kernel ends the process instead. Threads are
 *   started with every other signal blocked (signals_block_for_thread), so that those go to
 *   the main thread.
 * - SIGINT, SIGTERM, SIGHUP and SIGQUIT end the program alike: temporary files are removed
 *   (util/temp_files.h), the terminal is restored, the exit status is 128 + the signal's
 *   number, and no core is written. The explorer replaces these handlers with its own while
 *   its screen is up (it ends its loop and leaves the terminal first).
 * - SIGXFSZ (a file size limit, ulimit -f) is ignored: the write that passes the limit fails
 *   with EFBIG and the writer says so.
 * - SIGPIPE is ignored: `aptop report | head` ends quietly when head closes the pipe. */
#ifndef APTOP_UTIL_SIGNALS_H
#define APTOP_UTIL_SIGNALS_H
#include <signal.h>

/* The signals that end the program (SIGINT, SIGTERM, SIGHUP, SIGQUIT), and how many. */
extern const int signals_ending[];
#define SIGNALS_ENDING 4

/* The process-wide dispositions above; called once at start, before any thread. */
void signals_install(void);

/* Blocks every signal but the faults in the calling thread, *old receiving the mask before;
 * called around pthread_create so that the new thread starts with that mask, then the old
 * mask is set again with pthread_sigmask(SIG_SETMASK, old, NULL). */
void signals_block_for_thread(sigset_t *old);

#endif
