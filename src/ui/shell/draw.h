/* Drawing helpers shared by all views: safe text, numbers with units, colours. */
#ifndef APTOP_DRAW_H
#define APTOP_DRAW_H
#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

/* Sets up colour pairs: 256/16/8 colours, none under NO_COLOR or on mono terminals.
 * Returns whether colours are on. */
bool draw_colors_init(void);
/* The attribute of a colour pair (A_NORMAL when colours are off) plus fallbacks (bold,
 * reverse) so meaning never rests on colour alone. */
attr_t draw_attr(int pair);
/* Stable colour pair for a name id / text (same name, same colour, across frames). */
int draw_name_pair(uint32_t name_id);

/* Draws untrusted UTF-8 text s[0..len) at (y, x) clipped to width columns: control
 * characters and escape sequences become \xNN, invalid bytes \xNN, wide characters take
 * two columns and are never split. Returns the columns used. len SIZE_MAX: strlen. */
int draw_text(WINDOW *w, int y, int x, int width, const char *s, size_t len, attr_t attr);
/* Columns draw_text would use for s (unclipped). */
int draw_text_width(const char *s, size_t len);
/* Escapes s into out as draw_text shows it (for building lines and pick lists). */
void draw_escape(const char *s, size_t len, char *out, size_t size);
/* Frees n strings and the array holding them (built lines, pick list items). */
void draw_strings_free(char **v, size_t n);
/* Fills width columns at (y, x) with ch (a UTF-8 glyph or ASCII) in attr. */
void draw_fill(WINDOW *w, int y, int x, int width, const char *glyph, attr_t attr);
/* Writes printf text (trusted) at (y, x) clipped to width. */
int draw_printf(WINDOW *w, int y, int x, int width, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Durations and times in the unit that fits: "58.3 µs", "3.412 ms", "1.250 s", "812 ns".
 * utf8 false writes "us". */
const char *fmt_dur(ns_t ns, char *buf, size_t size);
/* Ruler label for time t with a step of `step` ns: "12ms", "2.5µs". */
const char *fmt_ruler(ns_t t, ns_t step, char *buf, size_t size);
/* Parses "12.5ms", "300us", "1.2 s", "42" (ms when no unit). Returns 0 or -1. */
int parse_time(const char *s, ns_t *out);
extern bool draw_utf8;     /* set by the shell: terminal takes UTF-8 glyphs */

#endif
