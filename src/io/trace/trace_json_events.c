/* One scanned trace event into the model: metadata, counters, flow points, complete and
 * B/E slices (with the open-B stacks per lane). */
#include "io/trace/trace_json.h"
#include "util/grow.h"
#include "io/trace/trace_json_internal.h"

#include "model/index/counter_unit.h"
#include "model/index/timeparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- events -------------------------------------------------------------------------------- */

/* pid / tid: a number's text as written, a string's content, "" when absent. */
static bool key_text(struct rd *r, const char *e, uint64_t off, const struct span *sp, int k,
                     const char **s, size_t *n)
{
    if (!sp->type) {
        *s = "";
        *n = 0;
        return true;
    }
    if (sp->type == 'n') {
        *s = e + sp->a;
        *n = sp->b - sp->a;
        return true;
    }
    if (sp->type == 's')
        return tj_field_text(r, e, off, sp, k, s, n);
    return false;
}

static bool num_field(struct rd *r, const char *e, uint64_t off, const struct span *sp, int k, ns_t *v)
{
    const char *s;
    size_t n;
    if (sp->type == 'n')
        return trace_json_parse_us(e + sp->a, sp->b - sp->a, v) == 0;
    if (sp->type == 's' && tj_field_text(r, e, off, sp, k, &s, &n))
        return trace_json_parse_us(s, n, v) == 0;
    return false;
}

/* A cheap hash of a short string: its length and first and last 8 bytes (the caches that use
 * it compare the whole string on a hit). */
static uint64_t quick_hash(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    /* fixed-size loads only (first and last bytes, overlapping): a copy of n bytes into a
     * word stalled the load that followed it */
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = (uint64_t)x << 32 | y;
    } else if (n) {
        a = (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1];
    }
    uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (uint64_t)n;
    return h ^ (h >> 29);
}

/* a[0..n) == b[0..n) for the caches below: short names and ids are compared with fixed-size
 * loads (first and last bytes, overlapping, as in quick_hash) instead of a call to memcmp. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
    /* the first and the last words of both, overlapping when n is under two words */
#define ENDS_EQUAL(word) do { word a0, a1, b0, b1; \
        memcpy(&a0, a, sizeof a0); memcpy(&b0, b, sizeof b0); \
        memcpy(&a1, a + n - sizeof a1, sizeof a1); memcpy(&b1, b + n - sizeof b1, sizeof b1); \
        return !((a0 ^ b0) | (a1 ^ b1)); \
    } while (0)
    if (n > 16)
        return !memcmp(a, b, n);
    if (n >= 8)
        ENDS_EQUAL(uint64_t);
    if (n >= 4)
        ENDS_EQUAL(uint32_t);
#undef ENDS_EQUAL
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Interns through a direct-mapped cache: names repeat (kernels, ops), hashing them fully
 * for every event was a visible cost. */
static uint32_t intern_fast(struct rd *r, const char *s, size_t n)
{
    struct name_slot *c = &r->names[quick_hash(s, n) & (NAME_CACHE - 1)];
    if (c->s && c->len == n && same_bytes(c->s, s, n))
        return c->id;
    uint32_t id = strtab_intern(r->m->str, s, n);
    if (id == UINT32_MAX) {
        r->m->oom = true;
        return 0;
    }
    c->s = strtab_get(r->m->str, id);
    c->len = (uint32_t)n;
    c->id = id;
    return id;
}

static uint32_t lane_for(struct rd *r, const char *pid, size_t pl, const char *tid, size_t tl)
{
    /* never 0: a slot never filled (all zeros) must not pass for the empty pid and tid */
    uint64_t h = (quick_hash(pid, pl) * 31 + quick_hash(tid, tl)) | 1;
    struct lane_slot *c = &r->cache[(h ^ h >> 29) & (LANE_CACHE - 1)];
    if (c->hash == h && c->plen == pl && c->tlen == tl && pl + tl <= sizeof c->key &&
        same_bytes(c->key, pid, pl) && same_bytes(c->key + pl, tid, tl))
        return c->lane;
    uint32_t lane = model_lane(r->m, pid, pl, tid, tl);
    if (pl + tl <= sizeof c->key) {
        c->hash = h;
        c->plen = (uint16_t)pl;
        c->tlen = (uint16_t)tl;
        memcpy(c->key, pid, pl);
        memcpy(c->key + pl, tid, tl);
        c->lane = lane;
    }
    return lane;
}

static cJSON *parse_args(const char *e, const struct span *sp)
{
    if (sp->type != 'o')
        return NULL;
    const char *end = NULL;
    return cJSON_ParseWithLengthOpts(e + sp->a, sp->b - sp->a, &end, 0);
}

