/* What the views keep in the user's settings (settings.c): per table (by its rowset's
 * name) the sort column and direction and the hidden columns; for every table whether
 * times are shown exact (µs as written) or in the unit that fits; the timeline's folded
 * process groups, by name. Each is written when the user changes it and read back when a
 * view first gets its data. */
#include "ui/table/view_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/shell/settings.h"

#define MAX_SAVED 256

static bool table_key(const struct vtable *t, const char *what, char *out, size_t size)
{
    if (!t->rs || !t->rs->name || !t->rs->name[0] || strchr(t->rs->name, ' '))
        return false;
    snprintf(out, size, "table.%s.%s", t->rs->name, what);
    return true;
}

void vt_restore(struct vtable *t)
{
    const char *u = settings_get("units");
    if (u)
        t->exact = !strcmp(u, "exact");
    char key[200];
    if (!table_key(t, "hidden", key, sizeof key))
        return;
    const char *v[MAX_SAVED];
    size_t n = settings_get_all(key, v, MAX_SAVED), shown = 0;
    if (n > MAX_SAVED)
        n = MAX_SAVED;
    for (size_t i = 0; i < n; i++) {
        size_t c = rowset_find_col(t->rs, v[i]);
        if (c != SIZE_MAX)
            t->hidden[c] = 1;
    }
    for (size_t c = 0; c < t->rs->ncols; c++)
        shown += !t->hidden[c];
    if (!shown)   /* saved for another version of the table: never hide every column */
        memset(t->hidden, 0, t->rs->ncols);
}

bool vt_saved_sort(const struct vtable *t, size_t *col, bool *desc)
{
    char key[200];
    if (!table_key(t, "sort", key, sizeof key))
        return false;
    const char *v = settings_get(key);
    if (!v)
        return false;
    const char *sp = strrchr(v, ' ');
    if (!sp)
        return false;
    char name[160];
    snprintf(name, sizeof name, "%.*s", (int)(sp - v), v);
    size_t c = rowset_find_col(t->rs, name);
    if (c == SIZE_MAX || t->hidden[c])
        return false;
    *col = c;
    *desc = !strcmp(sp + 1, "desc");
    return true;
}

void vt_remember(const struct vtable *t)
{
    char key[200];
    settings_set("units", t->exact ? "exact" : "fit");
    if (!table_key(t, "sort", key, sizeof key))
        return;
    char sort[200];
    if (t->sort_col < t->rs->ncols) {
        snprintf(sort, sizeof sort, "%s %s", t->rs->cols[t->sort_col].key, t->desc ? "desc" : "asc");
        settings_set(key, sort);
    } else {
        settings_set(key, NULL);
    }
    const char *v[MAX_SAVED];
    size_t n = 0;
    for (size_t c = 0; c < t->rs->ncols && n < MAX_SAVED; c++)
        if (t->hidden[c])
            v[n++] = t->rs->cols[c].key;
    table_key(t, "hidden", key, sizeof key);
    settings_set_all(key, v, n);
}

void tl_restore_folds(struct timeline *t)
{
    if (!t->m || !t->folded)
        return;
    const char *v[MAX_SAVED];
    size_t n = settings_get_all("timeline.folded", v, MAX_SAVED);
    if (n > MAX_SAVED)
        n = MAX_SAVED;
    for (uint32_t p = 0; p < t->nfolded; p++) {
        const char *name = model_str(t->m, t->m->procs[p].name);
        for (size_t i = 0; name && i < n; i++)
            if (!strcmp(name, v[i]))
                t->folded[p] = true;
    }
}

void tl_remember_folds(const struct timeline *t)
{
    if (!t->m || !t->folded)
        return;
    const char *v[MAX_SAVED];
    size_t n = 0;
    for (uint32_t p = 0; p < t->nfolded && n < MAX_SAVED; p++) {
        const char *name = model_str(t->m, t->m->procs[p].name);
        bool dup = false;
        for (size_t i = 0; name && i < n && !dup; i++)
            dup = !strcmp(v[i], name);
        if (t->folded[p] && name && name[0] && !dup && !strchr(name, '\n'))
            v[n++] = name;
    }
    settings_set_all("timeline.folded", v, n);
}
