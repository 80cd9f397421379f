/* The one key table. Every binding is a line REQ_(ID, SCOPE, key1, key2, key3, help):
 * keys map to requests, requests to handlers. The `?` help screen, `aptop --keys` and the
 * man page's KEYS section are all printed from this list, so they cannot disagree.
 *
 * Scopes: GLOBAL requests work in every view (the shell handles some, the rest go to the
 * current view, e.g. MOVE_DOWN); the others only reach views whose ops->scopes include
 * them. A key may mean different requests in different scopes ('/' searches the timeline
 * and filters a table): lookup tries the view's scopes first, then GLOBAL.
 * Keys are curses key codes; 0 marks an unused slot. */
#ifndef APTOP_REQUEST_H
#define APTOP_REQUEST_H
#include <curses.h>

#define UI_CTRL(c) ((c) & 0x1f)
#define UI_ESC 27

enum req_scope {
    SCOPE_GLOBAL   = 1 << 0,
    SCOPE_TIMELINE = 1 << 1,
    SCOPE_TABLE    = 1 << 2,   /* every table view: Kernels, Ops, Phases, Ranks, Comm */
    SCOPE_PHASES   = 1 << 3,
    SCOPE_XRANK    = 1 << 4,   /* the cross-rank timeline (it also takes TIMELINE keys) */
    SCOPE_MEMORY   = 1 << 5,   /* the Memory view (it also takes TIMELINE and TABLE keys) */
    SCOPE_COLL     = 1 << 6,   /* the Collectives view (it also takes TABLE keys) */
    SCOPE_CALLTREE = 1 << 7,   /* the Call tree view (it also takes TABLE keys) */
};

