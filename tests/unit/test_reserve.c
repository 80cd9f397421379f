/* Room reserved ahead (model_reserve, and the trace reader's estimate for large files) holds
 * exactly what appending one by one holds, also past the reserved room. */
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/strtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../runner.h"

/* n slices on one lane, 10 µs apart; a flow from every fourth to the next one. */
static void fill_model(struct model *m, uint32_t n)
{
    uint32_t l = model_lane(m, "1", 1, "1", 1);
    char name[16];
    for (uint32_t i = 0; i < n; i++) {
        int k = snprintf(name, sizeof name, "k%u", i % 50);
        model_add_slice(m, l, (ns_t)i * 10000, 5000, name, (size_t)k, "c", 1, 0, i, 0);
        if (i % 4 == 0 && i + 1 < n) {
            model_add_flow_point(m, l, FLOW_START, (ns_t)i * 10000 + 1000, "f", 1, "f", 1, i, false, true);
            model_add_flow_point(m, l, FLOW_END, (ns_t)(i + 1) * 10000 + 1000, "f", 1, "f", 1, i, false, true);
        }
    }
}

static void check_slices(const struct model *m, uint32_t n)
{
    CHECK_INT(m->nslices, n);
    char name[16];
    for (uint32_t i = 0; i < m->nslices && !test_failed_now(); i++) {
        snprintf(name, sizeof name, "k%u", i % 50);
        CHECK_INT(m->start[i], (ns_t)i * 10000);
        CHECK_INT(m->dur[i], 5000);
        CHECK_STR(strtab_get(m->str, m->name[i]), name);
    }
}

TEST(model_reserve_then_past_it)
{
    const uint32_t n = 5000;
    struct model *a = model_new(TIME_LOCAL_US), *b = model_new(TIME_LOCAL_US);
    CHECK_INT(model_reserve(b, 1000, 100), 0);   /* less than needed: grows on from there */
    fill_model(a, n);
    fill_model(b, n);
    CHECK_INT(model_reserve(b, 0, 0), 0);
    CHECK_INT(model_finalize(a), 0);
    CHECK_INT(model_finalize(b), 0);
    check_slices(b, n);
    CHECK_INT(b->nflows, a->nflows);
    CHECK_INT(b->flows_matched, (n + 3) / 4);
    CHECK_INT(b->flows_matched, a->flows_matched);
    for (size_t i = 0; i < a->nflows && i < b->nflows; i++) {
        CHECK_INT(b->flows[i].src, a->flows[i].src);
        CHECK_INT(b->flows[i].dst, a->flows[i].dst);
    }
    model_free(a);
    model_free(b);
}

/* A trace large enough for the reader to reserve room (8 MB and more), read whole and split
 * in two: every event lands where it belongs. */
TEST(trace_reserve_large_file)
{
    const uint32_t n = 40000;
    size_t cap = (size_t)n * 400, len = 0;
    char *doc = malloc(cap);
    char pad[201];
    memset(pad, 'x', 200);
    pad[200] = 0;
    len += (size_t)snprintf(doc + len, cap - len, "[");
    for (uint32_t i = 0; i < n; i++) {
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"ph\":\"X\",\"name\":\"k%u\",\"pid\":1,\"tid\":1,\"ts\":\"%u.000\",\"dur\":5,"
                                "\"cat\":\"c\",\"args\":{\"pad\":\"%s\"}}",
                                i ? ",\n" : "", i % 50, i * 10, pad);
        if (i % 4 == 0 && i + 1 < n)
            len += (size_t)snprintf(doc + len, cap - len,
                                    ",\n{\"ph\":\"s\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"f\",\"id\":%u,\"pid\":1,\"tid\":1,\"ts\":%u}"
                                    ",\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"f\",\"id\":%u,\"pid\":1,\"tid\":1,\"ts\":%u}",
                                    i, i * 10 + 1, i, i * 10 + 11);
    }
    len += (size_t)snprintf(doc + len, cap - len, "]\n");
    CHECK(len >= (8u << 20) + (1u << 20));
    for (int split = 0; split < 2; split++) {
        struct model *m = model_new(TIME_LOCAL_US);
        struct diag *d = diag_new();
        if (split)
            trace_json_set_split(0, len / 4);   /* the second part reserves too */
        CHECK_INT(trace_json_load_buffer(m, "big.json", doc, len, d), 0);
        if (split)
            CHECK_INT(trace_json_last_split(NULL), 1);
        trace_json_set_split(32u << 20, UINT64_MAX);
        CHECK_INT(model_finalize(m), 0);
        check_slices(m, n);
        CHECK_INT(m->flows_matched, (n + 2) / 4);
        CHECK_INT(m->flows_unmatched, 0);
        CHECK_INT(diag_count(d), 0);
        model_free(m);
        diag_free(d);
    }
    free(doc);
}

/* Timestamps in microseconds, read eight digits at a time where possible: the same values as
 * digit by digit, for every length and with a bad byte anywhere. */
