/* The toolkit in src/util: the UTF-8 validator's edge cases (overlong forms, surrogates,
 * the largest code point, truncated sequences, stray continuation bytes), the growth rule,
 * the append on it and the lower-bound search, each against an independent statement of
 * what is right. */
#include "util/grow.h"
#include "util/huge_pages.h"
#include "util/oom.h"
#include "util/search.h"
#include "util/utf8.h"

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

#define U(lit) (const unsigned char *)(lit), sizeof(lit) - 1

/* An independent decoder: the code point of the k-byte sequence at s when it is the
 * shortest form of a scalar value, else -1 (RFC 3629, stated by value rather than by the
 * byte ranges the validator uses). */
static long decode_ref(const unsigned char *s, size_t n, size_t *k)
{
    static const long min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    unsigned char c = s[0];
    *k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!*k || *k > n)
        return -1;
    long cp = *k == 1 ? c : *k == 2 ? c & 0x1f : *k == 3 ? c & 0x0f : c & 0x07;
    for (size_t i = 1; i < *k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min_of[*k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    return cp;
}

TEST(util_utf8_edge_cases)
{
    CHECK_INT(utf8_seq_len(U("a")), 1);
    CHECK_INT(utf8_seq_len(U("\xc2\x80")), 2);              /* U+0080, the first 2-byte */
    CHECK_INT(utf8_seq_len(U("\xc0\x80")), 0);              /* overlong NUL */
    CHECK_INT(utf8_seq_len(U("\xc1\xbf")), 0);              /* overlong U+007F */
    CHECK_INT(utf8_seq_len(U("\xe0\x9f\xbf")), 0);          /* overlong U+07FF */
    CHECK_INT(utf8_seq_len(U("\xe0\xa0\x80")), 3);          /* U+0800 */
    CHECK_INT(utf8_seq_len(U("\xed\x9f\xbf")), 3);          /* U+D7FF, before the surrogates */
    CHECK_INT(utf8_seq_len(U("\xed\xa0\x80")), 0);          /* U+D800, a surrogate */
    CHECK_INT(utf8_seq_len(U("\xed\xbf\xbf")), 0);          /* U+DFFF */
    CHECK_INT(utf8_seq_len(U("\xee\x80\x80")), 3);          /* U+E000 */
    CHECK_INT(utf8_seq_len(U("\xf0\x8f\xbf\xbf")), 0);      /* overlong U+FFFF */
    CHECK_INT(utf8_seq_len(U("\xf0\x90\x80\x80")), 4);      /* U+10000 */
    CHECK_INT(utf8_seq_len(U("\xf4\x8f\xbf\xbf")), 4);      /* U+10FFFF, the last */
    CHECK_INT(utf8_seq_len(U("\xf4\x90\x80\x80")), 0);      /* past U+10FFFF */
    CHECK_INT(utf8_seq_len(U("\xf5\x80\x80\x80")), 0);
    CHECK_INT(utf8_seq_len(U("\xff")), 0);
    CHECK_INT(utf8_seq_len(U("\x80")), 0);                  /* stray continuation */
    CHECK_INT(utf8_seq_len(U("\xe2\x82")), 0);              /* truncated by the end */
    CHECK_INT(utf8_seq_len(U("\xf0\x9f\x98")), 0);
    CHECK_INT(utf8_seq_len(U("\xe2\x82" "a")), 0);          /* cut short by ASCII */
    CHECK(utf8_valid(U("")));
    CHECK(utf8_valid(U("plain \xe2\x82\xac \xf0\x9f\x98\x80 end")));
    CHECK(!utf8_valid(U("ok \xed\xa0\x80")));
    CHECK(!utf8_valid(U("ok \xe2\x82")));                   /* truncated at the very end */
    CHECK(!utf8_valid(U("\xc0\xaf")));
}

/* Every 1- and 2-byte input, and every 3- and 4-byte one over the lead bytes with the
 * second byte's full range (the only byte whose range differs), agrees with decode_ref. */
TEST(util_utf8_agrees_with_reference_decoder)
{
    unsigned char b[4];
    for (unsigned a = 0; a < 256; a++)
        for (unsigned c = 0; c < 256; c++)
            for (unsigned tail = 0; tail < 3; tail++) {
                static const unsigned char tails[3] = { 0x80, 0xbf, 0x41 };
                b[0] = (unsigned char)a;
                b[1] = (unsigned char)c;
                b[2] = b[3] = tails[tail];
                for (size_t n = 1; n <= 4; n++) {
                    size_t k;
                    long cp = decode_ref(b, n, &k);
                    size_t want = cp < 0 ? 0 : k;
                    size_t got = utf8_seq_len(b, n);
                    if (got != want) {
                        test_fail(__FILE__, __LINE__, "bytes %02x %02x %02x (n=%zu): %zu, expected %zu",
                                  a, c, b[2], n, got, want);
                        return;
                    }
                }
            }
}

TEST(util_grow_rule)
{
    size_t cap = 0;
    int *v = grow_array(NULL, &cap, 1, sizeof *v);
    CHECK(v != NULL);
    CHECK(cap >= 1);
    size_t n = 0;
    for (int i = 0; i < 100000; i++) {
        int *nv = grow_array(v, &cap, n + 1, sizeof *v);
        CHECK(nv != NULL);
        if (!nv)
            break;
        v = nv;
        v[n++] = i;
    }
    CHECK(cap >= n);
    CHECK(cap <= n + n / 2 + 32);            /* at most half unused, plus the step */
    for (size_t i = 0; i < n; i++)
        if (v[i] != (int)i) {
            CHECK_INT(v[i], i);
            break;
        }
    /* no room asked beyond what it has: the same array back */
    size_t before = cap;
    CHECK(grow_array(v, &cap, cap, sizeof *v) == v);
    CHECK_INT(cap, before);
    /* a size that overflows size_t fails and leaves the array as it was */
    CHECK(grow_array(v, &cap, SIZE_MAX / 2, sizeof *v) == NULL);
    CHECK_INT(cap, before);
    CHECK_INT(v[n - 1], n - 1);
    CHECK_INT(grow_capacity(0, SIZE_MAX / 8 + 1, 8), 0);
    CHECK(grow_capacity(SIZE_MAX / 16, SIZE_MAX / 16 + 1, 8) >= SIZE_MAX / 16 + 1);
    free(v);
}

/* An exact size: contents kept when it grows and when it gives back its end; a size that
 * overflows size_t fails and leaves the array as it was; 0 elements is still an array. */
TEST(util_grow_exact_sizes)
{
    unsigned char *v = grow_exact(NULL, 10, 1);
    CHECK(v != NULL);
    if (!v)
        return;
    for (int i = 0; i < 10; i++)
        v[i] = (unsigned char)i;
    unsigned char *w = grow_exact(v, 4000, 1);
    CHECK(w != NULL);
    if (w)
        v = w;
    CHECK_INT(v[9], 9);
    CHECK(grow_exact(v, SIZE_MAX / 4 + 1, 4) == NULL);
    CHECK(grow_exact(v, 2, SIZE_MAX) == NULL);
    CHECK_INT(v[9], 9);
    w = grow_exact(v, 3, 1);
    CHECK(w != NULL);
    if (w)
        v = w;
    CHECK_INT(v[2], 2);
    w = grow_exact(v, 0, 8);
    CHECK(w != NULL);
    free(w ? w : v);
}

/* Every resize of memory in the program goes through src/util (grow.c): its failure then has
 * one place to be handled. A file elsewhere that calls realloc itself breaks that. */
static char realloc_seen[512];
static int find_realloc(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 2 || (strcmp(path + n - 2, ".c") && strcmp(path + n - 2, ".h")) ||
        strstr(path, "src/util/"))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    for (int ln = 1; fgets(line, sizeof line, f); ln++)
        if (strstr(line, "realloc(") && !realloc_seen[0])
            snprintf(realloc_seen, sizeof realloc_seen, "%s:%d", path, ln);
    fclose(f);
    return 0;
}

