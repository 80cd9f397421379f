/* The view framework. The shell (display.c, shell_*.c) owns the terminal and one `struct ui`;
 * each view (timeline, kernels, ...) is a `struct view_ops` table registered in views.c.
 * Every loop turn the shell installs loader hand-overs, maps keys to requests (request.h)
 * and redraws:
 *
 *   key ──► req_for_key(key, view scopes) ──► shell (quit, help, tabs, ranks, prompts)
 *                                          └─► ops->request(view, req, key)
 *                                                returns REQ_NONE when handled; anything
 *                                                else is handled generically (the rows of
 *                                                view->list move) or ignored.
 *
 * Views draw only into ui->body (ops->draw), from the session's installed parts, costing
 * O(visible rows x columns x log n). A view never blocks; long work is split or bounded per
 * keypress. Views keep their state in priv (ops->private_size bytes, zeroed, freed by the
 * shell after ops->done). Untrusted text (names, args, paths) goes through draw_text()
 * (draw.h), which escapes control characters and keeps wide characters aligned. */
#ifndef APTOP_VIEW_H
#define APTOP_VIEW_H
#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/load/loader.h"
#include "model/index/model.h"
#include "model/index/session.h"
#include "ui/shell/list_cursor.h"
#include "ui/shell/request.h"

struct ui;
struct view;

/* A view registers itself: its ops carry its title, the key-table row that opens it (the
 * key is that row's), its help line, the scopes whose keys reach it and the scope it names.
 * Adding a view is its own file, one row of the key table (REQ_VIEW_<NAME>, help NULL)
 * and its line in views.c. */
struct view_ops {
    const char *name;           /* tab title: "Timeline" */
    enum request open;          /* the key-table row whose key opens it: REQ_VIEW_TIMELINE */
    const char *help;           /* its line in the help screen and `aptop --keys` */
    unsigned scopes;            /* SCOPE_* bits beyond SCOPE_GLOBAL that reach this view */
    unsigned own_scope;         /* the SCOPE_* bit named after this view (0: none) */
    size_t private_size;        /* bytes of view->priv, zeroed before init */
    /* It shows the current rank's timeline or what is read with it (kernel table, memory):
     * when timelines are read on demand (many ranks), showing it reads the rank's. */
    bool rank_timeline;
    void (*init)(struct view *v);                    /* may be NULL */
    void (*done)(struct view *v);                    /* may be NULL; frees what init took */
    /* Draws the whole body window (werase first). The shell calls wnoutrefresh. */
    void (*draw)(struct view *v, WINDOW *body);
    /* Handles a request; returns REQ_NONE when handled, else the request back. key is the
     * raw key (KEY_MOUSE: ui->mouse holds the event). */
    enum request (*request)(struct view *v, enum request req, int key);
    /* Parts were installed or freed (model/index/session.h), or the rank changed: drop pointers
     * into the session's parts, refresh cached figures, keep the place. */
    void (*data_changed)(struct view *v);            /* may be NULL */
    /* Another view published a focus (ui->focus): show it if this view shows such things. */
    void (*focus_changed)(struct view *v);           /* may be NULL */
    /* False when the view has nothing for this session: its tab is not listed (Tab skips
     * it, its key still opens it to say why); NULL: always listed. */
    bool (*listed)(const struct ui *ui);
    /* One status-line hint shown at the right while this view is current, may be NULL. */
    const char *(*hint)(struct view *v);
};

struct view {
    const struct view_ops *ops;
    struct ui *ui;
    void *priv;
    bool dirty;                 /* redraw the body on the next turn */
    /* The rows the shell moves when the view leaves Up, Down, PgUp, PgDn, Home or End
     * unhandled (list_cursor.h): set by ops->request, cleared before each call. */
    struct list_cursor list;
};

/* A request to view v (keys, benches): ops->request, then the moves it left unhandled on
 * v->list. Returns REQ_NONE when handled, else the request back. */
enum request view_request(struct view *v, enum request req, int key);

/* A one-line text prompt at the bottom (search, filter, go to time). user is the pointer
 * given to ui_prompt (the table or pane the prompt is about). */
typedef void (*prompt_fn)(struct view *v, void *user, const char *text, bool accepted);
/* A small pick list over the body; idx is SIZE_MAX when cancelled; user as given to ui_pick. */
typedef void (*pick_fn)(struct view *v, void *user, size_t idx);

enum ui_color {            /* colour pairs (draw.c picks fallbacks for 8 colours / NO_COLOR) */
    CP_DEFAULT = 0,
    CP_HEADER = 1, CP_TAB, CP_STATUS, CP_ERROR, CP_DIM, CP_SELECT, CP_RULER, CP_LABEL,
    CP_COMPUTE, CP_COMM, CP_IDLE, CP_HOST, CP_COUNTER, CP_MATCH, CP_RANGE, CP_FLOW,
    CP_NAME0,              /* CP_NAME0 .. CP_NAME0+CP_NAMES-1: stable colours by name */
};
#define CP_NAMES 6

/* What the views share instead of calling each other: the place one view sends the user to
 * (a table row to its slice, a step to its time range, a collective on every rank). Published
 * with ui_show_focus or ui_show_across_ranks; each view's focus_changed then reads it. */
