/* Whether a path lies inside a capture, for the read-only promise: aptop never writes inside a
 * capture (cache, settings, exports), whatever XDG_CACHE_HOME or XDG_CONFIG_HOME say. */
#ifndef APTOP_UTIL_PATH_INSIDE_H
#define APTOP_UTIL_PATH_INSIDE_H
#include <stdbool.h>

/* path is root or lies under it. path need not exist yet (a folder about to be made): its
 * nearest existing ancestor is resolved (symbolic links, "..") and the rest appended, so the
 * answer comes before anything is created; a rest holding ".." counts as inside (it could lead
 * anywhere once made). root is resolved too, and a root that is a file stands for its folder
 * (a trace given alone). False when root cannot be resolved. */
bool path_inside(const char *path, const char *root);

#endif