static int64_t d2i(double v)
{
    if (!(v == v))
        return INT64_MAX;
    if (v >= 9.2e18)
        return INT64_MAX;
    if (v <= -9.2e18)
        return INT64_MIN;
    return (int64_t)v;
}

static void handle_meta(struct rd *r, const char *e, uint64_t off, const struct ev *ev,
                        const char *pid, size_t pl, const char *tid, size_t tl)
{
    const char *name;
    size_t nl;
    if (ev->f[F_NAME].type != 's' || !tj_field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl))
        return;
    cJSON *args = parse_args(e, &ev->f[F_ARGS]);
    if (!args) {
        tj_warn_event(r, off, "metadata event %s without a readable args object", "");
        return;
    }
    cJSON *v;
    struct model *m = r->m;
    if (nl == 12 && !memcmp(name, "process_name", 12)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "name")))
            model_set_process_name(m, model_proc(m, pid, pl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 14 && !memcmp(name, "process_labels", 14)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "labels")))
            model_set_process_labels(m, model_proc(m, pid, pl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 18 && !memcmp(name, "process_sort_index", 18)) {
        if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(args, "sort_index")))
            model_set_process_sort(m, model_proc(m, pid, pl), d2i(v->valuedouble));
    } else if (nl == 11 && !memcmp(name, "thread_name", 11)) {
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(args, "name")))
            model_set_thread_name(m, lane_for(r, pid, pl, tid, tl), v->valuestring, strlen(v->valuestring));
    } else if (nl == 17 && !memcmp(name, "thread_sort_index", 17)) {
        if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(args, "sort_index")))
            model_set_thread_sort(m, lane_for(r, pid, pl, tid, tl), d2i(v->valuedouble));
    }
    cJSON_Delete(args);
}

static void handle_counter(struct rd *r, const char *e, uint64_t off, const struct ev *ev,
                           const char *pid, size_t pl, ns_t ts)
{
    const char *name = "", *pn;
    size_t nl = 0, pnl;
    if (ev->f[F_NAME].type == 's' && !tj_field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl))
        return;
    uint32_t proc = model_proc(r->m, pid, pl);
    if (ev->f[F_PNAME].type == 's' && tj_field_text(r, e, off, &ev->f[F_PNAME], F_PNAME, &pn, &pnl))
        model_set_process_name_weak(r->m, proc, pn, pnl);
    cJSON *args = parse_args(e, &ev->f[F_ARGS]), *it;
    if (!args) {
        tj_warn_event(r, off, "counter event without a readable args object%s", "");
        return;
    }
    int nnum = 0;
    cJSON_ArrayForEach(it, args)
        nnum += cJSON_IsNumber(it) && it->string;
    char series[512], unit[64];
    cJSON_ArrayForEach(it, args) {
        if (!cJSON_IsNumber(it) || !it->string)
            continue;
        /* the key names the unit ({"KB": ...}, {"Read(MB/s)": ...}); the series keeps its name */
        counter_unit_of(it->string, strlen(it->string), unit, sizeof unit);
        if (nnum == 1) {
            model_add_counter(r->m, proc, name, nl, unit, ts, it->valuedouble);
        } else {
            int k = snprintf(series, sizeof series, "%.*s/%s", (int)(nl > 255 ? 255 : nl), name, it->string);
            model_add_counter(r->m, proc, series, k < 0 ? 0 : (size_t)k >= sizeof series ? sizeof series - 1 : (size_t)k,
                              unit, ts, it->valuedouble);
        }
    }
    cJSON_Delete(args);
}

/* A flow id: a canonical unsigned decimal (number or string) is kept as a number, anything
 * else as interned text, so "123" and 123 pair like they do in the file's producer. */
static bool flow_id(struct rd *r, const char *e, uint64_t off, const struct span *sp, uint64_t *id, bool *is_str)
{
    const char *s;
    size_t n;
    if (sp->type == 'n') {
        s = e + sp->a;
        n = sp->b - sp->a;
    } else if (sp->type != 's' || !tj_field_text(r, e, off, sp, F_ID, &s, &n)) {
        return false;
    }
    bool canon = n >= 1 && n <= 20 && (n == 1 || s[0] != '0');
    uint64_t v = 0;
    /* 19 digits always fit in 64 bits: only a 20th is checked for overflow */
    for (size_t i = 0; canon && i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || (i == 19 && v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10))
            canon = false;
        else
            v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (canon) {
        *id = v;
        *is_str = false;
    } else {
        *id = intern_fast(r, s, n);
        *is_str = true;
    }
    return true;
}

