/* Headless runs from a script of commands (see script.h). The commands are read whole at
 * the start; keys go to the explorer through script_key, the rest run between frames. */
#include "ui/shell/script.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "util/grow.h"
#include "util/free_all.h"

#define WAIT_LIMIT_MS 20000.0     /* default; `timeout S` changes it */

enum cmd_kind { C_KEYS, C_WAIT, C_LOADED, C_DUMP, C_RESIZE, C_TIMEOUT };

struct cmd {
    enum cmd_kind kind;
    int *keys;              /* C_KEYS */
    size_t nkeys, keys_cap;
    char *text;             /* C_WAIT */
    int cols, rows;         /* C_RESIZE */
    double ms;              /* C_TIMEOUT */
    int line;
};

struct script {
    const char *path;
    struct cmd *cmds;
    size_t ncmds, cap;
    size_t at;              /* next command */
    size_t key_i;           /* next key of cmds[at - 1] while feeding */
    bool feeding;
    int pending;            /* a key to give before the command's (KEY_RESIZE), or 0 */
    double wait_since;      /* ms, 0 when not waiting */
    double wait_limit;      /* ms */
    int cols, rows;
    int screens;
    bool failed;
    FILE *out;
    FILE *devnull;
    SCREEN *scr;
};

struct script *ui_script;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool script_parse_size(const char *s, int *cols, int *rows)
{
    char *e;
    long c = strtol(s, &e, 10);
    if (e == s || (*e != 'x' && *e != 'X'))
        return false;
    const char *r0 = e + 1;
    long r = strtol(r0, &e, 10);
    if (e == r0 || *e || c < 20 || c > 1000 || r < 5 || r > 500)
        return false;
    *cols = (int)c;
    *rows = (int)r;
    return true;
}

/* A key by name, or INT_MIN when the name is not one. */
static int key_named(const char *k)
{
    static const struct { const char *name; int key; } names[] = {
        { "Enter", '\r' }, { "Esc", 27 }, { "Escape", 27 }, { "Tab", '\t' }, { "BTab", KEY_BTAB },
        { "Space", ' ' }, { "Up", KEY_UP }, { "Down", KEY_DOWN }, { "Left", KEY_LEFT },
        { "Right", KEY_RIGHT }, { "PgUp", KEY_PPAGE }, { "PgDn", KEY_NPAGE }, { "Home", KEY_HOME },
        { "End", KEY_END }, { "BSpace", KEY_BACKSPACE },
    };
    size_t n = strlen(k);
    if (n == 1)
        return (unsigned char)k[0];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(k, names[i].name))
            return names[i].key;
    if (n == 3 && k[0] == 'C' && k[1] == '-')
        return k[2] & 0x1f;
    if (k[0] == 'F' && n <= 3) {
        char *e;
        long f = strtol(k + 1, &e, 10);
        if (!*e && f >= 1 && f <= 12)
            return KEY_F((int)f);
    }
    return INT_MIN;
}

static bool push_key(struct cmd *c, int key)
{
    int *p = grow_array(c->keys, &c->keys_cap, c->nkeys + 1, sizeof *p);
    if (!p)
        return false;
    c->keys = p;
    c->keys[c->nkeys++] = key;
    return true;
}

/* One line into cmd; false with err set when it is not a command. */
static bool parse_line(char *s, struct cmd *c, char *err, size_t errsize)
{
    char *arg = strchr(s, ' ');
    if (arg)
        *arg++ = 0;
    else
        arg = s + strlen(s);
    if (!strcmp(s, "keys")) {
        c->kind = C_KEYS;
        for (char *k = strtok(arg, " \t"); k; k = strtok(NULL, " \t")) {
            int key = key_named(k);
            if (key == INT_MIN) {
                snprintf(err, errsize, "unknown key '%.40s'", k);
                return false;
            }
            if (!push_key(c, key))
                return false;
        }
        return true;
    }
    if (!strcmp(s, "text")) {
        c->kind = C_KEYS;
        for (const unsigned char *p = (const unsigned char *)arg; *p; p++)
            if (!push_key(c, *p))
                return false;
        return true;
    }
    if (!strcmp(s, "wait")) {
        c->kind = C_WAIT;
        if (!*arg) {
            snprintf(err, errsize, "wait needs the text to wait for");
            return false;
        }
        c->text = strdup(arg);
        return c->text != NULL;
    }
    if (!strcmp(s, "loaded") || !strcmp(s, "dump")) {
        c->kind = !strcmp(s, "loaded") ? C_LOADED : C_DUMP;
        return true;
    }
    if (!strcmp(s, "timeout")) {
        c->kind = C_TIMEOUT;
        char *e;
        double v = strtod(arg, &e);
        if (e == arg || *e || !(v > 0 && v <= 3600)) {
            snprintf(err, errsize, "timeout takes seconds (0 < S <= 3600)");
            return false;
        }
        c->ms = v * 1000.0;
        return true;
    }
    if (!strcmp(s, "resize")) {
        c->kind = C_RESIZE;
        char size[64];
        snprintf(size, sizeof size, "%s", arg);
        char *sp = strchr(size, ' ');
        if (sp)
            *sp = 'x';
        if (!script_parse_size(size, &c->cols, &c->rows)) {
            snprintf(err, errsize, "resize takes COLS ROWS (20..1000, 5..500)");
            return false;
        }
        return true;
    }
    snprintf(err, errsize, "unknown command '%.40s' (keys, text, wait, loaded, dump, resize, timeout)", s);
    return false;
}