#define REQ_INFO(_) \
    _(QUIT,          GLOBAL,   'q', 0, 0,                 "Quit at once, even while loading") \
    _(HELP,          GLOBAL,   '?', KEY_F(1), 0,          "Show this help") \
    _(CLOSE,         GLOBAL,   UI_ESC, 0, 0,              "Close the innermost pane, prompt, list or selection") \
    _(NEXT_VIEW,     GLOBAL,   '\t', 0, 0,                "Next view") \
    _(PREV_VIEW,     GLOBAL,   KEY_BTAB, 0, 0,            "Previous view") \
    _(VIEW_OVERVIEW, GLOBAL, '1', 0, 0, NULL) \
    _(VIEW_TIMELINE, GLOBAL, '2', 0, 0, NULL) \
    _(VIEW_KERNELS, GLOBAL, '3', 0, 0, NULL) \
    _(VIEW_OPS, GLOBAL, '4', 0, 0, NULL) \
    _(VIEW_PHASES, GLOBAL, '5', 0, 0, NULL) \
    _(VIEW_RANKS, GLOBAL, '6', 0, 0, NULL) \
    _(VIEW_COMM, GLOBAL, '7', 0, 0, NULL) \
    _(VIEW_XRANK, GLOBAL, '8', 0, 0, NULL) \
    _(VIEW_MEMORY, GLOBAL, 'M', 0, 0, NULL) \
    _(VIEW_COLLECTIVES, GLOBAL, 'W', 0, 0, NULL) \
    _(VIEW_COMPARE, GLOBAL, '9', 0, 0, NULL) \
    _(VIEW_QUERY, GLOBAL, ':', 0, 0, NULL) \
    _(VIEW_CALLTREE, GLOBAL, 'H', 0, 0, NULL) \
    _(VIEW_GAPS, GLOBAL, 'G', 0, 0, NULL) \
    _(NEXT_CAPTURE,  GLOBAL,   '}', 0, 0,                 "Next capture (tab group) when several are open") \
    _(PREV_CAPTURE,  GLOBAL,   '{', 0, 0,                 "Previous capture (tab group)") \
    _(NEXT_RANK,     GLOBAL,   'r', 0, 0,                 "Next rank") \
    _(PREV_RANK,     GLOBAL,   'R', 0, 0,                 "Previous rank") \
    _(DIAGNOSTICS,   GLOBAL,   '!', 0, 0,                 "List every diagnostic, whole (wrapped; j/k PgUp/PgDn scroll)") \
    _(REDRAW,        GLOBAL,   UI_CTRL('l'), 0, 0,        "Redraw the screen") \
    _(MOVE_UP,       GLOBAL,   KEY_UP, 'k', 0,            "Move up (previous lane or row)") \
    _(MOVE_DOWN,     GLOBAL,   KEY_DOWN, 'j', 0,          "Move down (next lane or row)") \
    _(MOVE_LEFT,     GLOBAL,   KEY_LEFT, 0, 0,            "Move left (pan the timeline, scroll a table)") \
    _(MOVE_RIGHT,    GLOBAL,   KEY_RIGHT, 0, 0,           "Move right (pan the timeline, scroll a table)") \
    _(PAGE_UP,       GLOBAL,   KEY_PPAGE, 0, 0,           "Page up") \
    _(PAGE_DOWN,     GLOBAL,   KEY_NPAGE, 0, 0,           "Page down") \
    _(HOME,          GLOBAL,   KEY_HOME, '^', 0,                  "First row (timeline: start of the capture)") \
    _(END,           GLOBAL,   KEY_END, '$', 0,                   "Last row (timeline: end of the capture)") \
    _(ENTER,         GLOBAL,   '\n', '\r', KEY_ENTER,     "Open: detail pane, instances, or jump to the timeline") \
    _(ZOOM_IN,       TIMELINE, 'w', '+', '=',             "Zoom in around the cursor") \
    _(ZOOM_OUT,      TIMELINE, 's', '-', 0,               "Zoom out around the cursor") \
    _(PAN_LEFT,      TIMELINE, 'a', 0, 0,                 "Pan left") \
    _(PAN_RIGHT,     TIMELINE, 'd', 0, 0,                 "Pan right") \
    _(PREV_SLICE,    TIMELINE, 'h', 0, 0,                 "Previous slice on the lane") \
    _(NEXT_SLICE,    TIMELINE, 'l', 0, 0,                 "Next slice on the lane") \
    _(FOLD,          TIMELINE, ' ', 0, 0,                 "Fold or unfold the process group under the cursor") \
    _(FOLD_OTHERS,   TIMELINE, 'O', 0, 0,                 "Fold every other process group (unfold all if none is left)") \
    _(DEPTH,         TIMELINE, 'x', 0, 0,                 "Show nesting depth rows, or depth 0 only") \
    _(STACK_LESS,    TIMELINE, '(', 0, 0,                 "Fold host stacks (Python, CANN) one depth row more") \
    _(STACK_MORE,    TIMELINE, ')', 0, 0,                 "Show one more depth row of host stacks") \
    _(ZOOM_SLICE,    TIMELINE, 'z', 0, 0,                 "Zoom to the selected slice (or range)") \
    _(FIT,           TIMELINE, '0', 0, 0,                 "Fit the whole capture") \
    _(GOTO_TIME,     TIMELINE, 'g', 0, 0,                 "Go to a time typed with units, e.g. 12.5ms") \
    _(SEARCH,        TIMELINE, '/', 0, 0,                 "Search slice names (regular expression)") \
    _(SEARCH_NEXT,   TIMELINE, 'n', 0, 0,                 "Next match in time order") \
    _(SEARCH_PREV,   TIMELINE, 'N', 0, 0,                 "Previous match in time order") \
    _(MARK,          TIMELINE, 'b', 0, 0,                 "Mark the selected slice (or the cursor time); again removes the mark") \
    _(MARK_NEXT,     TIMELINE, '\'', 0, 0,                "Next mark in time order (wraps)") \
    _(MARK_PREV,     TIMELINE, '"', 0, 0,                 "Previous mark in time order (wraps)") \
    _(TIME_MODE,     TIMELINE, 'm', 0, 0,                 "Toggle relative / absolute times") \
    _(RANGE,         TIMELINE, 'v', 0, 0,                 "Mark range start, then end: per-name totals") \
    _(RANGE_EXPORT,  TIMELINE, 'E', 0, 0,                 "Export the range (v ... v) of this rank as a Chrome trace JSON for Perfetto") \
    _(FOLLOW,        TIMELINE, 'f', 0, 0,                 "Follow the flow forward (host op to its kernels)") \
    _(FOLLOW_BACK,   TIMELINE, 'F', 0, 0,                 "Follow the flow back (kernel to launching op)") \
    _(FLOW_NEXT,     TIMELINE, ']', 0, 0,                 "Next flow touching the selected slice") \
    _(FLOW_PREV,     TIMELINE, '[', 0, 0,                 "Previous flow touching the selected slice") \
    _(JUMP_BACK,     TIMELINE, UI_CTRL('o'), KEY_BACKSPACE, 0, "Back through the jump history") \
    _(JUMP_FORWARD,  TIMELINE, UI_CTRL(']'), 0, 0,        "Forward through the jump history (Ctrl-I is Tab)") \
    _(DETAIL_UP,     TIMELINE, 'K', 0, 0,                 "Scroll the detail pane up") \
    _(DETAIL_DOWN,   TIMELINE, 'J', 0, 0,                 "Scroll the detail pane down") \
    _(MOUSE,         TIMELINE, KEY_MOUSE, 0, 0,           "Click selects, wheel zooms, drag selects a range") \
    _(SORT_PREV,     TABLE,    '<', 0, 0,                 "Sort by the previous column") \
    _(SORT_NEXT,     TABLE,    '>', KEY_F(6), 0,          "Sort by the next column") \
    _(SORT_REVERSE,  TABLE,    'I', 0, 0,                 "Reverse the sort order") \
    _(TABLE_SEARCH,  TABLE,    '/', 0, 0,                 "Search rows (regular expression): the cursor goes to the next match, i/n shown") \
    _(TABLE_SEARCH_NEXT, TABLE, 'n', 0, 0,                "Next matching row") \
    _(TABLE_SEARCH_PREV, TABLE, 'N', 0, 0,                "Previous matching row") \
    _(FILTER,        TABLE,    '&', 0, 0,                 "Filter: keep only the rows matching a regular expression") \
    _(EXPORT,        TABLE,    'e', 0, 0,                 "Export the visible rows as CSV (asks for the file name)") \
    _(TABLE_MODE,    TABLE,    't', 0, 0,                 "Switch the table: kernels by name/type/core, ops/APIs/step trace, comm ops/matrix, comparison sections") \
    _(COLUMNS,       TABLE,    'C', 0, 0,                 "Choose the columns to show or hide") \
    _(COLUMN_TOGGLE, TABLE,    ' ', 0, 0,                 "In the column chooser: show or hide the column") \
    _(EXACT,         TABLE,    'm', 0, 0,                 "Toggle exact µs with absolute starts / times in the unit that fits") \
    _(BACK,          TABLE,    KEY_BACKSPACE, 0, 0,       "Back from instances or a detail table to the table above") \
    _(CANONICAL,     PHASES,   'c', 0, 0,                 "Canonical decode step (median, p90, what grew)") \
    _(ALIGN,         XRANK,    'A', 0, 0,                 "Align ranks on collective ends / raw timestamps") \
    _(LANE_CHOICE,   XRANK,    'L', 0, 0,                 "Lane to compare: main compute stream, communication, Computing, by name") \
    _(MEM_PEAK,      MEMORY,   'p', 0, 0,                 "Cursor to the memory peak (the Timeline follows), its live operators below") \
    _(TRANSPORT,     COLL,     'T', 0, 0,                 "Link matrix: the next transport (HCCS, RDMA, SDMA, PCIE, SIO, ...)") \
    _(FLAME,         CALLTREE, 'f', 0, 0,                 "The tree as a table or as a flame (icicle) drawing: arrows move between blocks") \
    _(FLAME_FIGURE,  CALLTREE, 'i', 0, 0,                 "Flame block widths by device time launched or by idle charged")