TEST(trace_parse_us_digit_words)
{
    uint64_t st = 12345;
    char s[40];
    for (int t = 0; t < 200000 && !test_failed_now(); t++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t x = st >> 11;
        int nint = 1 + (int)(x % 17), nfrac = (int)(x >> 5) % 6;   /* 1..17 digits, 0..5 decimals */
        bool dot = (x >> 9) % 4 != 0;
        size_t n = 0;
        __int128 iv = 0;
        int fd[5] = { 0 };
        for (int k = 0; k < nint; k++) {
            int d = (int)((st >> (k % 50)) % 10);
            s[n++] = (char)('0' + d);
            iv = iv * 10 + d;
        }
        if (dot) {
            s[n++] = '.';
            for (int k = 0; k < nfrac; k++) {
                fd[k] = (int)((st >> (3 * k + 7)) % 10);
                s[n++] = (char)('0' + fd[k]);
            }
        }
        bool bad = (x >> 13) % 8 == 0;
        if (bad)
            s[(x >> 17) % n] = "/:a \x80"[(x >> 23) % 5];
        __int128 want = iv * 1000 + fd[0] * 100 + fd[1] * 10 + fd[2] + (fd[3] >= 5);
        int64_t ns = -1;
        int rc = trace_json_parse_us(s, n, &ns);
        if (bad)
            continue;   /* may still parse (a trailing space): only must not crash */
        if (want > INT64_MAX) {   /* "12." is read as 12, like before */
            CHECK_INT(rc, -1);
        } else {
            CHECK_INT(rc, 0);
            CHECK_INT(ns, (int64_t)want);
        }
        if (test_failed_now())
            fprintf(stderr, "    %.*s\n", (int)n, s);
    }
}

/* The lane and name caches hash a few bytes of a key: keys of every length up to 24 that
 * differ in one byte anywhere still get their own lane and name. */
TEST(trace_lane_cache_near_keys)
{
    size_t cap = 1u << 20, len = 0;
    char *doc = malloc(cap);
    len += (size_t)snprintf(doc + len, cap - len, "[");
    uint32_t nev = 0;
    for (int n = 1; n <= 24; n++)
        for (int at = 0; at < n; at++)
            for (int v = 0; v < 2; v++, nev++) {
                char key[32];
                memset(key, '7', (size_t)n);
                key[n] = 0;
                key[at] = v ? '3' : '5';
                /* the same key as tid of two pids, as pid, and as the name; repeated so the
                 * caches are hit */
                for (int rep = 0; rep < 2; rep++)
                    len += (size_t)snprintf(doc + len, cap - len,
                                            "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%u,\"dur\":1}",
                                            len > 1 ? "," : "", key, key, key, nev * 10 + (uint32_t)rep * 3);
            }
    len += (size_t)snprintf(doc + len, cap - len, "]");
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load_buffer(m, "keys.json", doc, len, d), 0);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(m->nslices, 2 * nev);
    CHECK_INT(m->nlanes, nev);   /* every key differs from every other */
    for (uint32_t i = 0; i < m->nslices && !test_failed_now(); i++) {
        const struct lane *l = &m->lanes[m->lane[i]];
        const char *name = strtab_get(m->str, m->name[i]);
        CHECK_STR(strtab_get(m->str, l->key), name);
        CHECK_STR(strtab_get(m->str, m->procs[l->proc].key), name);
    }
    model_free(m);
    diag_free(d);
    free(doc);
}

/* How many of the pages of [p, p + bytes) are resident. */
static size_t resident_pages(const void *p, size_t bytes)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes + 4095) & ~(uintptr_t)4095;
    size_t n = (e - a) / 4096, in = 0;
    unsigned char *v = malloc(n ? n : 1);
    if (v && mincore((void *)a, e - a, v) == 0)
        for (size_t i = 0; i < n; i++)
            in += v[i] & 1;
    free(v);
    return in;
}

/* The whole pages within [p, p + bytes) let go (anonymous memory: they read as zeros). */
static void drop_pages(void *p, size_t bytes)
{
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (e > a)
        madvise((void *)a, e - a, MADV_DONTNEED);
}

/* Room made resident by another thread's view of it: the rows become resident, what is in
 * them does not change, and a view from before the columns moved does no harm. */
