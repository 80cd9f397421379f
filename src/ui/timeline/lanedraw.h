/* The ruler and lane rows shared by the timeline and the cross-rank view, over a time_axis
 * (time_axis.h). lanedraw_ruler draws the two ruler lines over it; lanedraw_row draws one depth row of one
 * lane: a slice at least 4 columns wide is a box "[name····]", narrower activity a shade
 * of how busy the column is. A row costs O(columns x log n) (model_row_range, model_busy),
 * never a scan of the lane. */
#ifndef APTOP_LANEDRAW_H
#define APTOP_LANEDRAW_H
#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/index/model.h"
#include "ui/timeline/time_axis.h"

/* The model's time span; false (and 0, 0) when it has no timed event (metadata only). */
static inline bool model_time_span(const struct model *m, ns_t *lo, ns_t *hi)
{
    bool any = m && m->t_min != NS_NONE && m->t_max != NS_NONE && m->t_max >= m->t_min;
    *lo = any ? m->t_min : 0;
    *hi = any ? m->t_max : 0;
    return any;
}

struct ruler_opts {
    ns_t base;              /* tick labels count from here */
    const char *mode;       /* second corner line: "relative", "aligned", ... */
    ns_t cur_t;             /* the cursor, marked under its column */
    bool range;             /* mark [r0, r1] (either order) on the tick line */
    ns_t r0, r1;
};

/* Rows y (labels) and y+1 (ticks) over the graph area from column x0; "<npc>/col" and
 * o->mode in the corner (columns 1 .. lw-1). */
void lanedraw_ruler(WINDOW *w, int y, int x0, int lw, const struct time_axis *ax, const struct ruler_opts *o);

/* One depth row of one lane. View time = the model's time + shift. */
struct lane_ref {
    const struct model *m;  /* borrowed */
    uint32_t lane, depth;
    ns_t shift;
};

/* What a row marks besides its slices. */
struct lane_marks {
    uint32_t sel;           /* selected slice or SLICE_NONE: its box in the selection colour */
    bool sel_cells;         /* a narrow sel marks every cell holding it (else one mark at its start) */
    uint32_t flow[3];       /* flow ends to underline, SLICE_NONE where unused */
    const uint8_t *match;   /* per name id: nonzero for a search hit (borrowed), or NULL */
    uint32_t nmatch;
};

/* Draws columns [0, ax->ncols) of the row at (y, x0 + column). mk may be NULL (no marks). */
void lanedraw_row(WINDOW *w, int y, int x0, const struct time_axis *ax, const struct lane_ref *r,
                  const struct lane_marks *mk);
/* The attribute of slice s's box: selection, flow, search hit, communication, or the
 * colour of its name. mk may be NULL. */
attr_t lanedraw_slice_attr(const struct model *m, uint32_t s, const struct lane_marks *mk);
/* Colour pair of a lane's shading by kind: compute, communication, idle, host. */
int lanedraw_lane_pair(const struct model *m, uint32_t lane);
/* A one-cell shade for a fraction in [0, 1] ("▁".."█", ASCII ".:+#"). */
const char *lanedraw_shade(double frac);
/* "Process ▸ Thread" (">" without UTF-8), "?" for a lane out of range. */
const char *lanedraw_lane_label(const struct model *m, uint32_t lane, char *buf, size_t size);

#endif