enum request {
    REQ_NONE = 0,
#define REQ_ENUM_(id, scope, k1, k2, k3, help) REQ_##id,
    REQ_INFO(REQ_ENUM_)
#undef REQ_ENUM_
    REQ_COUNT
};

struct req_info {
    enum request req;
    const char *name;       /* "ZOOM_IN" */
    unsigned scope;         /* one SCOPE_* bit */
    int keys[3];            /* 0: unused */
    const char *help;
};

/* The table, REQ_COUNT-1 entries in declaration order. */
extern const struct req_info req_table[];
extern const size_t req_table_len;

/* Request bound to key for a view accepting `scopes` (GLOBAL is always included). */
enum request req_for_key(int key, unsigned scopes);
/* "Ctrl-O", "PgUp", "Space", "q": a key's printable name into buf. */
const char *key_label(int key, char *buf, size_t size);
/* "w + =": every key of a request joined by spaces, for help lines. */
const char *req_keys_label(const struct req_info *r, char *buf, size_t size);
/* The scope's title: "Everywhere", the view that owns it, or the table views listed. */
const char *scope_name(unsigned scope);
/* The scopes the key table uses, GLOBAL first, into order[max]; returns how many. */
size_t scope_order(unsigned *order, size_t max);
/* A request's help line: the row's own, or (NULL there) the help of the view it opens. */
const char *req_help(const struct req_info *r);
struct view_ops;
/* The key that opens a view (its row's first key), "" when no row opens it. */
const char *view_open_key(const struct view_ops *ops, char *buf, size_t size);

#endif
