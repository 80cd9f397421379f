/* Private to the trace reader's files: trace_json.c (the reading loop and the load),
 * trace_json_scan.c (the JSON scanner, exact decimals, string decoding), trace_json_events.c
 * (one event into the model) and trace_json_split.c (parts read at once). Nothing else
 * includes this header. */
#ifndef APTOP_TRACE_JSON_INTERNAL_H
#define APTOP_TRACE_JSON_INTERNAL_H

#include "io/trace/trace_json.h"
#include "io/files/gz_stream.h"
#include "io/trace/kineto.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_EVENT (64u << 20)   /* one event larger than this stops the file (bounded memory) */
#define MAX_WARN 20             /* per-event warnings per file before only counting */
#define MAX_BE_DEPTH 4096       /* open B events per lane */
#define LANE_CACHE 256
/* How far ahead of the scan the bytes are asked for (prefetched): the hardware's own
 * prefetch stops at each 4 KiB page, and the file's bytes come from memory, not cache.
 * Measured on the 1 GiB trace: about a tenth less wall time (1024 per event, 512 in args). */
#define PREFETCH_EVENTS 1024
#define PREFETCH_NESTED 512

#define NO_SPLIT UINT64_MAX
#define SPLIT_WINDOW (1u << 20)   /* bytes searched at a time for an event boundary (the first
                                   * window is 1/16 of it: a boundary is usually near) */
#define SPLIT_SEARCH (16u << 20)  /* give up splitting when none is found this far */

enum field { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_PNAME, F_ARGS, NF };

struct span {
    uint32_t a, b;    /* value bytes relative to the event start (strings: without quotes) */
    char type;        /* 0 absent, 's' string, 'n' number, 'l' literal, 'o' object, 'a' array */
    uint8_t flags;    /* strings: STR_ESC, STR_HIGH */
};

/* The bytes from a key's opening quote to its value (the key, its quotes, ':' and blanks, at
 * most eight) as they came after one field the last time, with the key's field: events of
 * one kind repeat their keys in order. (Values guessed the same way, ph, pid, tid or cat,
 * made the read slower: they change from event to event more often than keys do.) */
struct key_guess { uint64_t word, mask; uint8_t len; int8_t field; };
#define GUESS_KINDS 11   /* 0: ph not read yet; then by ph (X, s, f, t, other), and whether ph
                          * came first (flows of other producers put name first) */

struct ev {
    struct span f[NF];
    size_t err_at;
    const char *err;
    struct key_guess guess[GUESS_KINDS][NF + 1];   /* by the event's kind so far (guess_kind)
                                                    * and the field before ([NF]: none) */
};

struct be_entry { ns_t ts; uint32_t name, cat; uint64_t off; uint32_t len; };
struct be_stack { struct be_entry *e; uint32_t n, cap; };

struct lane_slot { uint64_t hash; uint32_t lane; uint16_t plen, tlen; char key[48]; };
struct name_slot { const char *s; uint32_t len, id; };
#define NAME_CACHE 4096

/* A message of the second part, kept until the parts are merged: its place among the first
 * part's messages, the per-file warning limit and the event counts depend on what came before. */
enum note_kind { N_MSG, N_WARN, N_UTF8, N_COUNT, N_ORPHAN_E, N_OOM };
enum cnt { CNT_KEPT, CNT_COMPLETE, CNT_READ };
struct note {
    uint8_t kind, level, cnt;
    uint32_t lane, slice;   /* N_ORPHAN_E: lane and placeholder slice in the second part's model */
    ns_t ts;                /* N_ORPHAN_E: time of the E */
    uint64_t at, count;     /* N_COUNT: position and events of the part before it; N_ORPHAN_E: position */
    char *text;
};

enum state { S_START, S_ITEM, S_NEXT, S_OBJ_KEY, S_OBJ_COLON, S_OBJ_VALUE, S_OBJ_NEXT, S_DONE };
struct split;
struct mapped_file;

struct rd {
    struct model *m;
    struct diag *d;
    const char *path;
    uint32_t file;
    struct load_progress *p;
    int fd;                       /* -1: reading from memory */
    struct gz_stream *gz;         /* gzip input: bytes come decompressed from its thread */
    /* The whole input in memory (the file mapped, or a caller's buffer): buf is a window
     * into it, widened as the scan needs, and nothing is copied. */
    const char *view;
    const struct mapped_file *map;   /* view is this mapping: the pages read are let go */
    uint64_t view_released;       /* map pages before this offset were let go */
    char *buf;                    /* owned unless view */
    size_t cap, len, pos;         /* buf holds file bytes [base, base + len) */
    uint64_t base, size;
    bool eof, cancelled;
    uint64_t nevents;
    unsigned warns;
    uint64_t warns_dropped;
    bool utf8_warned;
    char *scratch[NF];            /* decoded strings, one buffer per field */
    size_t scratch_cap[NF];
    struct lane_slot cache[LANE_CACHE];
    struct name_slot names[NAME_CACHE];
    struct be_stack *be;
    uint32_t nbe;
    ns_t last_ts;
    /* where the reading loop is (kept so that a stopped first part can read on) */
    enum state st;
    bool started, closed, first_item, events_key, saw_events, broke;
    /* parts (struct part): each reads no further than the event ending at stop_at (copied
     * from its part under the split's lock); every part but the first (second) keeps its
     * messages in notes and records E events without a B */
    uint64_t start_off, stop_at;
    bool reached, second;
    int part;
    struct split *sp;
    struct note *notes;
    size_t nnotes, notes_cap;
    unsigned note_warns;
    uint32_t be_max;              /* deepest B stack met (second part) */
    uint64_t gz_hint;             /* gzip input: decompressed size from its trailer, 0 unknown */
    enum kineto_key top_key;      /* the object form's key whose value comes next */
    struct kineto_meta kt;        /* Kineto top-level values met */
};

