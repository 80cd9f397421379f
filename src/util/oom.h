/* The out-of-memory policy: where the program cannot go on without the memory it asked for,
 * it ends: the terminal is restored (by what the UI registered), one line on stderr names
 * what ran out and how much was asked, and the exit status is OOM_EXIT_STATUS. Data is
 * never dropped silently. Readers that can finish with less (a partial table said so in
 * the messages) may still report and go on instead. */
#ifndef APTOP_UTIL_OOM_H
#define APTOP_UTIL_OOM_H
#include <stddef.h>

#define OOM_EXIT_STATUS 4

/* fn runs once before the message when memory runs out (the UI: leave curses). NULL clears. */
void oom_on_exit(void (*fn)(void));
/* Ends the program: "aptop: out of memory: WHAT (N bytes asked)". */
_Noreturn void oom_exit(const char *what, size_t bytes);

#endif
