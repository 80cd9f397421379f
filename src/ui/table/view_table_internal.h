/* Private to the table widget's files: view_table.c (values, filtering, sorting, the
 * rowset, export), view_table_draw.c (drawing) and view_table_input.c (keys, mouse, the
 * filter and search prompts). Nothing else includes this header. */
#ifndef APTOP_VIEW_TABLE_INTERNAL_H
#define APTOP_VIEW_TABLE_INTERNAL_H

#include "ui/table/view_table.h"
#include "ui/shell/draw.h"

#include <stdbool.h>
#include <stddef.h>

enum vt_unit { U_TEXT, U_INT, U_US, U_MS, U_START, U_NUM, U_PCT };

#define GAP 2            /* blanks between columns */
#define GUTTER 2         /* the selection marker */

static inline const char *sel_glyph(void) { return draw_utf8 ? "\xe2\x96\xb8" : ">"; }

/* view_table.c */
/* The text cell (RS_STR) of row r, column c as shown: C++ symbol names demangled
 * (util/demangle.h); its length in *len. The cell must not be null. */
const char *vt_cell_shown(const struct vtable *t, size_t r, size_t c, size_t *len);
const char *vt_cell_text(const struct vtable *t, size_t row, size_t col, char *buf, size_t size);
void vt_col_title(const struct vtable *t, size_t col, char *out, size_t size);
bool vt_col_numeric(const struct rowset *rs, size_t col);
void vt_measure(struct vtable *t);
void vt_refilter(struct vtable *t);

/* view_table_layout.c: the columns of a frame in display order, at x with width w (text
 * may be narrower than measured: drawn shortened), and the row notes' column. */
struct vt_layout {
    size_t n;
    size_t *cols;
    int *x, *w;
    int mark_x, mark_w;      /* mark_w 0: no notes on this page */
};
bool vt_layout(struct vtable *t, int cw, int mark_w, struct vt_layout *L);
void vt_layout_free(struct vt_layout *L);
/* Column c stays on screen (name, sort or answering column). */
bool vt_pinned(const struct vtable *t, size_t c);
/* The columns that scroll sideways. */
size_t vt_scrollable_count(const struct vtable *t);

#endif
