/* The fault tests' helpers (see faults.h). */
#include "faults.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../runner.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void redirect(const char *path, int flags, int to)
{
    int fd = open(path, flags, 0600);
    if (fd >= 0 && fd != to) {
        dup2(fd, to);
        close(fd);
    }
}

pid_t fault_start(const struct fault_cmd *c)
{
    const char *argv[32] = { test_bin() };
    size_t n = 1;
    for (size_t i = 0; c->args[i] && n < 30; i++)
        argv[n++] = c->args[i];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        test_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid)
        return pid;
    /* the child: its own session (no controlling terminal but the pty it is given) */
    setsid();
    if (c->tty > 0) {
        dup2(c->tty, 0);
        dup2(c->tty, 1);
    } else {
        redirect(c->in ? c->in : "/dev/null", O_RDONLY, 0);
        redirect(c->out ? c->out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 1);
    }
    redirect(c->err ? c->err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 2);
    for (int fd = 3; fd < 256; fd++)
        close(fd);
    for (size_t i = 0; c->env[i]; i++)
        putenv((char *)c->env[i]);
    if (c->file_limit) {
        struct rlimit rl = { c->file_limit, c->file_limit };
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    signal(SIGPIPE, SIG_DFL);
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

int fault_wait(pid_t pid, long timeout_ms, const char *what)
{
    long end = now_ms() + timeout_ms;
    int st = 0;
    while (pid > 0) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return st;
        if (r < 0)
            return -1;
        if (now_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            test_fail(__FILE__, __LINE__, "%s: still running after %ld ms (killed)", what, timeout_ms);
            return -1;
        }
        usleep(2000);
    }
    return -1;
}

void fault_check_exit_at(const char *file, int line, int status, int code)
{
    if (status == -1)
        test_fail(file, line, "no exit status (killed by the test)");
    else if (WIFSIGNALED(status))
        test_fail(file, line, "died by signal %d (%s), expected exit %d", WTERMSIG(status),
                  strsignal(WTERMSIG(status)), code);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != code)
        test_fail(file, line, "exit status %d, expected %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1, code);
}

bool fault_dir(const char *stem, char *buf, size_t size)
{
    if (snprintf(buf, size, "/tmp/aptop-fault-%s-XXXXXX", stem) >= (int)size)
        return false;
    return mkdtemp(buf) != NULL;
}

void fault_rm(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/aptop-fault-", 17))
        return;   /* only what fault_dir made */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    int st;
    free(test_run(cmd, &st));
}

bool fault_capture(const char *dir, unsigned mb, char *cap, char *path)
{
    char d[FAULT_PATH];
    snprintf(cap, FAULT_PATH, "%s/cap", dir);
    mkdir(cap, 0700);
    snprintf(d, sizeof d, "%s/rank0_ascend_pt", cap);
    mkdir(d, 0700);
    snprintf(d, sizeof d, "%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT", cap);
    mkdir(d, 0700);
    snprintf(path, FAULT_PATH, "%s/trace_view.json", d);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fputs("[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"Ascend Hardware\"}}", f);
    uint64_t want = (uint64_t)mb << 20, ts = 1000000;
    for (unsigned i = 0; (uint64_t)ftell(f) < want; i++, ts += 7)
        fprintf(f, ",\n{\"ph\":\"X\",\"name\":\"Kernel%u\",\"pid\":1,\"tid\":%u,\"ts\":\"%llu.250\",\"dur\":5.5}",
                i % 97, 2 + i % 3, (unsigned long long)ts);
    fputs("\n]\n", f);
    return fclose(f) == 0;
}

bool fault_wait_mapped(pid_t pid, const char *file, long timeout_ms)
{
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    long end = now_ms() + timeout_ms;
    while (now_ms() < end) {
        char *m = fault_read(maps);
        bool found = strstr(m, file) != NULL;
        free(m);
        if (found)
            return true;
        siginfo_t si = { 0 };   /* ended already (not reaped: its status stays for fault_wait) */
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return false;
        usleep(500);
    }
    return false;
}

int fault_count_names(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strstr(de->d_name, part) != NULL;
    closedir(d);
    return n;
}

bool fault_wait_name(const char *dir, const char *part, long timeout_ms)
{
    long end = now_ms() + timeout_ms;
    while (now_ms() < end) {
        if (fault_count_names(dir, part) > 0)
            return true;
        usleep(500);
    }
    return false;
}

char *fault_read(const char *path)
{
    int fd = open(path, O_RDONLY);
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    if (!b)
        abort();
    ssize_t n;
    while (fd >= 0 && (n = read(fd, b + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 2 && !(b = realloc(b, cap *= 2)))
            abort();
    }
    if (fd >= 0)
        close(fd);
    b[len] = 0;
    return b;
}

bool fault_pty_open(struct fault_pty *p, int cols, int rows)
{
    memset(p, 0, sizeof *p);
    p->master = posix_openpt(O_RDWR | O_NOCTTY);
    p->slave = -1;
    if (p->master < 0 || grantpt(p->master) || unlockpt(p->master)) {
        test_fail(__FILE__, __LINE__, "no pseudo-terminal: %s", strerror(errno));
        return false;
    }
    const char *name = ptsname(p->master);
    p->slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (p->slave < 0) {
        test_fail(__FILE__, __LINE__, "cannot open the pty's slave: %s", strerror(errno));
        return false;
    }
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    ioctl(p->slave, TIOCSWINSZ, &ws);
    fcntl(p->master, F_SETFL, O_NONBLOCK);
    p->cap = 1 << 16;
    p->out = calloc(1, p->cap);
    return p->out != NULL;
}

bool fault_pty_read(struct fault_pty *p, long ms, const char *until)
{
    long end = now_ms() + ms;
    for (;;) {
        char buf[4096];
        ssize_t n;
        while (p->master >= 0 && (n = read(p->master, buf, sizeof buf)) > 0) {
            if (p->len + (size_t)n + 1 > p->cap) {
                while (p->len + (size_t)n + 1 > p->cap)
                    p->cap *= 2;
                if (!(p->out = realloc(p->out, p->cap)))
                    abort();
            }
            memcpy(p->out + p->len, buf, (size_t)n);
            p->len += (size_t)n;
            p->out[p->len] = 0;
        }
        /* the screen's text comes with escapes between words: look in what was read */
        if (until && memmem(p->out, p->len, until, strlen(until)))
            return true;
        if (now_ms() >= end)
            return false;
        usleep(2000);
    }
}

int fault_pty_wait(struct fault_pty *p, pid_t pid, long timeout_ms, const char *what)
{
    long end = now_ms() + timeout_ms;
    int st = 0;
    while (pid > 0) {
        fault_pty_read(p, 0, NULL);
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            fault_pty_read(p, 20, NULL);   /* its last bytes */
            return st;
        }
        if (r < 0)
            return -1;
        if (now_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            test_fail(__FILE__, __LINE__, "%s: still running after %ld ms (killed)", what, timeout_ms);
            return -1;
        }
        usleep(2000);
    }
    return -1;
}

bool fault_pty_restored(const struct fault_pty *p)
{
    struct termios t;
    return p->slave >= 0 && tcgetattr(p->slave, &t) == 0 && (t.c_lflag & ICANON) && (t.c_lflag & ECHO);
}

void fault_pty_close(struct fault_pty *p)
{
    if (p->master >= 0)
        close(p->master);
    if (p->slave >= 0)
        close(p->slave);
    free(p->out);
    memset(p, 0, sizeof *p);
    p->master = p->slave = -1;
}
