/* The Timeline and X-Rank views. Data flow: the shell installs a rank's finished model
 * (model/index/model.h); view_timeline.c turns the visible time window into rows of lanes
 * that lanedraw.c fills from the model's slices, under time_axis.c's ruler; the pane asks io,
 * through the loader's slice_fields, for a selected slice's args off the UI thread; X-Rank
 * (view_xrank.c) stacks one lane of every rank, on request (`A`) shifted so that the same
 * collectives end together (comm_align_offsets).
 *
 * Private state of the timeline view, shared by its files:
 *   view_timeline.c   rows, drawing, keys
 *   timeline_nav.c    search, flow-follow, jump history
 *   timeline_marks.c  marks (bookmarks of a slice or a time)
 *   timeline_pane.c   the lower pane: selection summary, detail with args, range aggregates
 *   timeline_export.c a range written as a Chrome trace, off the UI thread
 *   timeline_bench.c  off-screen render benchmark
 * The view reads only the installed model of the current rank; every frame costs
 * O(rows x columns x log n). */
#ifndef APTOP_TIMELINE_H
#define APTOP_TIMELINE_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/index/range_totals.h"
#include "model/index/model.h"
#include "ui/timeline/lanedraw.h"
#include "ui/shell/view.h"

enum tl_row_kind { TR_PROC, TR_LANE, TR_COUNTER };

struct tl_row {
    uint8_t kind;
    uint32_t proc;          /* every kind */
    uint32_t lane;          /* TR_LANE */
    uint32_t depth;         /* TR_LANE */
    uint32_t track;         /* TR_COUNTER */
};

struct tl_mark;

struct tl_pos {             /* one jump-history entry */
    uint32_t slice;
    ns_t cur_t;
};

#define TL_HIST 64
#define TL_HITS_MAX (1u << 21)   /* matches kept for "3/90"; beyond, the count alone */

struct timeline {
    const struct model *m;  /* model of the current rank (borrowed), NULL until installed */
    ns_t origin;            /* capture start: min t_min over installed models */
    /* The view shows the whole span at the current width (what `0` gives) and fits again
     * when the width or the data change, until a zoom, a pan or a jump moves it. */
    struct axis_fit fit;

    struct time_axis ax;    /* viewport: columns of the graph area at the last draw */
    ns_t cur_t;             /* cursor time (zoom centre) */
    int graph_x;            /* first column of the graph area */
    int lanes_y, lanes_h;   /* body rows of the lane area at the last draw */

    /* rows */
    struct tl_row *rows;
    size_t nrows, rows_cap;
    size_t row, top;        /* cursor row, first visible row */
    bool *folded;           /* per proc */
    uint32_t nfolded;
    bool flat;              /* depth 0 only */
    uint32_t stack_depth;   /* host (Python, CANN) lanes show this many depth rows */
    double *cmin, *cmax;    /* per counter track: the shading's scale */
    double *vmin, *vmax;    /* per counter track: the smallest and largest sample */

    uint32_t sel;           /* selected slice or SLICE_NONE */
    bool abs_time;

    /* lower pane */
    bool detail;
    int detail_top;
    char **lines;           /* detail text lines of `lines_for` (raw, escaped when drawn) */
    size_t nlines;
    uint32_t lines_for;
    int lines_cols;         /* the width lines_for's long names were wrapped to */
    size_t name_lines;      /* the first lines: the name, drawn bold */
    struct slice_fields_job *fields;   /* the args or DB row of `fields_for`, read off the UI thread */
    uint32_t fields_for;
    bool fields_waiting;    /* the lines say "reading…": built again once the job is done */

    /* range selection: 0 none, 1 start marked, 2 both ends */
    int range;
    ns_t r0, r1;
    struct range_totals rt; /* clipped to [r0, r1), grouped by lane kind */
    size_t nagg;            /* lines of the range pane: group headings and rows */
    int agg_top;
    struct export_job *export;   /* the range being written (E), NULL: none */

    /* search */
    bool re_ok;
    regex_t re;
    char pattern[256];
    uint8_t *match;         /* per string id: 1 when the name matches */
    uint32_t nmatch_ids;
    size_t nhits;           /* slices whose name matches */
    uint32_t *hits;         /* those slices in (start, id) order, when at most TL_HITS_MAX */

    /* flows */
    uint32_t partner;       /* flow partner to mark, or SLICE_NONE */
    uint32_t chain_a, chain_b;   /* ends of the last followed chain */
    uint32_t flow_anchor;   /* slice whose flows ] and [ cycle through */
    size_t flow_i;
    uint32_t *picks;        /* targets offered in the pick list */
    size_t npicks;

    /* marks, in time order (timeline_marks.c) */
    struct tl_mark *marks;
    size_t nmarks, marks_cap;

    /* jump history */
    struct tl_pos hist[TL_HIST];
    size_t nhist, hist_i;   /* hist_i: index of the current position + 1 */

    /* mouse drag */
    bool drag;
    ns_t drag_t;
    int drag_col;
};

static inline struct timeline *tl_of(struct view *v) { return v->priv; }

/* view_timeline.c */
#define TL_STACK_DEPTH 3    /* host stack rows shown at first; ( and ) change it */
void tl_rebuild_rows(struct timeline *t);
/* Host lanes (Python, CANN) whose depth rows fold past stack_depth. */
bool tl_stack_lane(const struct model *m, uint32_t lane);
/* The counter's value at time `at` (its last sample at or before it); false before the first. */
bool tl_counter_at(const struct counter_track *ct, ns_t at, double *v);
/* A counter value as the label shows it: integers whole, else 4 significant digits. */
const char *tl_fmt_value(double v, char *buf, size_t size);
/* Selects slice s, unfolds its process, shows its row, pans when it is off screen. */
void tl_select(struct view *v, uint32_t s, bool record);
size_t tl_row_of_slice(const struct timeline *t, uint32_t s);

/* timeline_labels.c: the names of rows top .. top+count-1 shortened for labels lw columns
 * wide, none like another on screen; *cell bytes each (an empty one: a depth row), malloc'd,
 * or NULL when memory ran out (the names are then drawn as they are). */
char *tl_short_labels(const struct timeline *t, size_t top, size_t count, int lw, size_t *cell);

/* timeline_nav.c */
void tl_search_prompt(struct view *v);
void tl_search_step(struct view *v, bool forward);
void tl_search_free(struct timeline *t);
void tl_follow(struct view *v, bool forward);
void tl_flow_cycle(struct view *v, int dir);
void tl_hist_push(struct timeline *t);
void tl_hist_move(struct view *v, int dir);
void tl_goto_prompt(struct view *v);

/* timeline_marks.c */
void tl_mark_toggle(struct view *v);
void tl_mark_step(struct view *v, int dir);
void tl_marks_draw(const struct timeline *t, WINDOW *w, int y);
void tl_marks_free(struct timeline *t);
/* Drops the marks whose model is no longer one of the session's installed models. */
void tl_marks_keep(struct timeline *t, const struct session *s);

/* timeline_export.c: E exports the range; poll (each draw) reports a finished export */
void tl_range_export(struct view *v);
void tl_export_poll(struct view *v);
void tl_export_free(struct timeline *t);

/* timeline_pane.c */
int tl_pane_height(const struct timeline *t, int body_h);
void tl_pane_draw(struct view *v, WINDOW *w, int y, int h, int cols);
void tl_pane_free(struct timeline *t);
void tl_range_compute(struct timeline *t);
const char *tl_fmt_time(const struct timeline *t, ns_t at, char *buf, size_t size);

#endif