TEST(util_grow_is_the_only_resize)
{
    if (!test_is_dir("src/util")) {
        SKIP("src/ not found from the working folder");
    }
    realloc_seen[0] = 0;
    CHECK(nftw("src", find_realloc, 16, FTW_PHYS) == 0);
    if (realloc_seen[0])
        fprintf(stderr, "    realloc outside src/util at %s\n", realloc_seen);
    CHECK(realloc_seen[0] == 0);
}

TEST(util_grow_push_zeroed_items)
{
    /* every new item starts zeroed; the earlier ones keep their values as the array grows */
    struct item { int64_t a; double b; } *arr = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        struct item *it = grow_push((void **)&arr, &n, &cap, sizeof *arr);
        CHECK(it != NULL);
        if (!it)
            break;
        CHECK_INT(it->a, 0);
        CHECK(it->b == 0.0);
        it->a = i;
    }
    CHECK_INT(n, 100);
    CHECK(cap >= n);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(arr[i].a, (int64_t)i);
    free(arr);
}

TEST(util_lower_bound)
{
    const int64_t v[] = { -5, 1, 1, 1, 4, 9, 9, 12 };
    size_t n = sizeof v / sizeof v[0];
    for (int64_t key = -7; key <= 14; key++) {
        size_t want = 0;
        while (want < n && v[want] < key)
            want++;
        CHECK_INT(lower_bound_i64(v, 0, n, key), want);
        /* a sub-range answers inside it */
        size_t w2 = 2;
        while (w2 < 6 && v[w2] < key)
            w2++;
        CHECK_INT(lower_bound_i64(v, 2, 6, key), w2);
    }
    CHECK_INT(lower_bound_i64(v, 3, 3, 100), 3);   /* empty range */
    /* over records, by another type of index */
    struct rec { uint32_t key; const char *name; } r[] = { { 2, "a" }, { 3, "b" }, { 3, "c" }, { 8, "d" } };
    uint32_t k;
    LOWER_BOUND(k, 0u, 4u, i, r[i].key < 3);
    CHECK_INT(k, 1);
    LOWER_BOUND(k, 0u, 4u, i, r[i].key < 9);
    CHECK_INT(k, 4);
}

