/* The one table widget of the table views (Kernels, Ops, Phases, Ranks, Comm): a struct
 * rowset drawn as a caption line, a header with units and one line per row, sortable by any
 * column (stable, rowset_sort_order), filtered by a regular expression over the text
 * columns and optionally by "column equals text" (drill-downs), scrolled sideways with
 * frozen leading columns, with a column chooser and CSV export of what is visible.
 *
 * The widget lives inside a view's private state and owns its rowset. A frame costs
 * O(visible rows x columns); sorting and filtering cost O(n log n) / O(n) once per change.
 * Cell text comes from files and is drawn through draw_text (escaped, wide-char aware). */
#ifndef APTOP_VIEW_TABLE_H
#define APTOP_VIEW_TABLE_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/rowsets/rowset.h"
#include "ui/shell/view.h"

/* A note drawn after a row ("<- slowest"), or NULL. */
typedef const char *(*vt_mark_fn)(const struct rowset *rs, size_t row, void *ctx);

struct vtable {
    struct rowset *rs;           /* owned; NULL: nothing to show (see empty) */
    char empty[256];             /* the line shown instead of an empty table */
    char caption[512];           /* the view's caption (left part of the first line) */
    uint32_t *order;             /* every row in sort order */
    uint32_t *vis;               /* rows passing the filters, in sort order */
    size_t nvis;
    size_t sort_col;             /* SIZE_MAX: rowset order */
    bool desc;
    size_t sel, top;             /* positions in vis */
    size_t hscroll;              /* scrollable columns skipped on the left */
    size_t frozen;               /* leading columns that never scroll */
    uint8_t *hidden;             /* per column */
    int *width;                  /* per column: display width (0: not measured) */
    uint8_t *unit;               /* per column: enum vt_unit (view_table.c) */
    bool exact;                  /* times exact in µs, starts absolute */
    ns_t origin;                 /* start columns shown relative to this (NS_NONE: absolute) */
    bool re_on;                  /* regex filter */
    regex_t re;
    char pattern[256];
    uint8_t *re_cache;           /* per string id: 0 unknown, 1 no match, 2 match */
    size_t eq_col;               /* fixed filter: column eq_col has text eq_id (SIZE_MAX: off) */
    uint32_t eq_id;
    vt_mark_fn mark;
    void *mark_ctx;
    bool chooser;                /* the column chooser is open */
    size_t chooser_sel;
    bool passive;                /* no selection marker (a summary table) */
    /* geometry of the last frame, for the mouse and paging */
    WINDOW *win;
    int y_head, y_rows, page;
    int *col_x;                  /* per column: x of the last frame, -1 when not shown */
    bool srch_on;                /* / search: moves the cursor to matching rows */
    regex_t srch;
    char srch_pat[256];
};

/* A copy of the visible rows and columns in display order (the CSV export), or NULL. */
struct rowset *vt_visible_copy(const struct vtable *t);
/* A zeroed widget made ready: no sort column, no fixed filter. Call once, before vt_set. */
void vt_init(struct vtable *t);
/* Frees the rowset and everything the widget holds (the struct itself stays usable). */
void vt_free(struct vtable *t);
/* Replaces the rowset (takes ownership, rs may be NULL). Keeps the sort column, hidden
 * columns (by key), the filters and the selected row (by its leading text) when they still
 * apply; a new table without a sort keeps the rowset's own order. */
void vt_set(struct vtable *t, struct rowset *rs);
/* Sorts by column col (SIZE_MAX: rowset order), keeping the selected row. */
void vt_sort(struct vtable *t, size_t col, bool desc);
/* Sorts by the column with this key if present. */
void vt_sort_key(struct vtable *t, const char *key, bool desc);
/* Fixed filter: only rows whose column `key` has exactly this text (key NULL: off). */
void vt_filter_eq(struct vtable *t, const char *key, const char *text);
/* The line shown when there is no table (printf, trusted format; arguments are escaped
 * when drawn). */
void vt_empty(struct vtable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The selected row (index into rs), or SIZE_MAX. */
size_t vt_selected(const struct vtable *t);
/* Selects a row of rs when it is visible. */
void vt_select_row(struct vtable *t, size_t row);
/* Text of column `key` in row (a string column), or NULL. */
const char *vt_text(const struct vtable *t, size_t row, const char *key);
/* Integer / ns value of column `key` in row into *out; false when absent or null. */
bool vt_int(const struct vtable *t, size_t row, const char *key, int64_t *out);

/* Draws caption, header and rows into w from line y, h lines. */
void vt_draw(struct vtable *t, WINDOW *w, int y, int h);
/* Handles movement, sorting, filter, export, columns, exact times and the mouse; returns
 * REQ_NONE when handled, else req (Enter, Esc with nothing to clear, ...) for the view. */
enum request vt_request(struct view *v, struct vtable *t, enum request req, int key);
/* Esc or Backspace (req as vt_request left it) while a drill-down over the view's table is
 * open (*open: the instances of a row, the canonical step): closes it and returns true. */
bool vt_drill_back(bool *open, enum request req, int key);
/* The hint of such a drill-down (a table of instances, each leading to the timeline). */
#define VT_DRILL_HINT "Enter:timeline  Esc:back  /:search  &:filter  <>:sort"

/* The time origin of the current capture for relative start columns: the earliest t_min of
 * the installed models, NS_NONE when none. */
ns_t vt_origin(struct ui *ui);
/* "1,234,567" into buf. */
const char *vt_thousands(uint64_t n, char *buf, size_t size);

/* Jumps to slice `link` of the current rank's timeline when it is one; else says why not
 * (`what` names the row, e.g. "this kernel"). */
bool vt_goto_slice(struct ui *ui, uint64_t link, const char *what);
/* A slice named exactly `name` on lanes of kind `kind` (LANE_OTHER: any lane): the one
 * starting nearest to `near`, or the longest when near is NS_NONE. SLICE_NONE when none.
 * O(slices of that kind). */
uint32_t vt_find_slice(const struct model *m, const char *name, enum lane_kind kind, ns_t near);

/* A table view that shows one of a few tables, t stepping through them (Ops, Ranks, Comm):
 * struct vt_modes is its priv, the spec says how its tables are built and what Enter does.
 * The shown table is built again when stale (parts installed, another rank, another table). */
#define VT_MODES_MAX 3
struct vt_modes_spec {
    int nmodes;
    void (*build)(struct view *v);      /* fills tab[mode] */
    /* Enter on row `row` of the shown table t (SIZE_MAX: no row selected) */
    void (*enter)(struct view *v, struct vtable *t, size_t row);
    const char *const *titles;          /* per table, said on t ("Ops: CANN APIs"); NULL: none */
    const char *hint;                   /* the status-line hint */
};
struct vt_modes {
    struct vtable tab[VT_MODES_MAX];
    int mode;
    bool stale;
    const struct vt_modes_spec *spec;
};
static inline struct vt_modes *vt_modes_of(struct view *v) { return v->priv; }
/* The view's init: the first table shown, built on first use. */
void vt_modes_init(struct view *v, const struct vt_modes_spec *spec);
/* The view's done, draw, request, data_changed and hint. */
void vt_modes_done(struct view *v);
void vt_modes_draw(struct view *v, WINDOW *w);
enum request vt_modes_request(struct view *v, enum request req, int key);
void vt_modes_changed(struct view *v);
const char *vt_modes_hint(struct view *v);
/* Builds the shown table when it is stale. */
void vt_modes_refresh(struct view *v);


#endif
