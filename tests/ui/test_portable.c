/* The portable folder (`make portable`, built by `make check` before the tests): its binary,
 * run with an empty LD_LIBRARY_PATH, resolves no library outside the folder but the C
 * library's own; it runs there (--version, a report) and carries the terminfo entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../runner.h"

/* Libraries that belong to the C library itself (glibc's own files), as ldd names them. */
static bool libc_own(const char *name)
{
    static const char *const own[] = { "linux-vdso.so", "libc.so", "libm.so", "libpthread.so", "libdl.so",
                                       "librt.so", "ld-linux", "libmvec.so", "libresolv.so" };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (!strncmp(name, own[i], strlen(own[i])))
            return true;
    return false;
}

static bool portable_dir(char *dir, size_t size)
{
    struct utsname u;
    if (uname(&u) != 0)
        return false;
    char *v = test_run("sed -n 's/^VERSION *= *//p' Makefile", NULL);
    v[strcspn(v, "\n")] = 0;
    snprintf(dir, size, "build/portable/aptop-%s-%s", v, u.machine);
    free(v);
    return test_is_dir(dir);
}

TEST(portable_folder_needs_only_libc_from_the_host)
{
    char dir[512];
    if (!portable_dir(dir, sizeof dir))
        SKIP("no portable folder: make portable (make check builds it)");
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd, "env LD_LIBRARY_PATH= ldd '%s/aptop' 2>&1", dir);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    char abs[4096];
    CHECK(realpath(dir, abs) != NULL);
    int inside = 0, lines = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
        while (*l == ' ' || *l == '\t')
            l++;
        lines++;
        char name[256] = "", path[2048] = "";
        if (sscanf(l, "%255s => %2047s", name, path) < 1)
            continue;
        if (strstr(l, "not found"))
            test_fail(__FILE__, __LINE__, "not found: %s", l);
        else if (!strncmp(path, abs, strlen(abs)))
            inside++;
        else if (!libc_own(name) && !libc_own(strrchr(name, '/') ? strrchr(name, '/') + 1 : name))
            test_fail(__FILE__, __LINE__, "taken from the host: %s", l);
    }
    CHECK(lines >= 2);
    CHECK_INT(inside, 1);   /* libcjson, from lib/ */
    free(out);

    /* the rpath is the folder's own, whatever the working directory */
    snprintf(cmd, sizeof cmd, "readelf -d '%s/aptop'", dir);
    out = test_run(cmd, &st);
    CHECK(strstr(out, "[$ORIGIN/lib]") != NULL);
    CHECK(strstr(out, "ncurses") == NULL && strstr(out, "sqlite") == NULL && strstr(out, "libz") == NULL &&
          strstr(out, "libcsv") == NULL && strstr(out, "tinfo") == NULL);
    free(out);

    snprintf(cmd, sizeof cmd, "cd / && env LD_LIBRARY_PATH= '%s/aptop' --version", abs);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "cJSON    built ") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "env LD_LIBRARY_PATH= '%s/aptop' report --section kernels fixtures/vllm_decode_2rank", abs);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "MatMul") != NULL || strstr(out, "kernel") != NULL);
    free(out);

    static const char *const terms[] = { "x/xterm", "x/xterm-256color", "t/tmux", "t/tmux-256color", "s/screen",
                                         "s/screen-256color" };
    for (size_t i = 0; i < sizeof terms / sizeof *terms; i++) {
        char p[1024];
        struct stat sb;
        snprintf(p, sizeof p, "%s/terminfo/%s", dir, terms[i]);
        if (stat(p, &sb) != 0)
            test_fail(__FILE__, __LINE__, "missing %s", p);
    }
    char tgz[600];
    struct stat sb;
    snprintf(tgz, sizeof tgz, "%s.tar.gz", dir);
    CHECK(stat(tgz, &sb) == 0 && sb.st_size > 100000);
}

static int sh_status(const char *cmd)
{
    int st;
    free(test_run(cmd, &st));
    return st;
}

/* Starts `bin` on the fixture in tmux inside a mount namespace where the host's terminfo
 * folders are empty; true when the explorer's first frame appears. */
static bool runs_without_host_terminfo(const char *bin, const char *sock)
{
    char cwd[2048], cmd[8192];
    if (!getcwd(cwd, sizeof cwd))
        return false;
    snprintf(cmd, sizeof cmd,
             "tmux -L %s -f /dev/null new-session -d -x 100 -y 30 "
             "\"unshare -m sh -c 'for d in /etc/terminfo /lib/terminfo /usr/share/terminfo; do "
             "[ -d \\$d ] && mount -t tmpfs none \\$d; done; cd %s && env TERM=tmux-256color TERMINFO= "
             "%s fixtures/vllm_decode_2rank; echo APTOP-EXIT=\\$?; sleep 60'\"", sock, cwd, bin);
    if (sh_status(cmd) != 0)
        return false;
    bool seen = false;
    for (int i = 0; i < 100 && !seen; i++) {
        usleep(100000);
        snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p 2>/dev/null", sock);
        char *s = test_run(cmd, NULL);
        seen = strstr(s, "?:help") != NULL;
        bool ended = strstr(s, "APTOP-EXIT=") != NULL;
        free(s);
        if (ended)
            break;
    }
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server 2>/dev/null", sock);
    sh_status(cmd);
    return seen;
}

TEST(portable_folder_brings_terminfo_for_a_bare_host)
{
    char dir[512], abs[4096], sock[64];
    if (!portable_dir(dir, sizeof dir))
        SKIP("no portable folder: make portable (make check builds it)");
    if (sh_status("tmux -V >/dev/null 2>&1") != 0)
        SKIP("tmux not installed");
    if (sh_status("unshare -m sh -c 'mount -t tmpfs none /usr/share/terminfo' 2>/dev/null") != 0)
        SKIP("cannot make a mount namespace here (needs root)");
    CHECK(realpath(dir, abs) != NULL);
    size_t n = strlen(abs);
    snprintf(abs + n, sizeof abs - n, "/aptop");
    snprintf(sock, sizeof sock, "aptop-portable-%d", (int)getpid());
    CHECK(runs_without_host_terminfo(abs, sock));
    /* the same host is bare indeed: a build without the folder's entries cannot start there */
    const char *plain = "build/aptop";
    char pabs[4096];
    if (realpath(plain, pabs)) {
        snprintf(sock, sizeof sock, "aptop-portable-%d-b", (int)getpid());
        CHECK(!runs_without_host_terminfo(pabs, sock));
    }
}
