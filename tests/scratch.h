/* Scratch folders of a test or fuzz run, removed with everything in them when the process
 * exits, so that a run leaves nothing in /tmp. Header-only: the fuzz targets do not link the
 * test runner. */
#ifndef APTOP_TEST_SCRATCH_H
#define APTOP_TEST_SCRATCH_H
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH_MAX 16
static char scratch_dirs[SCRATCH_MAX][256];
static int scratch_n;

static int scratch_remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    remove(path);
    return 0;
}

static void scratch_remove_all(void)
{
    for (int i = 0; i < scratch_n; i++)
        nftw(scratch_dirs[i], scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
    scratch_n = 0;
}

/* dir (made by the caller, e.g. with mkdtemp) is removed at exit. */
static inline void scratch_remove_at_exit(const char *dir)
{
    if (scratch_n == 0)
        atexit(scratch_remove_all);
    if (scratch_n < SCRATCH_MAX)
        snprintf(scratch_dirs[scratch_n++], sizeof scratch_dirs[0], "%s", dir);
}

#endif
