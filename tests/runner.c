#include "runner.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct test { const char *name, *file; void (*fn)(void); };
static struct test tests[1024];
static int ntests, cur_failed, cur_skipped;
static char skip_reason[256];

void test_register(const char *name, void (*fn)(void), const char *file)
{
    if (ntests < (int)(sizeof tests / sizeof tests[0]))
        tests[ntests++] = (struct test){ name, file, fn };
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    cur_failed++;
}

int test_failed_now(void) { return cur_failed; }

void test_skip(const char *why)
{
    cur_skipped = 1;
    snprintf(skip_reason, sizeof skip_reason, "%s", why);
}

const char *test_real_dir(void)
{
    static char path[4096];
    const char *env = getenv("APTOP_REAL");
    struct stat st;
    snprintf(path, sizeof path, "%s", env ? env : "../shared/real");
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

const char *test_real(const char *rel)
{
    static char path[8][4096];
    static int slot;
    const char *dir = test_real_dir();
    if (!dir)
        return NULL;
    slot = (slot + 1) % 8;
    snprintf(path[slot], sizeof path[slot], "%s/%s", dir, rel);
    return path[slot];
}

char *test_run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap);
    if (!p || !buf) {
        free(buf);
        if (p) pclose(p);
        if (status) *status = -1;
        return calloc(1, 1);
    }
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) break;
            buf = nb;
        }
    }
    buf[len] = 0;
    int st = pclose(p);
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

const char *test_bin(void)
{
    const char *b = getenv("APTOP_BIN");
    return b ? b : "build/aptop";
}

char *test_check(const char *name, int *status)
{
    char cmd[9000];
    const char *real = test_real_dir();
    snprintf(cmd, sizeof cmd, "APTOP_REAL='%s' APTOP_BIN='%s' python3 tests/checks/run.py '%s' 2>&1",
             real ? real : "../shared/real", test_bin(), name);
    return test_run(cmd, status);
}

char *test_aptop(int *status, const char *fmt, ...)
{
    char args[8192], cmd[8400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s", test_bin(), args);
    return test_run(cmd, status);
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b) {
        b[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    fclose(f);
    return b;
}

const char *test_temp_file(const char *stem, const char *text, char *buf, size_t size)
{
    if (snprintf(buf, size, "/tmp/aptop-%s-XXXXXX", stem) >= (int)size)
        return NULL;
    int fd = mkstemp(buf);
    if (fd < 0)
        return NULL;
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    if (!ok)
        unlink(buf);
    return ok ? buf : NULL;
}

char *test_screen(const char *out, int n)
{
    char head[32];
    snprintf(head, sizeof head, "--- screen %d ---\n", n);
    const char *a = out ? strstr(out, head) : NULL;
    if (!a)
        return NULL;
    a += strlen(head);
    const char *z = strstr(a, "--- screen ");
    return strndup(a, z ? (size_t)(z - a) : strlen(a));
}

bool test_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* APTOP_TEST_SHARD=i/n runs the files whose position among the distinct test files is i
 * modulo n (whole files, so that a file's tests never race for its scratch paths), so that
 * tests/run_all.sh can run n shards side by side; unset or malformed: every test. */
static bool in_shard(int test)
{
    const char *e = getenv("APTOP_TEST_SHARD");
    int i, n;
    if (!e || sscanf(e, "%d/%d", &i, &n) != 2 || n < 2 || i < 0 || i >= n)
        return true;
    int file = 0;   /* the file's position: how many distinct files registered before it */
    for (int k = 1; k <= test; k++)
        if (strcmp(tests[k].file, tests[k - 1].file))
            file++;
    return file % n == i;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < ntests; i++) {
        if ((argc > 1 && !strstr(tests[i].name, argv[1])) || !in_shard(i))
            continue;
        cur_failed = cur_skipped = 0;
        double t0 = seconds_now();
        tests[i].fn();
        double took = seconds_now() - t0;   /* printed to find slow tests, never asserted */
        if (cur_failed) {
            failed++;
            printf("FAIL %s (%s) %.1f s\n", tests[i].name, tests[i].file, took);
        } else if (cur_skipped) {
            skipped++;
            printf("skip %s: %s\n", tests[i].name, skip_reason);
        } else {
            passed++;
            printf("ok   %s %.1f s\n", tests[i].name, took);
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

bool test_emulated(const char *machine)
{
    const char *e = getenv("APTOP_TEST_EMULATED");
    return e && *e && (!machine || !strcmp(e, machine));
}
