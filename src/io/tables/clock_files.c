#include "io/tables/clock_files.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/timeparse.h"

#define CLOCK_MAX_BYTES 65536

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(CLOCK_MAX_BYTES + 1);
    size_t got = buf ? fread(buf, 1, CLOCK_MAX_BYTES, f) : 0;
    fclose(f);
    if (buf)
        buf[got] = 0;
    *n = got;
    return buf;
}

/* An integer held as decimal text or a JSON number, scaled by mult (1000: µs → ns). */
static bool int_field(const cJSON *o, const char *key, int64_t mult, ns_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char buf[64];
    const char *s = NULL;
    if (cJSON_IsString(v))
        s = v->valuestring;
    else if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e15) {
        snprintf(buf, sizeof buf, "%.0f", v->valuedouble);
        s = buf;
    }
    if (!s || !*s)
        return false;
    int64_t ns;
    if (mult == 1000)
        return decimal_us_to_ns(s, strlen(s), &ns) == 0 && (*out = ns, true);
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno || x < 0)
        return false;
    *out = x;
    return true;
}

static cJSON *parse_file(const char *path, struct diag *d)
{
    size_t n;
    char *buf = slurp(path, &n);
    if (!buf)
        return NULL;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(buf, n, &end, 0);
    if (!j)
        diag_add(d, DIAG_WARN, path, "byte %zu: not valid JSON; this clock file is not used",
                 end ? (size_t)(end - buf) : (size_t)0);
    free(buf);
    return j;
}

void clock_map_read(const struct capture_rank *cr, struct clock_map *cm, struct diag *d)
{
    memset(cm, 0, sizeof *cm);
    bool b = false, e = false;
    for (size_t i = 0; i < cr->nfiles; i++) {
        const struct capture_file *f = &cr->files[i];
        const char *base = strrchr(f->path, '/');
        base = base ? base + 1 : f->path;
        bool start = !strncmp(base, "start_info", 10), stop = !strncmp(base, "end_info", 8);
        if (f->kind != FK_CLOCK || f->problem || (!start && !stop) || (start ? b : e))
            continue;
        cJSON *j = parse_file(f->path, d);
        if (!j)
            continue;
        if (start && int_field(j, "collectionTimeBegin", 1000, &cm->wall0)
            && int_field(j, "clockMonotonicRaw", 1, &cm->mono0)) {
            b = true;
            snprintf(cm->source, sizeof cm->source, "%s", base);
        } else if (stop && int_field(j, "collectionTimeEnd", 1000, &cm->wall1)
                   && int_field(j, "clockMonotonicRaw", 1, &cm->mono1)) {
            e = true;
        } else {
            diag_add(d, DIAG_INFO, f->path, "no collection time and monotonic clock in it: not used");
        }
        cJSON_Delete(j);
    }
    cm->have = b && e && cm->wall1 >= cm->wall0 && cm->mono1 >= cm->mono0;
}

static bool in(ns_t a, ns_t b, ns_t lo, ns_t hi)
{
    return a >= lo && b <= hi;
}

ns_t clock_map_offset(const struct clock_map *cm, ns_t t0, ns_t t1)
{
    if (!cm->have || t0 == NS_NONE || t1 == NS_NONE || t1 < t0)
        return 0;
    ns_t margin = cm->mono1 - cm->mono0;
    bool mono = in(t0, t1, cm->mono0 - margin, cm->mono1 + margin);
    bool wall = !(t1 < cm->wall0 - margin || t0 > cm->wall1 + margin);
    return mono && !wall ? cm->wall0 - cm->mono0 : 0;
}

/* Timestamp columns: starts, ends, stops (Task Start Time(us), task_stop(us), Iteration
 * End(us), FP Start(us)), never durations, waits or bounds. */
static bool is_stamp(const char *key)
{
    return (strstr(key, "start") || strstr(key, "end") || strstr(key, "stop") || strstr(key, "timestamp"))
        && !strstr(key, "duration") && !strstr(key, "time(us)_") && !strstr(key, "to_") && !strstr(key, "bound");
}

void clock_shift_table(struct table *t, size_t from, ns_t off)
{
    if (!t || !off)
        return;
    for (size_t c = 0; c < t->ncols; c++) {
        struct table_col *col = &t->cols[c];
        if (col->type != TC_TIME || !is_stamp(col->key))
            continue;
        for (size_t r = from; r < t->nrows; r++)
            if (col->time[r] != NS_NONE)
                col->time[r] += off;
    }
}

bool clock_table_span(const struct table *t, ns_t *t0, ns_t *t1)
{
    bool any = false;
    for (size_t c = 0; t && c < t->ncols; c++) {
        const struct table_col *col = &t->cols[c];
        if (col->type != TC_TIME || !is_stamp(col->key))
            continue;
        for (size_t r = 0; r < t->nrows; r++) {
            ns_t v = col->time[r];
            if (v == NS_NONE)
                continue;
            if (!any || v < *t0)
                *t0 = v;
            if (!any || v > *t1)
                *t1 = v;
            any = true;
        }
    }
    return any;
}
