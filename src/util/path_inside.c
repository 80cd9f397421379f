/* Is a (maybe not yet existing) path inside a capture (see path_inside.h). */
#include "util/path_inside.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The resolved form of path into out (PATH_MAX bytes): its longest existing prefix resolved,
 * then the components that do not exist yet. False when nothing of it resolves, or a
 * component yet to be made is "..". */
static bool resolve_to_be(const char *path, char *out)
{
    char head[PATH_MAX];
    if (snprintf(head, sizeof head, "%s", path) >= (int)sizeof head)
        return false;
    const char *rest = "";
    char restbuf[PATH_MAX] = "";
    for (;;) {
        if (realpath(head[0] ? head : "/", out))
            break;
        char *slash = strrchr(head, '/');
        if (!slash) {   /* a relative name of one component: it is in the working folder */
            char tail[PATH_MAX];
            snprintf(tail, sizeof tail, "%s%s%s", head, rest[0] ? "/" : "", rest);
            snprintf(restbuf, sizeof restbuf, "%s", tail);
            rest = restbuf;
            if (!realpath(".", out))
                return false;
            break;
        }
        char tail[PATH_MAX];
        snprintf(tail, sizeof tail, "%s%s%s", slash + 1, rest[0] ? "/" : "", rest);
        snprintf(restbuf, sizeof restbuf, "%s", tail);
        rest = restbuf;
        *slash = 0;
    }
    /* the components to be made: "" and "." add nothing, ".." is refused */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", rest);
    for (char *save = NULL, *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, ".."))
            return false;
        size_t n = strlen(out);
        if (n + 1 + strlen(c) >= PATH_MAX)
            return false;
        snprintf(out + n, PATH_MAX - n, "%s%s", n > 1 ? "/" : "", c);
    }
    return true;
}

bool path_inside(const char *path, const char *root)
{
    char r[PATH_MAX], p[PATH_MAX];
    struct stat st;
    if (!path || !root || !realpath(root, r))
        return false;
    if (stat(r, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(r, '/');
        if (slash)
            slash[slash == r ? 1 : 0] = 0;
    }
    if (!resolve_to_be(path, p))
        return true;   /* cannot tell where it would end up: not there */
    size_t n = strlen(r);
    if (n == 1)
        return true;   /* the capture is "/" */
    return !strncmp(p, r, n) && (p[n] == 0 || p[n] == '/');
}
