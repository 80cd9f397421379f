/* A copied folder (`make portable`) carries compiled terminfo entries for xterm, tmux and
 * screen in terminfo/ beside the binary. They are searched after the places the terminal
 * library was built to look in, so a host that lacks an entry still gets a screen, and one
 * that has it keeps its own. */
#include "ui/shell/terminfo_fallback.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void terminfo_add_fallback(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = 0;
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/terminfo", exe);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    /* an empty element stands for the library's own places */
    const char *old = getenv("TERMINFO_DIRS");
    size_t len = (old ? strlen(old) : 0) + strlen(dir) + 2;
    char *v = malloc(len);
    if (!v)
        return;
    snprintf(v, len, "%s:%s", old ? old : "", dir);
    setenv("TERMINFO_DIRS", v, 1);
    free(v);
}