struct ui_focus {
    size_t rank;                 /* index into s->ranks */
    uint32_t slice;              /* SLICE_NONE: none */
    ns_t t0, t1;                 /* the time range to show [t0, t1), NS_NONE: none */
    /* one slice per session rank (SLICE_NONE: none), for the views that align ranks; NULL:
     * the focus is on one rank. Valid only while focus_changed runs. */
    const uint32_t *rank_slices;
    size_t nrank_slices;
    /* a step or a rank to show in a table (the Phases view's step at position `step` of
     * rank's steps, the Ranks view's row of `rank`): slice and t0 are NONE then */
    enum ui_focus_kind { FOCUS_TIME, FOCUS_STEP, FOCUS_RANK } kind;
    size_t step;
    bool shown;                  /* set by the view that showed the focus */
    unsigned seq;                /* counts publications */
};

struct ui {
    struct session *s;
    struct loader *l;            /* the shell's (views read load); NULL: all loaded */
    const char *title;
    size_t rank;                 /* index into s->ranks */
    struct view *views;          /* one per registered ops, in tab order */
    size_t nviews, cur;
    WINDOW *hdr, *body, *status; /* top line, middle, bottom line */
    int rows, cols;
    bool utf8, color;
    bool quit;
    bool full;                   /* repaint everything on the next turn */
    MEVENT mouse;                /* the last mouse event (valid for REQ_MOUSE) */
    char msg[512];               /* status message (already escaped), shown until replaced */
    bool msg_error;
    void *shell;                 /* shell_internal.h: prompt, pick list, panes */
    /* several captures (`aptop A B`): s is group `group` of `all` (session_group_view);
     * with one capture all == s and ngroups == 0 */
    struct session *all;
    struct session *groupv;      /* ngroups views of all, one per capture */
    size_t ngroups, group;
    /* written to by io jobs a view started (slice_fields_start): the shell wakes and redraws
     * the current view; -1: none */
    int wake_fd;
    struct ui_focus focus;       /* the last focus published */
    /* the step the user selected last (the Phases view's cursor): its position in the
     * current rank's steps, SIZE_MAX: none */
    size_t step_selected;
    /* The load as views see it (they never ask the loader): set by the shell each turn,
     * after it installed what the loader handed over. */
    struct ui_load {
        bool loading;            /* parts are still being read */
        unsigned max_timelines;  /* >0: timelines read when opened, at most this many kept */
    } load;
};

/* The registry (views.c): every view, in tab order. */
extern const struct view_ops *const ui_views[];
extern const size_t ui_nviews;
extern const struct view_ops view_overview, view_timeline, view_kernels, view_operators, view_phases,
                             view_ranks, view_comm, view_xrank, view_compare, view_memory,
                             view_collectives, view_query, view_calltree, view_gaps;
/* The view opened by request r (ops->open), or NULL. */
const struct view_ops *view_opened_by(enum request r);

/* --- the API views use --- */
struct view *ui_current(struct ui *ui);
/* The view of these ops once it has its state (priv), or NULL. */
struct view *ui_view_of(struct ui *ui, const struct view_ops *ops);
void ui_switch_to(struct ui *ui, const struct view_ops *ops);
/* The rank on screen, or NULL before the session has ranks. */
struct rank_data *ui_rank(struct ui *ui);
void ui_set_rank(struct ui *ui, size_t rank);
/* Rank `rank`'s timeline (an index into s->ranks) is not in memory but can be read: many
 * ranks, two passes (io/load/loader.h), and it was not read yet or was freed. */
bool ui_timeline_readable(const struct ui *ui, size_t rank);
/* Shows capture group g (several captures open): its ranks, from its first rank. */
void ui_set_group(struct ui *ui, size_t g);
/* Status line message (printf-style; escaped before display). */
void ui_message(struct ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ui_error(struct ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Timeline jumps: switch to rank and the timeline and publish the focus there: slice S
 * selected (the zoom kept when it is visible, else centred), the range [t0, t1) shown
 * (model time base), or both (the range shown, the slice selected in it). */
void ui_show_focus(struct ui *ui, size_t rank, uint32_t slice, ns_t t0, ns_t t1);
void ui_goto_slice(struct ui *ui, size_t rank, uint32_t slice);
void ui_goto_range(struct ui *ui, size_t rank, ns_t t0, ns_t t1);
/* One slice per rank (slices[r], SLICE_NONE: none; n = session ranks), rank `focus` the one
 * in front, published for the views that align ranks (X-Rank shows the focus rank's lane on
 * every rank, aligned on collective ends, zoomed to the slices). False when no view showed it. */
bool ui_show_across_ranks(struct ui *ui, const uint32_t *slices, size_t n, size_t focus);
/* Step `step` (a position in rank's steps) or rank `rank` shown in the table that lists them
 * (published as a focus; that view switches to itself). False when no view showed it. */
bool ui_show_step(struct ui *ui, size_t rank, size_t step);
bool ui_show_rank(struct ui *ui, size_t rank);
/* Opens a prompt (label like "/", "go to: "), initial text may be NULL. on_change (may be
 * NULL) runs on every edit with accepted=false; done runs once at Enter (accepted) or Esc. */
void ui_prompt(struct ui *ui, struct view *v, const char *label, const char *initial,
               prompt_fn on_change, prompt_fn done, void *user);
/* Earlier inputs of the prompt just opened (copied, oldest first): Up and Down step through
 * them. */
void ui_prompt_history(struct ui *ui, const char *const *items, size_t n);
/* Opens a pick list of n items (copied, escaped when drawn); done gets the chosen index. */
void ui_pick(struct ui *ui, struct view *v, const char *title, const char *const *items,
             size_t n, pick_fn done, void *user);
/* Marks the body for redraw. */
void ui_dirty(struct ui *ui);


#endif
