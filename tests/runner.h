/* A small test runner: each test file registers its tests with TEST(); the runner runs
 * them all (or those whose name contains argv[1]) and ends with "N passed, N failed".
 * CHECK records a failure and goes on; SKIP ends a test as skipped with a reason. */
#ifndef APTOP_TEST_RUNNER_H
#define APTOP_TEST_RUNNER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void test_register(const char *name, void (*fn)(void), const char *file);
void test_fail(const char *file, int line, const char *fmt, ...);
void test_skip(const char *why);
int test_failed_now(void);
/* ../shared/real when present (tests that need it skip otherwise), or NULL. */
const char *test_real_dir(void);
/* A path under ../shared/real, or NULL (and a skip) when the folder is absent. */
const char *test_real(const char *rel);
/* Runs a shell command, returns its stdout (malloc'd, NUL-terminated) and sets *status. */
char *test_run(const char *cmd, int *status);
/* The aptop under test: $APTOP_BIN, else build/aptop. */
const char *test_bin(void);
/* Runs the aptop under test with printf-formatted arguments in shell syntax (quotes and
 * redirections included, e.g. "report '%s' 2>&1"); returns its stdout like test_run. */
char *test_aptop(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the independent check tests/checks/NAME_check.py (python3 tests/checks/run.py NAME)
 * on the aptop under test and the real captures; returns its output like test_run, *status
 * 0 when the check is ok. Call it after test_real_dir() said the captures are there. */
char *test_check(const char *name, int *status);
/* The whole file, NUL-terminated (malloc'd), its size in *len when len is not NULL; NULL
 * when it cannot be read. */
char *test_read_file(const char *path, size_t *len);
/* A new file /tmp/aptop-STEM-XXXXXX (mkstemp) holding text (may be ""); its path in buf
 * (size bytes), returned; NULL when it could not be made or written. The caller unlinks it. */
const char *test_temp_file(const char *stem, const char *text, char *buf, size_t size);
/* The lines of screen `n` (1-based) that `aptop --script` dumped into out, malloc'd, or NULL. */
char *test_screen(const char *out, int n);
/* The tests run under qemu-user (make check-s390x and check-aarch64 set APTOP_TEST_EMULATED
 * to the machine): it takes madvise's populate advice without doing it, and qemu-s390x (7.2)
 * gives a fault's SIGBUS a wrong address. machine NULL: any. */
bool test_emulated(const char *machine);
/* A directory exists at path (false for NULL). */
bool test_is_dir(const char *path);

#define TEST(fn) \
    static void fn(void); \
    __attribute__((constructor)) static void fn##_register(void) { test_register(#fn, fn, __FILE__); } \
    static void fn(void)

#define CHECK(c) do { if (!(c)) test_fail(__FILE__, __LINE__, "%s", #c); } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ != b_) test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, #b, b_); } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
    if (!a_ || !b_ || strcmp(a_, b_)) test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
#define CHECK_NEAR(a, b, eps) do { double a_ = (a), b_ = (b); \
    if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps))) test_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g", #a, a_, b_); } while (0)
#define SKIP(why) do { test_skip(why); return; } while (0)
/* Before an independent check (test_check): under check-s390x the aptop it runs is this
 * machine's own build, so the emulated run would only repeat what make check runs. */
#define SKIP_CHECK_OF_NATIVE_APTOP() do { if (test_emulated("s390x")) \
    SKIP("the check runs this machine's aptop, not the emulated one (make check runs it)"); } while (0)
#define REAL_OR_SKIP(var, rel) const char *var = test_real(rel); if (!var) SKIP("../shared/real not found")

#endif