TEST(reserve_room_populated_without_writing)
{
    struct model *m = model_new(TIME_LOCAL_US);
    CHECK_INT(model_reserve(m, 8u << 20, 1u << 20), 0);
    fill_model(m, 1000);
    struct model_room room;
    model_room_note(m, &room);
    /* unused rows: let go, in case malloc served memory used before (then zeros, unused) */
    drop_pages(m->start + 200000, 100000 * sizeof *m->start);
    drop_pages(m->dur + 200000, 100000 * sizeof *m->dur);
    size_t before = resident_pages(m->start + 200000, 100000 * sizeof *m->start);
    if (!model_room_populate(&room, 200000, 300000, 0, 0)) {
        test_skip("this kernel cannot populate without writing (MADV_POPULATE_WRITE)");
        model_free(m);
        return;
    }
    size_t after = resident_pages(m->start + 200000, 100000 * sizeof *m->start);
    /* (qemu-user takes the advice without doing it: only what the rows hold is checked) */
    if (!test_emulated(NULL)) {
        CHECK(before < 10);
        CHECK(after >= 100000 * sizeof *m->start / 4096 - 1);
        CHECK(resident_pages(m->dur + 200000, 100000 * sizeof *m->dur) >= after - 1);   /* every column */
    }
    /* rows already filled: populated again, unchanged */
    CHECK(model_room_populate(&room, 0, 2000, 0, 1000));
    check_slices(m, 1000);
    /* the columns move (grown past the room); the old view is harmless */
    CHECK_INT(model_reserve(m, 40u << 20, 0), 0);
    CHECK(model_room_populate(&room, 0, 200000, 0, 100000));
    check_slices(m, 1000);
    CHECK_INT(model_finalize(m), 0);
    model_free(m);
}

/* A split read large enough that the merged-away part's columns and points become finalize's
 * scratch (they hold that part's old values, not zeros): every column, depth and flow equals
 * the one-reader read's. */
TEST(trace_split_scratch_from_merged_part_same_model)
{
    const uint32_t n = 300000;
    size_t cap = (size_t)n * 260, len = 0;
    char *doc = malloc(cap);
    len += (size_t)snprintf(doc + len, cap - len, "[");
    for (uint32_t i = 0; i < n; i++) {
        /* two lanes, nested pairs, a few names */
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"ph\":\"X\",\"name\":\"k%u\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":%u,\"cat\":\"c\"}",
                                i ? ",\n" : "", i % 50, 1 + i % 2, (i / 4) * 10 + i % 4, i % 4 < 2 ? 9 : 3);
        if (i % 4 == 0 && i + 1 < n)
            len += (size_t)snprintf(doc + len, cap - len,
                                    ",\n{\"ph\":\"s\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"f\",\"id\":%u,\"pid\":1,\"tid\":1,\"ts\":%u}"
                                    ",\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"f\",\"id\":%u,\"pid\":1,\"tid\":2,\"ts\":%u}",
                                    i, (i / 4) * 10 + 1, i, (i / 4) * 10 + 12);
    }
    len += (size_t)snprintf(doc + len, cap - len, "]\n");
    struct model *m[2];
    for (int split = 0; split < 2; split++) {
        m[split] = model_new(TIME_LOCAL_US);
        struct diag *d = diag_new();
        trace_json_set_split(split ? 0 : UINT64_MAX, split ? len / 2 : UINT64_MAX);
        CHECK_INT(trace_json_load_buffer(m[split], "big.json", doc, len, d), 0);
        CHECK_INT(trace_json_last_split(NULL), split);
        CHECK_INT(model_finalize(m[split]), 0);
        CHECK_INT(diag_count(d), 0);
        diag_free(d);
    }
    trace_json_set_split(32u << 20, UINT64_MAX);
    CHECK_INT(m[0]->nslices, n);
    CHECK_INT(m[1]->nslices, n);
    CHECK_INT(m[1]->nflows, m[0]->nflows);
    CHECK_INT(m[1]->flows_matched, (n + 2) / 4);
    size_t bad = 0;
    for (uint32_t i = 0; i < n && m[1]->nslices == n; i++)
        bad += m[0]->start[i] != m[1]->start[i] || m[0]->dur[i] != m[1]->dur[i] || m[0]->lane[i] != m[1]->lane[i] ||
               m[0]->depth[i] != m[1]->depth[i] || m[0]->off[i] != m[1]->off[i] || m[0]->len[i] != m[1]->len[i] ||
               strcmp(strtab_get(m[0]->str, m[0]->name[i]), strtab_get(m[1]->str, m[1]->name[i]));
    for (size_t k = 0; k < m[0]->nflows && m[1]->nflows == m[0]->nflows; k++)
        bad += m[0]->flows[k].src != m[1]->flows[k].src || m[0]->flows[k].dst != m[1]->flows[k].dst ||
               m[0]->flows[k].src_ts != m[1]->flows[k].src_ts || m[0]->flows[k].dst_ts != m[1]->flows[k].dst_ts;
    for (size_t k = 0; k < m[0]->nflows_by_src && m[1]->nflows_by_src == m[0]->nflows_by_src; k++)
        bad += m[0]->flows_by_src[k] != m[1]->flows_by_src[k];
    CHECK_INT(m[1]->nflows_by_src, m[0]->nflows_by_src);
    CHECK_INT(m[1]->nflows_by_dst, m[0]->nflows_by_dst);
    CHECK_INT(bad, 0);
    CHECK_INT(m[1]->t_min, m[0]->t_min);
    CHECK_INT(m[1]->t_max, m[0]->t_max);
    for (uint32_t l = 0; l < m[0]->nlanes && l < m[1]->nlanes; l++)
        CHECK_INT(m[1]->lanes[l].ndepth, m[0]->lanes[l].ndepth);
    model_free(m[0]);
    model_free(m[1]);
    free(doc);
}
