/* Per-user settings that persist between runs (table columns and sort, folded timeline
 * groups), kept in $XDG_CONFIG_HOME/aptop/settings, never inside a capture. See settings.c. */
#ifndef APTOP_UI_SETTINGS_H
#define APTOP_UI_SETTINGS_H
#include <stdbool.h>
#include <stddef.h>

/* The settings file's path; false when neither XDG_CONFIG_HOME nor HOME is set. */
bool settings_path(char *out, size_t size);
/* The first value of key, or NULL. */
const char *settings_get(const char *key);
/* Up to max values of key into out; returns how many there are. */
size_t settings_get_all(const char *key, const char **out, size_t max);
/* Replaces every value of key (n 0: removes it) and writes the file when that changed
 * something; 0 on success, -1 when the file could not be written. */
int settings_set_all(const char *key, const char *const *values, size_t n);
int settings_set(const char *key, const char *value);
/* Refuses to write settings into a folder under root (the capture being read). */
void settings_forbid_under(const char *root);
/* The last write failed (the explorer says so once). */
bool settings_write_failed(void);
void settings_free(void);

#endif
