/* A fresh machine: a clean copy of the tracked files is built as a new user would, with
 * `pkg-config`, `dpkg-query`, `apt-get` and `id` replaced by small scripts that behave like
 * a Debian system without the -dev packages until `apt-get install` has run. `make demo`
 * must install first and then compile with the flags pkg-config gives after the install
 * (a make that read them before would compile without them); a normal user gets the sudo
 * line and no compile; no dpkg-query is a note, not a failure; `make install DESTDIR=` and
 * `make uninstall` put and remove bin/aptop and the man page. Builds at -O0 to stay quick. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"

/* The flag the stand-in pkg-config adds to --cflags once the packages are "installed". */
#define MARK "-DFRESH_PKG_CONFIG_FLAGS"

static bool write_script(const char *dir, const char *name, const char *body)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    return chmod(path, 0755) == 0;
}

static bool exists(const char *dir, const char *rel)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &st) == 0;
}

/* Every compile line (V=1 prints them) carries MARK; returns how many there were, or -1
 * naming the first line without it. */
static int compiles_with_mark(const char *out)
{
    int n = 0;
    for (const char *l = out; *l; ) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        char line[16384];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), l);
        if (strstr(line, " -c -o ")) {
            if (!strstr(line, MARK)) {
                printf("    compiled without pkg-config's flags: %.200s\n", line);
                return -1;
            }
            n++;
        }
        l = e ? e + 1 : l + len;
    }
    return n;
}

TEST(fresh_copy_installs_then_builds_with_pkg_config_flags)
{
    int st;
    char *real_pc = test_run("command -v pkg-config", &st);
    real_pc[strcspn(real_pc, "\n")] = 0;
    if (st != 0 || !real_pc[0]) {
        free(real_pc);
        SKIP("pkg-config not installed");
    }
    char *top = test_run("git rev-parse --show-toplevel 2>/dev/null", &st);
    top[strcspn(top, "\n")] = 0;
    if (st != 0 || !top[0]) {
        free(real_pc);
        free(top);
        SKIP("not a git checkout: no list of tracked files");
    }
    char tmp[] = "/tmp/aptop-fresh-XXXXXX";
    if (!mkdtemp(tmp)) {
        CHECK(!"mkdtemp");
        free(real_pc);
        free(top);
        return;
    }
    char cmd[16384], bin[4200], src[4200], nodpkg[4200];
    snprintf(bin, sizeof bin, "%s/bin", tmp);
    snprintf(src, sizeof src, "%s/src", tmp);
    snprintf(nodpkg, sizeof nodpkg, "%s/nodpkg", tmp);
    mkdir(bin, 0755);
    mkdir(src, 0755);
    mkdir(nodpkg, 0755);
    /* the tracked files as they are in the work tree (a clone has exactly these) */
    snprintf(cmd, sizeof cmd, "cd '%s' && git ls-files -z | tar --null -T - -cf - | tar -xf - -C '%s' && echo ok",
             top, src);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    free(out);

    char body[8192];
    snprintf(body, sizeof body,
             "[ -e '%s/installed' ] || exit 1\n"
             "out=$('%s' \"$@\") || exit $?\n"
             "case \" $* \" in *' --cflags '*) out=\"$out " MARK "\";; esac\n"
             "echo \"$out\"\n", tmp, real_pc);
    CHECK(write_script(bin, "pkg-config", body));
    snprintf(body, sizeof body,
             "[ -e '%s/installed' ] || exit 1\nprintf 'install ok installed'\n", tmp);
    CHECK(write_script(bin, "dpkg-query", body));
    snprintf(body, sizeof body,
             "echo \"$*\" >>'%s/apt.log'\n"
             "case \" $* \" in *' install '*) touch '%s/installed';; esac\nexit 0\n", tmp, tmp);
    CHECK(write_script(bin, "apt-get", body));
    CHECK(write_script(bin, "id", "[ \"$1\" = -u ] && { echo \"$SHIM_UID\"; exit 0; }\nexec /usr/bin/id \"$@\"\n"));
    snprintf(cmd, sizeof cmd, "ln -s \"$(command -v sh)\" '%s/sh'", nodpkg);
    free(test_run(cmd, &st));

    /* a make that opens the explorer on a terminal would wait: no input, and a time limit */
    const char *env = "</dev/null timeout 300 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u CC -u CFLAGS";

    /* a normal user: the exact sudo line, a failing make, nothing compiled */
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && %s PATH='%s':\"$PATH\" SHIM_UID=1000 make %s 2>&1",
                 src, env, bin, k ? "check" : "demo");
        out = test_run(cmd, &st);
        CHECK(st != 0);
        CHECK(strstr(out, "sudo apt-get install -y") != NULL);
        CHECK(strstr(out, "libcjson-dev") != NULL);
        CHECK(!exists(src, "build"));
        if (st == 0 || !strstr(out, "sudo apt-get"))
            printf("    make %s as a user printed:\n%s\n", k ? "check" : "demo", out);
        free(out);
    }
    CHECK(!exists(tmp, "apt.log"));

    /* root: installs, then compiles with the flags of the installed packages, then runs */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s PATH='%s':\"$PATH\" SHIM_UID=0 make demo V=1 CFLAGS=-O0 DEMO_FLAGS=--list 2>&1",
             src, env, bin);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "deps: installing") != NULL);
    int compiles = compiles_with_mark(out);
    CHECK(compiles > 10);
    CHECK(strstr(out, "rank") != NULL);   /* --list names the capture's ranks */
    if (st != 0 || compiles <= 10)
        printf("    make demo printed (last part):\n%s\n", strlen(out) > 3000 ? out + strlen(out) - 3000 : out);
    free(out);
    CHECK(exists(src, "build/aptop"));

    /* install and uninstall into a staging root */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s PATH='%s':\"$PATH\" SHIM_UID=0 make install PREFIX=/usr DESTDIR='%s/dest' CFLAGS=-O0 2>&1"
             " && '%s/dest/usr/bin/aptop' --version", src, env, bin, tmp, tmp);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "aptop 0.") != NULL);
    free(out);
    CHECK(exists(tmp, "dest/usr/bin/aptop"));
    CHECK(exists(tmp, "dest/usr/share/man/man1/aptop.1"));
    snprintf(cmd, sizeof cmd, "cd '%s' && %s PATH='%s':\"$PATH\" make uninstall PREFIX=/usr DESTDIR='%s/dest' 2>&1",
             src, env, bin, tmp);
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    CHECK(!exists(tmp, "dest/usr/bin/aptop"));
    CHECK(!exists(tmp, "dest/usr/share/man/man1/aptop.1"));

    /* no dpkg-query on PATH: the deps step says so and succeeds */
    snprintf(cmd, sizeof cmd, "cd '%s' && %s PATH='%s' \"$(command -v make)\" deps 2>&1", src, env, nodpkg);
    out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    CHECK(strstr(out, "dpkg-query not found") != NULL);
    free(out);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    free(test_run(cmd, &st));
    free(real_pc);
    free(top);
}
