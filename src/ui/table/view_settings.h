/* The views' settings that persist between runs (see view_settings.c). */
#ifndef APTOP_UI_VIEW_SETTINGS_H
#define APTOP_UI_VIEW_SETTINGS_H
#include <stdbool.h>
#include <stddef.h>

#include "ui/timeline/timeline.h"
#include "ui/table/view_table.h"

/* Hides the columns saved as hidden for this table, and applies the saved time units. */
void vt_restore(struct vtable *t);
/* The sort saved for this table, when its column exists and is shown. */
bool vt_saved_sort(const struct vtable *t, size_t *col, bool *desc);
/* Saves the table's sort, hidden columns and time units (written only when changed). */
void vt_remember(const struct vtable *t);
/* Folds the process groups saved as folded; saves the folded ones. */
void tl_restore_folds(struct timeline *t);
void tl_remember_folds(const struct timeline *t);

#endif
