/* A trace rewritten in place between two reports, with the same size and its modification
 * time put back (touch -r): the second report is the rewritten file's (it equals a report
 * that does not use the cache), never the figures the index cache holds of the old bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../runner.h"

#define SRC "fixtures/vllm_decode_2rank"
#define DIR "build/test_cache/stale"
#define TRACE DIR "/cap/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"

static char *report(const char *opts, int *st)
{
    return test_aptop(st, "report --format json --section summary,overview,flows,steps %s '" DIR "/cap' 2>/dev/null "
                      "| grep -v '\"load_ms\"'", opts);
}

/* Every "dur": 1 of the file made "dur": 9, in place: the same size, other figures. */
static int rewrite_durations(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return 0;
    int changed = 0;
    char win[9] = "";
    for (int c; (c = fgetc(f)) != EOF;) {
        memmove(win, win + 1, 7);
        win[7] = (char)c;
        if (!memcmp(win, "\"dur\": 1", 8)) {
            fseek(f, -1, SEEK_CUR);
            fputc('9', f);
            fseek(f, 0, SEEK_CUR);
            changed++;
        }
    }
    fclose(f);
    return changed;
}

TEST(cache_stale_same_size_rewrite_with_restored_mtime_is_read_again)
{
    if (access(SRC, R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    char cwd[2048], home[4200];
    if (!getcwd(cwd, sizeof cwd))
        SKIP("no working folder");
    snprintf(home, sizeof home, "%s/" DIR "/xdg", cwd);
    CHECK(system("rm -rf " DIR " && mkdir -p " DIR "/xdg && cp -r " SRC " " DIR "/cap") == 0);
    const char *was = getenv("XDG_CACHE_HOME");
    char *saved = was ? strdup(was) : NULL;
    setenv("XDG_CACHE_HOME", home, 1);
    int st;
    char *before = report("--cache-min 0", &st);
    CHECK_INT(st, 0);
    struct stat old;
    CHECK(stat(TRACE, &old) == 0);
    /* past a tick of the file-time clock, so the rewrite's change time is another */
    nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
    CHECK(rewrite_durations(TRACE) > 0);
    struct timespec times[2] = { old.st_atim, old.st_mtim };
    CHECK(utimensat(AT_FDCWD, TRACE, times, 0) == 0);
    struct stat now;
    CHECK(stat(TRACE, &now) == 0);
    CHECK(now.st_size == old.st_size && now.st_mtim.tv_sec == old.st_mtim.tv_sec
          && now.st_mtim.tv_nsec == old.st_mtim.tv_nsec);
    char *cached = report("--cache-min 0", &st);
    char *fresh = report("--no-cache", &st);
    CHECK(strcmp(before, fresh) != 0);   /* the rewrite changed figures */
    if (strcmp(cached, fresh) != 0)
        test_fail(__FILE__, __LINE__, "the report after an in-place rewrite shows the cached figures of the old bytes");
    free(before);
    free(cached);
    free(fresh);
    if (saved)
        setenv("XDG_CACHE_HOME", saved, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    free(saved);
    CHECK(system("rm -rf " DIR) == 0);
}