struct script *script_open(const char *path, int cols, int rows, FILE *out, char *err, size_t errsize)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errsize, "%s: cannot be read", path);
        return NULL;
    }
    struct script *sc = calloc(1, sizeof *sc);
    if (!sc) {
        fclose(f);
        snprintf(err, errsize, "%s: out of memory", path);
        return NULL;
    }
    sc->path = path;
    sc->cols = cols;
    sc->rows = rows;
    sc->out = out;
    sc->wait_limit = WAIT_LIMIT_MS;
    char line[4096];
    int no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            snprintf(err, errsize, "%s:%d: line too long", path, no);
            goto bad;
        }
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        struct cmd *p = grow_array(sc->cmds, &sc->cap, sc->ncmds + 1, sizeof *p);
        if (!p) {
            snprintf(err, errsize, "%s: out of memory", path);
            goto bad;
        }
        sc->cmds = p;
        struct cmd *c = &sc->cmds[sc->ncmds];
        memset(c, 0, sizeof *c);
        c->line = no;
        sc->ncmds++;
        char why[160] = "out of memory";
        if (!parse_line(s, c, why, sizeof why)) {
            snprintf(err, errsize, "%s:%d: %s", path, no, why);
            goto bad;
        }
    }
    fclose(f);
    return sc;
bad:
    fclose(f);
    script_free(sc);
    return NULL;
}

void script_free(struct script *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->ncmds; i++)
        FREE_ALL(sc->cmds[i].keys, sc->cmds[i].text);
    FREE_ALL(sc->cmds, sc);
}

bool script_screen(struct script *sc)
{
    sc->devnull = fopen("/dev/null", "w+");
    if (!sc->devnull)
        return false;
    sc->scr = newterm("xterm-256color", sc->devnull, sc->devnull);
    if (!sc->scr)
        sc->scr = newterm("vt100", sc->devnull, sc->devnull);
    if (!sc->scr) {
        fclose(sc->devnull);
        sc->devnull = NULL;
        return false;
    }
    set_term(sc->scr);
    resizeterm(sc->rows, sc->cols);
    return true;
}

void script_screen_end(struct script *sc)
{
    if (sc->scr)
        delscreen(sc->scr);
    sc->scr = NULL;
    if (sc->devnull)
        fclose(sc->devnull);
    sc->devnull = NULL;
}

int script_key(struct script *sc)
{
    if (sc->pending) {
        int k = sc->pending;
        sc->pending = 0;
        return k;
    }
    if (!sc->feeding)
        return ERR;
    const struct cmd *c = &sc->cmds[sc->at - 1];
    if (sc->key_i < c->nkeys)
        return c->keys[sc->key_i++];
    sc->feeding = false;
    return ERR;
}

/* Row y of the screen as UTF-8, trailing blanks cut. */
static void screen_row(int y, int cols, char *buf, size_t size)
{
    size_t o = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    for (int x = 0; x < cols && o + MB_LEN_MAX + 1 < size; x++) {
        cchar_t cc;
        wchar_t wch[CCHARW_MAX + 1];
        attr_t attr;
        short pair;
        if (mvwin_wch(curscr, y, x, &cc) == ERR || getcchar(&cc, wch, &attr, &pair, NULL) == ERR || !wch[0])
            wch[0] = L' ', wch[1] = 0;
        size_t k = wcrtomb(buf + o, wch[0], &st);
        if (k == (size_t)-1) {
            buf[o] = '?';
            k = 1;
            memset(&st, 0, sizeof st);
        }
        o += k;
        if (wcwidth(wch[0]) == 2)
            x++;            /* the cell after a wide character is its other half */
    }
    while (o && buf[o - 1] == ' ')
        o--;
    buf[o] = 0;
}

static bool screen_has(const char *text)
{
    int rows = getmaxy(curscr), cols = getmaxx(curscr);
    char row[8192];
    for (int y = 0; y < rows; y++) {
        screen_row(y, cols, row, sizeof row);
        if (strstr(row, text))
            return true;
    }
    return false;
}

static void dump(struct script *sc)
{
    int rows = getmaxy(curscr), cols = getmaxx(curscr);
    char row[8192];
    fprintf(sc->out, "--- screen %d ---\n", ++sc->screens);
    for (int y = 0; y < rows; y++) {
        screen_row(y, cols, row, sizeof row);
        fprintf(sc->out, "%s\n", row);
    }
    fflush(sc->out);
}

bool script_frame(struct script *sc, bool loaded, bool settled)
{
    if (sc->feeding || sc->pending || !settled)
        return false;
    while (sc->at < sc->ncmds) {
        const struct cmd *c = &sc->cmds[sc->at];
        switch (c->kind) {
        case C_KEYS:
            sc->at++;
            sc->key_i = 0;
            sc->feeding = c->nkeys > 0;
            return false;          /* the keys go in, then a frame */
        case C_WAIT:
        case C_LOADED: {
            bool ok = c->kind == C_LOADED ? loaded : screen_has(c->text);
            if (!ok) {
                double t = now_ms();
                if (!sc->wait_since)
                    sc->wait_since = t;
                if (t - sc->wait_since < sc->wait_limit)
                    return false;  /* another frame */
                fprintf(sc->out, "wait failed: %s:%d: %s\n", sc->path, c->line,
                        c->kind == C_LOADED ? "loading did not finish" : c->text);
                dump(sc);
                sc->failed = true;
                return true;
            }
            sc->wait_since = 0;
            sc->at++;
            break;
        }
        case C_TIMEOUT:
            sc->wait_limit = c->ms;
            sc->at++;
            break;
        case C_DUMP:
            dump(sc);
            sc->at++;
            break;
        case C_RESIZE:
            resizeterm(c->rows, c->cols);
            sc->at++;
            sc->pending = KEY_RESIZE;   /* the explorer lays its windows out again */
            return false;
        }
    }
    return true;
}

bool script_failed(const struct script *sc)
{
    return sc && sc->failed;
}
