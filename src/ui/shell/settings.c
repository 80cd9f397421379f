/* Settings kept per user between runs: one "key value" line each in
 * $XDG_CONFIG_HOME/aptop/settings (else ~/.config/aptop/settings). A key may hold several
 * values (one line each, e.g. the hidden columns of a table). The file is read once, and
 * written whole (a temporary file renamed over it) each time a value changes, so a crash
 * loses nothing and a reader never sees half a file. Nothing is written inside a capture:
 * a settings folder under the capture being read is refused. */
#include "ui/shell/settings.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct setting {
    char *key, *value;
};

static struct setting *items;
static size_t nitems, cap;
static bool loaded, write_failed;
#define MAX_FORBIDDEN 8
static char forbidden[MAX_FORBIDDEN][PATH_MAX];
static size_t nforbidden;

bool settings_path(char *out, size_t size)
{
    const char *x = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (x && x[0] == '/')
        snprintf(out, size, "%s/aptop/settings", x);
    else if (home && home[0])
        snprintf(out, size, "%s/.config/aptop/settings", home);
    else
        return false;
    return true;
}

static void add(const char *key, const char *value)
{
    items = grow_array_or_exit(items, &cap, nitems + 1, sizeof *items, "settings");
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        FREE_ALL(k, v);
        return;
    }
    items[nitems++] = (struct setting){ k, v };
}

static void load(void)
{
    if (loaded)
        return;
    loaded = true;
    char path[PATH_MAX];
    if (!settings_path(path, sizeof path))
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = 0;
        add(line, sp + 1);
    }
    fclose(f);
}

size_t settings_get_all(const char *key, const char **out, size_t max)
{
    load();
    size_t n = 0;
    for (size_t i = 0; i < nitems; i++)
        if (!strcmp(items[i].key, key)) {
            if (n < max)
                out[n] = items[i].value;
            n++;
        }
    return n;
}

const char *settings_get(const char *key)
{
    const char *v = NULL;
    return settings_get_all(key, &v, 1) ? v : NULL;
}

void settings_forbid_under(const char *root)
{
    if (root && nforbidden < MAX_FORBIDDEN && realpath(root, forbidden[nforbidden]))
        nforbidden++;
}

/* The folder exists or is made (with its parents), and lies outside the capture. */
static bool ready_dir(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = 0;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0700);
            *p = '/';
        }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return false;
    for (size_t i = 0; i < nforbidden; i++) {
        size_t n = strlen(forbidden[i]);
        if (!strncmp(real, forbidden[i], n) && (real[n] == 0 || real[n] == '/'))
            return false;
    }
    return true;
}

static int save(void)
{
    char path[PATH_MAX], tmp[PATH_MAX + 16];
    if (!settings_path(path, sizeof path) || !ready_dir(path))
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "# aptop settings: one \"key value\" a line, rewritten when a setting changes\n");
    for (size_t i = 0; i < nitems; i++)
        fprintf(f, "%s %s\n", items[i].key, items[i].value);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int settings_set_all(const char *key, const char *const *values, size_t n)
{
    load();
    /* unchanged: nothing to write */
    size_t have = 0;
    bool same = true;
    for (size_t i = 0; i < nitems; i++)
        if (!strcmp(items[i].key, key)) {
            if (have >= n || strcmp(items[i].value, values[have]))
                same = false;
            have++;
        }
    if (same && have == n)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i < nitems; i++) {
        if (!strcmp(items[i].key, key)) {
            free(items[i].key);
            free(items[i].value);
        } else {
            items[o++] = items[i];
        }
    }
    nitems = o;
    for (size_t i = 0; i < n; i++)
        if (values[i] && !strchr(values[i], '\n'))
            add(key, values[i]);
    int rc = save();
    write_failed = rc != 0;
    return rc;
}

int settings_set(const char *key, const char *value)
{
    return value ? settings_set_all(key, &value, 1) : settings_set_all(key, NULL, 0);
}

bool settings_write_failed(void)
{
    return write_failed;
}

void settings_free(void)
{
    for (size_t i = 0; i < nitems; i++) {
        free(items[i].key);
        free(items[i].value);
    }
    free(items);
    items = NULL;
    nitems = cap = 0;
    nforbidden = 0;
    loaded = false;
}