static const unsigned char ws_tab[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };

static inline size_t skip_ws(const char *p, size_t i, size_t n)
{
    if (i < n && (unsigned char)p[i] > ' ')
        return i;
    while (i < n && ws_tab[(unsigned char)p[i]])
        i++;
    return i;
}

enum { STR_ESC = 1, STR_HIGH = 2 };

/* One part of a split trace: the bytes from start to the end of the event ending at stop,
 * read by one reader into a model of its own. A reader done first takes over the second
 * half of another part's rest: that part's stop moves closer and a new part follows it. */
#define MAX_PARTS 16
struct part {
    struct rd *r;                 /* part 0: the caller's reader; r->m is the part's model */
    uint64_t start;               /* its first event's first byte */
    uint64_t stop;                /* under lock: the end of its last event; NO_SPLIT: to the end */
    uint64_t claimed;             /* under lock: its reader holds the bytes up to here */
    int next;                     /* under lock: the part after it in the file, -1 none */
    bool done;                    /* under lock: its reader is done */
    _Atomic bool abort;           /* a part before it read on alone: this one is void */
};

struct split {
    pthread_t thread;
    pthread_mutex_t lock;
    struct part part[MAX_PARTS];
    int nparts;                   /* under lock */
    bool failed;                  /* under lock: a part read on past its stop (a wrong guess) */
    bool object;                  /* the object form: the parts start inside its events array */
    uint64_t end;                 /* the first cut: part 0 ended there */
    _Atomic bool abort;           /* the load is over: every part but the first stops */
    _Atomic bool finished;        /* the thread is done reading */
    _Atomic bool merged;          /* the merge is over: the thread stops preparing for it */
    struct model_room room1;      /* part 0's room, where the other parts are appended */
    ns_t time_base;
    _Atomic uint64_t done[MAX_PARTS], events[MAX_PARTS];
};

/* trace_json.c */
extern size_t tj_chunk_size;
extern uint64_t tj_split_threshold;
extern uint64_t tj_split_from;
extern _Thread_local int tj_last_split;
extern _Thread_local int tj_last_parts;
extern uint64_t tj_share_min;
extern _Thread_local uint64_t tj_last_split_at;
void tj_note_add(struct rd *r, struct note n, const char *text);
/* A mapped input's pages before the scan's window leave resident memory (they stay in the
 * page cache) once at least at_least bytes of them are still resident. */
void tj_release_read(struct rd *r, uint64_t at_least);
__attribute__((format(printf, 3, 4)))
void tj_say(struct rd *r, enum diag_level level, const char *fmt, ...);
/* The same for what memory running out left unread (diag_out_of_memory: report's status says it). */
void tj_out_of_memory(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tj_emit_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c,
                   uint64_t n);
void tj_say_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c);
void tj_warn_text(struct rd *r, const char *text);
void tj_warn_event(struct rd *r, uint64_t at, const char *fmt, const char *what);
void tj_report(struct rd *r);
int tj_fill(struct rd *r);
void tj_run(struct rd *r);
void tj_free_rd(struct rd *r);

/* trace_json_scan.c */
size_t tj_scan_string(const char *p, size_t i, size_t n, unsigned *flags);
size_t tj_skip_nested(const char *p, size_t i, size_t n);
long tj_scan_event(const char *p, size_t n, struct ev *ev);
bool tj_field_text_decoded(struct rd *r, const char *ev, uint64_t ev_off, const struct span *sp, int k,
                           const char **out, size_t *len);

/* The text of string field k (sp in the event at ev): plain ASCII without escapes, the common
 * case, is the file's own bytes, given without a call; else tj_field_text_decoded. */
static inline bool tj_field_text(struct rd *r, const char *ev, uint64_t ev_off, const struct span *sp, int k,
                                 const char **out, size_t *len)
{
    if (!sp->flags) {
        *out = ev + sp->a;
        *len = sp->b - sp->a;
        return true;
    }
    return tj_field_text_decoded(r, ev, ev_off, sp, k, out, len);
}
long tj_scan_value(const char *p, size_t n);

/* trace_json_events.c */
ns_t tj_span_ns(ns_t a, ns_t b);
struct be_stack *tj_be_of(struct rd *r, uint32_t lane);
bool tj_be_push(struct be_stack *st, struct be_entry e);
void tj_handle_event(struct rd *r, const char *e, uint32_t elen, uint64_t off, const struct ev *ev);

/* trace_json_split.c */
void tj_drop_buffer(struct rd *r);
void tj_reserve_for(struct model *m, uint64_t bytes);
struct split *tj_split_begin(struct rd *r);
/* A reader of part r->part takes the bytes [have, have + want): how many it may take. */
uint64_t tj_part_take(struct rd *r, uint64_t have, uint64_t want);
/* The reader of part r->part read past its stop: it reads on alone, the parts after are void. */
void tj_part_fail(struct rd *r);
/* Part 0 reached its stop: the caller's thread reads parts taken over from the other reader
 * while there are, waits for the other reader, and merges every part into r. Returns where
 * the merged reading ended. */
uint64_t tj_split_finish(struct rd *r, struct split *sp);
/* Stops the other reader and frees the split (the caller's r stays); whether a part read on
 * past its stop (a guessed boundary was wrong). */
bool tj_split_end(struct split *sp);

#endif