/* name == cat followed by the decimal text of id (no leading zeros) */
static bool name_is_cat_id(const char *name, size_t nl, const char *cat, size_t cl, uint64_t id)
{
    if (nl <= cl || nl - cl > 20 || memcmp(name, cat, cl) || (name[cl] == '0' && nl - cl > 1))
        return false;
    uint64_t v = 0;
    for (size_t i = cl; i < nl; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    return v == id;
}

/* b - a, 0 when negative, saturated (hostile times must not overflow) */
ns_t tj_span_ns(ns_t a, ns_t b)
{
    if (b <= a)
        return 0;
    uint64_t d = (uint64_t)b - (uint64_t)a;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (ns_t)d;
}

struct be_stack *tj_be_of(struct rd *r, uint32_t lane)
{
    if (lane >= r->nbe) {
        uint32_t n = lane + 16;
        struct be_stack *nb = grow_exact(r->be, n, sizeof *nb);
        if (!nb)
            return NULL;
        memset(nb + r->nbe, 0, (n - r->nbe) * sizeof *nb);
        r->be = nb;
        r->nbe = n;
    }
    return &r->be[lane];
}

bool tj_be_push(struct be_stack *st, struct be_entry e)
{
    if (!st)
        return false;
    if (st->n == st->cap) {
        size_t cap = st->cap;
        struct be_entry *ne = grow_array(st->e, &cap, (size_t)st->n + 1, sizeof *ne);
        if (!ne || cap > UINT32_MAX)
            return false;
        st->e = ne;
        st->cap = (uint32_t)cap;
    }
    st->e[st->n++] = e;
    return true;
}

/* A B event: pushed on its lane's stack of open B events. */
static void begin_event(struct rd *r, uint32_t lane, ns_t ts, const char *name, size_t nl, const char *cat,
                        size_t cl, uint64_t off, uint32_t alen)
{
    struct be_stack *st = tj_be_of(r, lane);
    if (st && st->n + 1 > r->be_max)
        r->be_max = st->n + 1;
    if (!st || st->n >= MAX_BE_DEPTH) {
        tj_warn_event(r, off, "B event skipped: %s", "too many open B events on its thread");
        return;
    }
    tj_be_push(st, (struct be_entry){ ts, intern_fast(r, name, nl), intern_fast(r, cat, cl), off, alen });
}

/* An E event: the slice of the innermost open B of its lane. */
static void end_event(struct rd *r, uint32_t lane, ns_t ts, uint64_t off)
{
    struct model *m = r->m;
    struct be_stack *st = tj_be_of(r, lane);
    if ((!st || !st->n) && r->second) {
        /* its B may be open in the first part: a slice in its place, settled at the merge */
        uint32_t at = model_add_slice_ids(m, lane, ts, 0, 0, 0, r->file, off, 0);
        tj_note_add(r, (struct note){ .kind = N_ORPHAN_E, .lane = lane, .slice = at, .ts = ts, .at = off }, NULL);
        return;
    }
    if (!st || !st->n) {
        tj_warn_event(r, off, "E event without a matching B on its thread%s", "");
        return;
    }
    struct be_entry b = st->e[--st->n];
    model_add_slice_ids(m, lane, b.ts, tj_span_ns(b.ts, ts), b.name, b.cat, r->file, b.off, b.len);
}

/* A flow event (s, t, f): a flow point, bound to its slice at finalize. */
static void flow_event(struct rd *r, const char *e, uint64_t off, const struct ev *ev, uint32_t lane, char ph,
                       ns_t ts, const char *name, size_t nl, const char *cat, size_t cl)
{
    uint64_t id;
    bool is_str;
    if (!flow_id(r, e, off, &ev->f[F_ID], &id, &is_str)) {
        tj_warn_event(r, off, "flow event skipped: %s", "no usable id");
        return;
    }
    const char *bp = "";
    size_t bl = 0;
    if (ev->f[F_BP].type == 's')
        tj_field_text(r, e, off, &ev->f[F_BP], F_BP, &bp, &bl);
    /* "HostToDevice936" with cat "HostToDevice" and id 936 is stored as the category
     * alone: unique per flow, such names would fill the string table */
    uint32_t cid = intern_fast(r, cat, cl), nid;
    if (!is_str && name_is_cat_id(name, nl, cat, cl, id))
        nid = cid;
    else
        nid = intern_fast(r, name, nl);
    model_add_flow_point_ids(r->m, lane, (enum flow_ph)ph, ts, cid, nid, id, is_str, bl == 1 && bp[0] == 'e');
}

void tj_handle_event(struct rd *r, const char *e, uint32_t elen, uint64_t off, const struct ev *ev)
{
    struct model *m = r->m;
    const char *s, *pid, *tid, *name = "", *cat = "";
    size_t n, pl, tl, nl = 0, cl = 0;
    char ph = '?';
    r->nevents++;
    if (!ev->f[F_PH].type && !ev->f[F_TS].type) {
        /* a plain object (another tool's list beside the traces): not an event of any phase */
        tj_warn_event(r, off, "array item skipped: %s", "not a trace event (no ph, no ts)");
        return;
    }
    if (ev->f[F_PH].type == 's' && tj_field_text(r, e, off, &ev->f[F_PH], F_PH, &s, &n) && n == 1)
        ph = s[0];
    model_count_event(m, ph);
    switch (ph) {
    case 'X': case 'B': case 'E': case 'M': case 's': case 't': case 'f': case 'C':
        break;
    case 'i': case 'I':
        /* Kineto's host instants ([memory] and the like) are kept as zero-length slices */
        if (ev->f[F_CAT].type == 's' && tj_field_text(r, e, off, &ev->f[F_CAT], F_CAT, &s, &n) &&
            kineto_is_instant_slice(s, n))
            break;
        return;   /* counted as an instant (events_by_ph), not kept: nothing to draw it on */
    default:
        m->unknown_ph++;
        return;
    }
    if (!key_text(r, e, off, &ev->f[F_PID], F_PID, &pid, &pl) || !key_text(r, e, off, &ev->f[F_TID], F_TID, &tid, &tl)) {
        tj_warn_event(r, off, "event skipped: %s is neither a number nor a string", "pid or tid");
        return;
    }
    if (ph == 'M') {
        handle_meta(r, e, off, ev, pid, pl, tid, tl);
        return;
    }
    ns_t ts = 0, dur = 0;
    if (!num_field(r, e, off, &ev->f[F_TS], F_TS, &ts)) {
        tj_warn_event(r, off, "event skipped: %s", ev->f[F_TS].type ? "ts is not a number" : "no ts");
        return;
    }
    if (ev->f[F_DUR].type && !num_field(r, e, off, &ev->f[F_DUR], F_DUR, &dur)) {
        tj_warn_event(r, off, "event skipped: %s", "dur is not a number");
        return;
    }
    if (dur < 0) {
        tj_warn_event(r, off, "negative dur set to 0%s", "");
        dur = 0;
    }
    if (ts > r->last_ts)
        r->last_ts = ts;
    if (dur > 0 && ts <= INT64_MAX - dur && ts + dur > r->last_ts)
        r->last_ts = ts + dur;
    if (ph == 'C') {
        handle_counter(r, e, off, ev, pid, pl, ts);
        return;
    }
    if ((ev->f[F_NAME].type == 's' && !tj_field_text(r, e, off, &ev->f[F_NAME], F_NAME, &name, &nl)) ||
        (ev->f[F_CAT].type == 's' && !tj_field_text(r, e, off, &ev->f[F_CAT], F_CAT, &cat, &cl))) {
        tj_warn_event(r, off, "event skipped: %s", "bad escape in name or cat");
        return;
    }
    uint32_t lane;
    if ((cl == 19 || cl == 9) && kineto_is_gpu_annotation(cat, cl) && pl < 64) {
        /* GPU-side annotations span the kernels of their stream, and its synchronizations
         * (cuda_sync: Event Sync, Stream Wait Event) wait: lanes of their own, so that they
         * are neither kernels nor device busy time */
        char key[64 + sizeof KINETO_ANNOT_PREFIX];
        memcpy(key, KINETO_ANNOT_PREFIX, sizeof KINETO_ANNOT_PREFIX - 1);
        memcpy(key + sizeof KINETO_ANNOT_PREFIX - 1, pid, pl);
        lane = model_lane(m, key, sizeof KINETO_ANNOT_PREFIX - 1 + pl, tid, tl);
    } else {
        lane = lane_for(r, pid, pl, tid, tl);
    }
    uint32_t alen = ev->f[F_ARGS].type == 'o' ? elen : 0;
    switch (ph) {
    case 'i': case 'I':
        model_add_slice_ids(m, lane, ts, 0, intern_fast(r, name, nl), intern_fast(r, cat, cl), r->file, off, alen);
        break;
    case 'X': {
        uint32_t at = model_add_slice_ids(m, lane, ts, dur, intern_fast(r, name, nl), intern_fast(r, cat, cl),
                                          r->file, off, alen);
        enum kineto_launch_side side;
        uint64_t corr;
        if (alen && (side = kineto_launch_side(cat, cl)) != KINETO_NO_LAUNCH &&
            kineto_args_correlation(e + ev->f[F_ARGS].a, ev->f[F_ARGS].b - ev->f[F_ARGS].a, &corr))
            model_add_correlation(m, at, corr, side == KINETO_LAUNCH);
        break;
    }
    case 'B':
        begin_event(r, lane, ts, name, nl, cat, cl, off, alen);
        break;
    case 'E':
        end_event(r, lane, ts, off);
        break;
    default:
        flow_event(r, e, off, ev, lane, ph, ts, name, nl, cat, cl);
        break;
    }
}