/* The out-of-memory policy: a growth that cannot be had ends the program with status
 * OOM_EXIT_STATUS, after the registered restore ran, and says what ran out. */
static int restored_fd = -1;
static void note_restore(void)
{
    if (write(restored_fd, "restored;", 9) < 0)
        _exit(99);
}

TEST(util_oom_policy_exits_naming_what)
{
    int out[2];
    CHECK(pipe(out) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        dup2(out[1], 2);
        restored_fd = out[1];
        oom_on_exit(note_restore);
        size_t cap = 0;
        grow_array_or_exit(NULL, &cap, SIZE_MAX / 2, 8, "test rows");
        _exit(0);   /* not reached */
    }
    close(out[1]);
    char buf[512] = "";
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof buf && (k = read(out[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = 0;
    close(out[0]);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), OOM_EXIT_STATUS);
    CHECK(strncmp(buf, "restored;", 9) == 0);   /* the terminal first, then the message */
    CHECK(strstr(buf, "aptop: out of memory: test rows") != NULL);
}

/* A large array from huge_alloc starts on a huge page boundary and is whole huge pages of
 * writable memory; a small one is plain malloc; both realloc and free as any other. */
TEST(util_huge_alloc_aligns_large_arrays)
{
    size_t sizes[] = { HUGE_MIN, HUGE_MIN + 1, 3 * HUGE_PAGE + 12345 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned char *p = huge_alloc(sizes[k]);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK_INT((uintptr_t)p % HUGE_PAGE, 0);
        size_t whole = (sizes[k] + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        memset(p, 0xab, whole);   /* the rounded-up room is the caller's too */
        unsigned char *q = realloc(p, whole + HUGE_PAGE);
        CHECK(q != NULL);
        if (q) {
            CHECK(q[0] == 0xab && q[whole - 1] == 0xab);
            p = q;
        }
        free(p);
    }
    void *small = huge_alloc(100);
    CHECK(small != NULL);
    free(small);
    CHECK(huge_alloc((size_t)-1) == NULL);   /* too large to round: no memory, no wrap */
}
