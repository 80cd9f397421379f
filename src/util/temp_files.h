/* Temporary files the program is writing (a cache file or the settings before they are
 * renamed into place), so that a signal that ends the program removes them: the ending
 * handler (util/signals.h) calls temp_files_remove_all, which only unlinks (safe in a signal
 * handler). A writer adds its temporary path before creating it and forgets it once the file
 * is renamed or removed. */
#ifndef APTOP_UTIL_TEMP_FILES_H
#define APTOP_UTIL_TEMP_FILES_H

/* Remembers path; returns its slot for temp_files_forget, or -1 when the table is full or
 * the path too long (the file is then left behind if a signal ends the program). */
int temp_files_add(const char *path);
/* The file at slot is renamed into place or removed (-1: nothing). */
void temp_files_forget(int slot);
/* Unlinks every remembered file; async-signal-safe. */
void temp_files_remove_all(void);

#endif
