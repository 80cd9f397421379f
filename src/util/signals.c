/* The signal policy (see signals.h). */
#include "util/signals.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "util/temp_files.h"

const int signals_ending[SIGNALS_ENDING] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The faults: raised by the instruction that faults, in its own thread. */
static const int faults[] = { SIGBUS, SIGSEGV, SIGFPE, SIGILL };

/* Outside the explorer nothing is on screen to restore: the temporary files go, then the
 * process (_exit: no atexit handler runs in a signal handler, and no core for SIGQUIT). */
static void on_ending_signal(int sig)
{
    temp_files_remove_all();
    _exit(128 + sig);
}

void signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGXFSZ, &sa, NULL);
    sa.sa_handler = on_ending_signal;
    for (int i = 0; i < SIGNALS_ENDING; i++) {
        /* a signal ignored by whoever started us (nohup) stays ignored */
        struct sigaction was;
        if (sigaction(signals_ending[i], NULL, &was) == 0 && was.sa_handler == SIG_IGN)
            continue;
        sigaction(signals_ending[i], &sa, NULL);
    }
}

void signals_block_for_thread(sigset_t *old)
{
    sigset_t set;
    sigfillset(&set);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&set, faults[i]);
    pthread_sigmask(SIG_SETMASK, &set, old);
}
