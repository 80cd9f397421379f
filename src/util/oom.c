#include "util/oom.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void (*_Atomic restore_fn)(void);
static atomic_flag ending = ATOMIC_FLAG_INIT;

void oom_on_exit(void (*fn)(void))
{
    atomic_store(&restore_fn, fn);
}

_Noreturn void oom_exit(const char *what, size_t bytes)
{
    /* the first thread to run out speaks; another one waits for it to end the program */
    if (atomic_flag_test_and_set(&ending))
        for (;;)
            pause();
    void (*fn)(void) = atomic_load(&restore_fn);
    if (fn)
        fn();
    fprintf(stderr, "aptop: out of memory: %s (%zu bytes asked)\n", what ? what : "?", bytes);
    _exit(OOM_EXIT_STATUS);
}
