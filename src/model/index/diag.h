/* Diagnostics: problems found while reading captures, each naming the file and where in it.
 * Readers append from the loader thread; the UI and report read. Appending and reading are
 * guarded by one mutex, so any thread may call any function here. Strings are copied. */
#ifndef APTOP_DIAG_H
#define APTOP_DIAG_H
#include <stddef.h>
#include <stdint.h>

enum diag_level { DIAG_INFO, DIAG_WARN, DIAG_ERROR };

struct diag_msg {
    enum diag_level level;
    char *path;     /* file or directory the message is about ("" when none) */
    char *text;     /* already formatted, includes the position ("line 12, column 3: ...") */
};

struct diag;

struct diag *diag_new(void);
void diag_free(struct diag *d);
/* printf-style; the message is escaped for the terminal when shown, not here. */
void diag_add(struct diag *d, enum diag_level level, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The out-of-memory policy at a reader's boundary, in one place: what was read is kept (a
 * partial result) and an error names what is missing for lack of memory. It is counted even
 * when the message itself cannot be kept, so `report` can end with the out-of-memory status
 * (OOM_EXIT_STATUS) after printing what it has. */
void diag_out_of_memory(struct diag *d, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* How many times diag_out_of_memory was called on d. */
size_t diag_short_of_memory(struct diag *d);
size_t diag_count(struct diag *d);
/* Messages not kept (beyond the cap of 10000): they are counted, never shown. */
size_t diag_dropped(struct diag *d);
const char *diag_level_name(enum diag_level l);   /* "info", "warning", "error" */
size_t diag_count_level(struct diag *d, enum diag_level min_level);
/* Copies message i into *out (caller frees out->path and out->text); 0 on success. */
int diag_get(struct diag *d, size_t i, struct diag_msg *out);
/* "path: text" of message i into buf. */
void diag_format(struct diag *d, size_t i, char *buf, size_t size);

#endif
