/* The streaming trace reader: exact numbers, field types, metadata, broken files, chunk
 * boundaries, lazy args, and real captures checked against Python's json module. */
#include "../runner.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/trace/trace_args.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

struct loaded {
    struct model *m;
    struct diag *d;
    int rc;
};

static struct loaded load_str(const char *json)
{
    struct loaded l = { model_new(TIME_LOCAL_US), diag_new(), 0 };
    l.rc = trace_json_load_buffer(l.m, "t.json", json, strlen(json), l.d);
    model_finalize(l.m);
    return l;
}

static void unload(struct loaded *l)
{
    model_free(l->m);
    diag_free(l->d);
}

/* True when some diagnostic contains text. */
static int diag_has(struct diag *d, const char *text)
{
    char buf[1200];
    for (size_t i = 0; i < diag_count(d); i++) {
        diag_format(d, i, buf, sizeof buf);
        if (strstr(buf, text))
            return 1;
    }
    return 0;
}

/* A new temporary file (path: a mkstemp template) open for writing, or NULL (a failure). */
static FILE *temp_trace(char *path)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    return fd < 0 ? NULL : fdopen(fd, "w");
}

static uint32_t find_slice(const struct model *m, const char *name)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

TEST(trace_parse_us_exact)
{
    int64_t v = 0;
    CHECK_INT(trace_json_parse_us("1736405443863674.400", 20, &v), 0);
    CHECK(v == 1736405443863674400LL);
    CHECK_INT(trace_json_parse_us("145.57", 6, &v), 0);
    CHECK_INT(v, 145570);
    CHECK_INT(trace_json_parse_us("0.0005", 6, &v), 0);
    CHECK_INT(v, 1);   /* half away from zero */
    CHECK_INT(trace_json_parse_us("0.00049", 7, &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(trace_json_parse_us("-2.5", 4, &v), 0);
    CHECK_INT(v, -2500);
    CHECK_INT(trace_json_parse_us("1.69512E+15", 11, &v), 0);
    CHECK(v == 1695120000000000000LL);
    CHECK_INT(trace_json_parse_us("1736405443881410.320\t", 21, &v), 0);
    CHECK(v == 1736405443881410320LL);
    CHECK_INT(trace_json_parse_us("1736405443863674.4001234567", 27, &v), 0);
    CHECK(v == 1736405443863674400LL);
    CHECK_INT(trace_json_parse_us("12", 2, &v), 0);
    CHECK_INT(v, 12000);
    CHECK(trace_json_parse_us("abc", 3, &v) < 0);
    CHECK(trace_json_parse_us("", 0, &v) < 0);
    CHECK(trace_json_parse_us("1.2.3", 5, &v) < 0);
    CHECK(trace_json_parse_us("99999999999999999999", 20, &v) < 0);
}

TEST(trace_basic_fields_and_late_metadata)
{
    struct loaded l = load_str(
        "[{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":3016828,\"tid\":3016828,\"ts\":\"1736405443863674.400\","
        "\"dur\":162.66,\"cat\":\"cpu_op\",\"args\":{\"Input Dims\":\"[1]\",\"nested\":{\"a\":[1,{\"b\":\"}\"}]}}},\n"
        "{\"ph\":\"X\",\"name\":\"MatMul\",\"pid\":\"900\",\"tid\":\"3\",\"ts\":1736405443863675.1,\"dur\":\"145.57\"},\n"
        "{\"ph\":\"i\",\"name\":\"instant\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":900,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}},\n"
        "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":900,\"tid\":0,\"args\":{\"sort_index\":13}},\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3016828,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n"
        "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":3016828,\"tid\":0,\"args\":{\"sort_index\":0}},\n"
        "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":3016828,\"tid\":0,\"args\":{\"labels\":\"CPU\"}}\n]");
    struct model *m = l.m;
    CHECK_INT(l.rc, 0);
    CHECK_INT(diag_count(l.d), 0);
    CHECK_INT(m->events, 8);
    CHECK_INT(m->events_by_ph['X'], 2);
    CHECK_INT(m->events_by_ph['M'], 5);
    CHECK_INT(m->events_by_ph['i'], 1);
    CHECK_INT(m->unknown_ph, 0);   /* an instant is counted as one, not as an unknown phase */
    CHECK_INT(m->nslices, 2);
    uint32_t mm = find_slice(m, "aten::mm"), k = find_slice(m, "MatMul");
    CHECK(mm != SLICE_NONE && k != SLICE_NONE);
    if (mm == SLICE_NONE || k == SLICE_NONE) {
        unload(&l);
        return;
    }
    CHECK(m->start[mm] == 1736405443863674400LL);
    CHECK_INT(m->dur[mm], 162660);
    CHECK(m->start[k] == 1736405443863675100LL);
    CHECK_INT(m->dur[k], 145570);
    CHECK_STR(model_str(m, m->cat[mm]), "cpu_op");
    char buf[128];
    CHECK_STR(model_lane_label(m, m->lane[mm], buf, sizeof buf), "Python \xe2\x96\xb8 Thread 3016828");
    CHECK_STR(model_lane_label(m, m->lane[k], buf, sizeof buf), "Ascend Hardware \xe2\x96\xb8 Stream 3");
    CHECK(m->lane[mm] < m->lane[k]);   /* sort index 0 before 13 */
    CHECK_STR(model_str(m, m->procs[m->lanes[m->lane[mm]].proc].labels), "CPU");
    CHECK_INT(m->len[k], 0);           /* no args to load */
    CHECK(m->len[mm] > 0);
    unload(&l);
}

TEST(trace_missing_process_name_and_string_ids)
{
    struct loaded l = load_str(
        "[{\"ph\":\"X\",\"name\":\"aclnnAdd\",\"pid\":3089232096,\"tid\":7,\"ts\":\"10.000\",\"dur\":5},"
        "{\"ph\":\"s\",\"name\":\"HostToDevice1\",\"cat\":\"HostToDevice\",\"id\":\"936\",\"pid\":3089232096,\"tid\":7,\"ts\":\"11\"},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"HostToDevice1\",\"cat\":\"HostToDevice\",\"id\":936,\"pid\":\"HCCL\",\"tid\":\"272_0\",\"ts\":\"20\"},"
        "{\"ph\":\"X\",\"name\":\"allreduce\",\"pid\":\"HCCL\",\"tid\":\"272_0\",\"ts\":\"20\",\"dur\":3},"
        "{\"ph\":\"s\",\"bp\":\"e\",\"name\":\"t\",\"cat\":\"async_npu\",\"id\":18446744073709551615,\"pid\":3089232096,\"tid\":7,\"ts\":\"12\"},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"t\",\"cat\":\"async_npu\",\"id\":\"18446744073709551615\",\"pid\":\"HCCL\",\"tid\":\"272_0\",\"ts\":\"21\"},"
        "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"async_npu\",\"id\":\"0x1f\",\"pid\":3089232096,\"tid\":7,\"ts\":\"12\"},"
        "{\"ph\":\"f\",\"name\":\"x\",\"cat\":\"async_npu\",\"id\":9007199254740993,\"pid\":\"HCCL\",\"tid\":\"272_0\",\"ts\":\"19\"}]");
    struct model *m = l.m;
    CHECK_INT(l.rc, 0);
    CHECK_INT(m->nslices, 2);
    uint32_t a = find_slice(m, "aclnnAdd"), h = find_slice(m, "allreduce");
    CHECK_STR(model_str(m, m->procs[m->lanes[m->lane[a]].proc].name), "3089232096");
    CHECK_STR(model_str(m, m->procs[m->lanes[m->lane[h]].proc].name), "HCCL");
    CHECK_STR(model_str(m, m->lanes[m->lane[h]].name), "Thread 272_0");
    CHECK_INT(m->flows_matched, 2);   /* "936"~936 and the 2^64-1 pair; "0x1f" has no partner */
    uint32_t an = strtab_find(m->str, "async_npu", 9);
    CHECK_INT(model_flows_matched_cat(m, an), 1);
    int seen_max = 0, seen_53 = 0, seen_str = 0;
    for (size_t i = 0; i < m->nflows; i++) {
        const struct flow *f = &m->flows[i];
        seen_max += !f->id_is_str && f->id == UINT64_MAX && f->src == a && f->dst == h;
        seen_53 += !f->id_is_str && f->id == 9007199254740993ULL && f->dst == h;   /* next slice at/after 19 */
        seen_str += f->id_is_str && !strcmp(model_str(m, (uint32_t)f->id), "0x1f");
    }
    CHECK_INT(seen_max, 1);
    CHECK_INT(seen_53, 1);
    CHECK_INT(seen_str, 1);
    unload(&l);
}

TEST(trace_begin_end_counters_escapes)
{
    struct loaded l = load_str(
        "{\"traceEvents\":[\n"
        "{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":2,\"ts\":100,\"args\":{\"k\":1}},"
        "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":110},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":120},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":200},"
        "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":3,\"ts\":150},"
        "{\"ph\":\"C\",\"name\":\"APP/DDR\",\"processName\":\"NPU MEM\",\"pid\":5,\"tid\":0,\"ts\":\"1.5\",\"args\":{\"KB\":12.5}},"
        "{\"ph\":\"C\",\"name\":\"read_bw\",\"pid\":6,\"tid\":0,\"ts\":\"2\",\"args\":{\"value\":3,\"acc_id\":1,\"s\":\"x\"}},"
        "{\"ph\":\"X\",\"name\":\"q\\\"b\\\\s\\u00e9\\ud83d\\ude00\\n\",\"pid\":1,\"tid\":9,\"ts\":1,\"dur\":1}"
        "],\"displayTimeUnit\":\"ns\",\"other\":{\"a\":[1,2]}}");
    struct model *m = l.m;
    CHECK_INT(l.rc, 0);
    CHECK_INT(m->nslices, 4);
    uint32_t o = find_slice(m, "outer"), i = find_slice(m, "inner"), op = find_slice(m, "open");
    CHECK(o != SLICE_NONE && i != SLICE_NONE && op != SLICE_NONE);
    if (o != SLICE_NONE && i != SLICE_NONE && op != SLICE_NONE) {
        CHECK_INT(m->dur[o], 100000);
        CHECK_INT(m->dur[i], 10000);
        CHECK_INT(m->depth[i], 1);
        CHECK_INT(model_parent(m, i), o);
        CHECK_INT(m->dur[op], 50000);   /* closed at the last timestamp of the file */
    }
    CHECK(diag_has(l.d, "B events without an E"));
    CHECK(find_slice(m, "q\"b\\s\xc3\xa9\xf0\x9f\x98\x80\n") != SLICE_NONE);
    CHECK_INT(m->ncounters, 3);
    int ok = 0;
    for (uint32_t c = 0; c < m->ncounters; c++) {
        const struct counter_track *t = &m->counters[c];
        const char *n = model_str(m, t->name);
        if (!strcmp(n, "APP/DDR") && t->n == 1 && t->ts[0] == 1500 && t->value[0] == 12.5 &&
            !strcmp(model_str(m, m->procs[t->proc].name), "NPU MEM") && m->procs[t->proc].kind == LANE_COUNTER)
            ok++;
        if (!strcmp(n, "read_bw/value") && t->value[0] == 3)
            ok++;
        if (!strcmp(n, "read_bw/acc_id") && t->value[0] == 1)
            ok++;
    }
    CHECK_INT(ok, 3);
    CHECK_INT(diag_count_level(l.d, DIAG_ERROR), 0);
    unload(&l);
}

static const char *GOOD3 =
    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"1.000\",\"dur\":1,\"args\":{\"x\":\"[{\"}},"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":\"3.000\",\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":\"5.000\",\"dur\":1}";

TEST(trace_unclosed_array_and_mid_event_truncation)
{
    char buf[2048];
    /* torch_npu's interrupted export: no closing ']' */
    snprintf(buf, sizeof buf, "%s", GOOD3);
    struct loaded l = load_str(buf);
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 3);
    CHECK(diag_has(l.d, "closing ']'"));
    unload(&l);
    /* a trailing comma, as left between two appends */
    snprintf(buf, sizeof buf, "%s,\n", GOOD3);
    l = load_str(buf);
    CHECK_INT(l.m->nslices, 3);
    CHECK(diag_has(l.d, "closing ']'"));
    unload(&l);
    /* cut inside the fourth event: its offset is reported */
    size_t cut = strlen(GOOD3) + 1;
    snprintf(buf, sizeof buf, "%s,{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"ti", GOOD3);
    l = load_str(buf);
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 3);
    char want[64];
    snprintf(want, sizeof want, "byte %zu: the file ends inside an event", cut);
    CHECK(diag_has(l.d, want));
    unload(&l);
}

/* The scanner's shortcuts (a short plain string found inline, "key":value without blanks, a
 * run of digits eight at a time) give what the general paths give: an escape or a non-ASCII
 * byte just before the closing quote, strings of 31 to 33 bytes, blanks around ':' and ',',
 * and long numbers, each read the same as written the plain way. */
TEST(trace_scanner_shortcuts_agree)
{
    struct loaded l = load_str(
        "[{\"ph\":\"X\",\"name\":\"a\\\"b\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"caf\xc3\xa9\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"0123456789012345678901234567890\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"01234567890123456789012345678901\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"012345678901234567890123456789012\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
        "{ \"ph\" : \"X\" , \"name\" :\"spaced\",\"pid\": 1 ,\"tid\":1,\"ts\":6,\"dur\":1 },"
        "{\"ph\":\"X\",\"name\":\"long\",\"pid\":12345678901234567,\"tid\":123456789,"
        "\"ts\":\"1736405449801419.309\",\"dur\":16.49,\"args\":{\"a\":\"x\\\"\",\"b\":[1,\"]\"],\"c\":\"\xc3\xa9\"}}]");
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 7);
    CHECK(find_slice(l.m, "a\"b") != SLICE_NONE);
    CHECK(find_slice(l.m, "caf\xc3\xa9") != SLICE_NONE);
    CHECK(find_slice(l.m, "0123456789012345678901234567890") != SLICE_NONE);
    CHECK(find_slice(l.m, "01234567890123456789012345678901") != SLICE_NONE);
    CHECK(find_slice(l.m, "012345678901234567890123456789012") != SLICE_NONE);
    CHECK(find_slice(l.m, "spaced") != SLICE_NONE);
    uint32_t s = find_slice(l.m, "long");
    CHECK(s != SLICE_NONE);
    if (s != SLICE_NONE) {
        CHECK_INT(l.m->start[s], 1736405449801419309LL);
        CHECK_INT(l.m->dur[s], 16490);
    }
    CHECK_INT(diag_count_level(l.d, DIAG_WARN), 0);
    unload(&l);
}

/* Every key the reader knows is found (short keys go through a hashed table of slots), and
 * keys close to them (a letter more or less, another case, empty, seven bytes) are not. */
TEST(trace_every_key_found_and_near_misses_ignored)
{
    struct loaded l = load_str(
        "[{\"ph\":\"X\",\"name\":\"src\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,\"cat\":\"c1\",\"args\":{\"q\":7}},"
        "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":2,\"ts\":25,\"dur\":10},"
        "{\"ph\":\"s\",\"name\":\"fl\",\"cat\":\"k\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":2},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"fl\",\"cat\":\"k\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":15},"
        "{\"ph\":\"X\",\"name\":\"look\",\"pid\":3,\"tid\":4,\"ts\":40,\"dur\":2,\"cat\":\"c2\",\"nam\":\"no\","
        "\"Name\":\"no\",\"names\":\"no\",\"pidx\":9,\"tidy\":9,\"tss\":99,\"durr\":99,\"cats\":\"no\",\"p\":1,"
        "\"\":0,\"pidpidp\":9,\"arg\":{},\"Ph\":\"Z\",\"i\":7,\"bpp\":\"x\"}]");
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 4);
    uint32_t src = find_slice(l.m, "src"), a = find_slice(l.m, "A"), look = find_slice(l.m, "look");
    CHECK(src != SLICE_NONE && a != SLICE_NONE && look != SLICE_NONE);
    if (src != SLICE_NONE && look != SLICE_NONE) {
        CHECK_INT(l.m->start[src], 1000);
        CHECK_INT(l.m->dur[src], 5000);
        CHECK(!strcmp(model_str(l.m, l.m->cat[src]), "c1"));
        CHECK(l.m->len[src] > 0);    /* its args are kept for a lazy read; "arg" is not args */
        CHECK_INT(l.m->len[look], 0);
        CHECK_INT(l.m->start[look], 40000);
        CHECK_INT(l.m->dur[look], 2000);
        CHECK(!strcmp(model_str(l.m, l.m->cat[look]), "c2"));
        CHECK(l.m->lane[look] != l.m->lane[src]);
    }
    /* id pairs the two points; bp "e" binds the end to the enclosing slice A, not the next */
    CHECK_INT(l.m->nflows, 1);
    if (l.m->nflows == 1) {
        CHECK_INT(l.m->flows[0].src, src);
        CHECK_INT(l.m->flows[0].dst, a);
        CHECK_INT(l.m->flows[0].id, 5);
    }
    CHECK_INT(diag_count_level(l.d, DIAG_WARN), 0);
    unload(&l);
}

/* Each key is first compared with the one that came after the previous key last time: the
 * same bytes must read the same, and anything else (more blanks, another order, a longer
 * key that starts alike, an escape) must be read as written. */
TEST(trace_key_guesses_never_change_what_is_read)
{
    struct loaded l = load_str(
        "[{\"ph\":\"X\",\"name\":\"g1\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"g2\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
        "{\"ph\": \"X\", \"name\": \"g3\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1},"
        "{\"ph\":  \"X\",\"name\" :\"g4\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
        "{\"name\":\"g5\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":2},"
        "{\"ph\":\"X\",\"names\":\"no\",\"name\":\"g6\",\"pid\":1,\"tid\":1,\"tss\":9,\"ts\":6,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"g7\",\"pid\":1,\"tid\":1,\"t\\u0073\":9,\"ts\":7,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"g8\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1}]");
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 8);
    char name[8];
    for (int k = 1; k <= 8; k++) {
        snprintf(name, sizeof name, "g%d", k);
        uint32_t s = find_slice(l.m, name);
        CHECK(s != SLICE_NONE);
        if (s != SLICE_NONE) {
            CHECK_INT(l.m->start[s], k * 1000);
            CHECK_INT(l.m->dur[s], 1000);
        }
    }
    CHECK_INT(diag_count_level(l.d, DIAG_WARN), 0);
    unload(&l);
}

/* The name and lane caches compare short strings by their first and last words: names (and
 * pids) of every length up to 24 that differ in one byte only, anywhere, stay apart. */
TEST(trace_caches_tell_near_names_apart)
{
    size_t cap = 1u << 20, at = 0;
    char *j = malloc(cap);
    j[at++] = '[';
    int nev = 0;
    for (int len = 1; len <= 24; len++)
        for (int pos = 0; pos < len; pos++)
            for (int v = 0; v < 2; v++) {
                char name[32];
                memset(name, 'a', (size_t)len);
                name[len] = 0;
                name[pos] = v ? 'b' : 'a';
                at += (size_t)snprintf(j + at, cap - at, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":\"%s\",\"tid\":1,\"ts\":%d,\"dur\":1}",
                                       nev ? "," : "", name, name, nev);
                nev++;
            }
    j[at++] = ']';
    j[at] = 0;
    struct loaded l = load_str(j);
    CHECK_INT(l.m->nslices, (uint32_t)nev);
    int ok = 0;
    for (uint32_t k = 0; k < l.m->nslices; k++) {
        /* each slice's name is the one written with its ts, and its lane is its pid's */
        int e = (int)(l.m->start[k] / 1000), len = 1, pos = 0, v = 0, c = 0;
        for (len = 1; len <= 24; len++)
            for (pos = 0; pos < len; pos++)
                for (v = 0; v < 2; v++)
                    if (c++ == e)
                        goto found;
    found:;
        char name[32];
        memset(name, 'a', (size_t)len);
        name[len] = 0;
        name[pos] = v ? 'b' : 'a';
        const char *proc = model_str(l.m, l.m->procs[l.m->lanes[l.m->lane[k]].proc].key);
        ok += !strcmp(model_str(l.m, l.m->name[k]), name) && !strcmp(proc, name);
    }
    CHECK_INT(ok, nev);
    unload(&l);
    free(j);
}

/* A random JSON value for the nested-value skip: strings that hold brackets, quotes and runs
 * of backslashes, nesting, numbers and literals; lcg is the caller's generator state. */
static unsigned lcg_next(unsigned *lcg)
{
    *lcg = *lcg * 1103515245u + 12345u;
    return *lcg >> 16;
}

static size_t random_value(char *o, size_t at, size_t cap, unsigned *lcg, int depth)
{
    static const char *const bits[] = { "a", " ", "{", "}", "[", "]", "\\\"", "\\\\", "\\n", "\\u00e9",
                                        ":", ",", "\\\\\\\"", "\\\\\\\\", "xyz0123456789" };
    unsigned pick = lcg_next(lcg) % (depth > 3 ? 3 : 6);
    if (at + 64 > cap)
        pick = 2;
    switch (pick) {
    case 0: case 1: {
        o[at++] = '"';
        for (unsigned k = lcg_next(lcg) % 40; k && at + 16 < cap; k--)
            for (const char *b = bits[lcg_next(lcg) % (sizeof bits / sizeof *bits)]; *b; b++)
                o[at++] = *b;
        o[at++] = '"';
        return at;
    }
    case 2:
        return at + (size_t)snprintf(o + at, cap - at, "%u", lcg_next(lcg));
    case 3: case 4: {
        bool obj = pick == 3;
        o[at++] = obj ? '{' : '[';
        for (unsigned k = lcg_next(lcg) % 5; k && at + 128 < cap; k--) {
            if (o[at - 1] != '{' && o[at - 1] != '[')
                o[at++] = ',';
            if (lcg_next(lcg) % 4 == 0)
                o[at++] = ' ';
            if (obj)
                at = (size_t)(stpcpy(o + at, "\"k\\\"}\":") - o);
            at = random_value(o, at, cap, lcg, depth + 1);
        }
        o[at++] = obj ? '}' : ']';
        return at;
    }
    default:
        return (size_t)(stpcpy(o + at, lcg_next(lcg) % 2 ? "true" : "null") - o);
    }
}

/* The skip over nested values (64 bytes at a time where the machine allows) ends every args
 * object where it ends: each event's name comes after its args, so a skip that ended early
 * or late would lose the name or stop the file. Random values, blanks that move the args
 * across 64-byte edges, and a backslash outside any string (not JSON: read as it was). */
TEST(trace_nested_skip_finds_the_end)
{
    size_t cap = 4u << 20, at = 0;
    char *j = malloc(cap);
    unsigned lcg = 12345;
    int nev = 2000;
    j[at++] = '[';
    for (int e = 0; e < nev; e++) {
        at += (size_t)snprintf(j + at, cap - at, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,%*s\"args\":{\"v\":",
                               e ? "," : "", e, (int)(lcg_next(&lcg) % 64), "");
        at = random_value(j, at, cap, &lcg, 0);
        if (e % 97 == 0)
            at = (size_t)(stpcpy(j + at, ",\"w\":[1,2]\\\"}\"") - j);
        at += (size_t)snprintf(j + at, cap - at, "},\"name\":\"ev%d\"}", e);
    }
    j[at++] = ']';
    j[at] = 0;
    struct loaded l = load_str(j);
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, (uint32_t)nev);
    int found = 0;
    char name[16];
    for (int e = 0; e < nev; e++) {
        snprintf(name, sizeof name, "ev%d", e);
        found += find_slice(l.m, name) != SLICE_NONE;
    }
    CHECK_INT(found, nev);
    CHECK_INT(diag_count_level(l.d, DIAG_ERROR), 0);
    CHECK_INT(diag_count_level(l.d, DIAG_WARN), 0);
    unload(&l);
    free(j);
}

TEST(trace_garbage_nul_invalid_utf8)
{
    char buf[2048];
    /* garbage between events: stop there, keep what came before */
    int n = snprintf(buf, sizeof buf, "%s, @@@garbage, {\"ph\":\"X\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1}]", GOOD3);
    struct loaded l = load_str(buf);
    CHECK_INT(l.rc, 0);
    CHECK_INT(l.m->nslices, 3);
    char want[64];
    snprintf(want, sizeof want, "byte %zu: unexpected '@'", strlen(GOOD3) + 2);
    CHECK(diag_has(l.d, want));
    unload(&l);
    /* a NUL byte between events */
    n = snprintf(buf, sizeof buf, "%s,", GOOD3);
    buf[n++] = 0;
    memcpy(buf + n, "{}]", 4);
    l.m = model_new(TIME_LOCAL_US);
    l.d = diag_new();
    l.rc = trace_json_load_buffer(l.m, "nul.json", buf, (size_t)n + 3, l.d);
    model_finalize(l.m);
    CHECK_INT(l.m->nslices, 3);
    CHECK(diag_has(l.d, "byte 0x00"));
    unload(&l);
    /* invalid UTF-8 in a name: kept with U+FFFD, reported once */
    l = load_str("[{\"ph\":\"X\",\"name\":\"bad\xff\xfe\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"\xc3\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}]");
    CHECK_INT(l.m->nslices, 2);
    CHECK(find_slice(l.m, "bad\xef\xbf\xbd\xef\xbf\xbd") != SLICE_NONE);
    CHECK(diag_has(l.d, "invalid UTF-8"));
    unload(&l);
    /* wrong types: the event is skipped with a warning, the rest kept */
    l = load_str("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":[1],\"tid\":1,\"ts\":1,\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":true,\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":\"x\",\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":{}},"
                 "{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":NaN,\"x\":-Infinity},"
                 "42, \"str\", [1,2],"
                 "{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1}]");
    CHECK_INT(l.m->nslices, 1);
    CHECK(find_slice(l.m, "ok") != SLICE_NONE);
    CHECK(diag_count_level(l.d, DIAG_WARN) >= 6);
    CHECK_INT(diag_count_level(l.d, DIAG_ERROR), 0);
    unload(&l);
    /* not a trace at all */
    l = load_str("hello");
    CHECK_INT(l.rc, -1);
    CHECK(diag_has(l.d, "byte 0: expected '[' or '{'"));
    unload(&l);
    l = load_str("");
    CHECK_INT(l.rc, -1);
    unload(&l);
    l = load_str("{\"a\":1}");
    CHECK(diag_has(l.d, "no \"traceEvents\""));
    unload(&l);
    /* deep nesting inside args and a long string: skipped without recursion */
    char *deep = malloc(300000);
    n = sprintf(deep, "[{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"a\":");
    for (int i = 0; i < 100000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 100000; i++)
        deep[n++] = ']';
    n += sprintf(deep + n, ",\"s\":\"");
    memset(deep + n, 'x', 90000);
    n += 90000;
    sprintf(deep + n, "\"}}]");
    l = load_str(deep);
    CHECK_INT(l.m->nslices, 1);
    CHECK_INT(diag_count(l.d), 0);
    unload(&l);
    free(deep);
}

/* The same document read with tiny chunks gives the same model. */
TEST(trace_chunk_boundaries)
{
    const char *doc =
        "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}},"
        "{\"ph\":\"X\",\"name\":\"kernel \\\"one\\\"\",\"pid\":7,\"tid\":3,\"ts\":\"1736405443995109.811\",\"dur\":2.5,"
        "\"args\":{\"Task Type\":\"AI_CORE\",\"s\":\"}]\\\\\\\"\"}},"
        "{\"ph\":\"X\",\"name\":\"k2\",\"pid\":7,\"tid\":3,\"ts\":\"1736405443995112.000\",\"dur\":1},"
        "{\"ph\":\"s\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"async_npu\",\"id\":1736405443995109811,\"pid\":7,\"tid\":3,\"ts\":\"1736405443995110\"},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"f\",\"cat\":\"async_npu\",\"id\":1736405443995109811,\"pid\":7,\"tid\":3,\"ts\":\"1736405443995112\"},"
        "{\"ph\":\"C\",\"name\":\"AI Core Freq\",\"pid\":8,\"tid\":0,\"ts\":\"1736405443995100\",\"args\":{\"MHz\":1800.0}}]";
    struct loaded ref = load_str(doc);
    CHECK_INT(ref.m->nslices, 2);
    CHECK_INT(ref.m->flows_matched, 1);
    CHECK_INT(diag_count(ref.d), 0);
    for (size_t cs = 64; cs < 200; cs += 7) {
        trace_json_set_chunk_size(cs);
        struct loaded l = load_str(doc);
        CHECK_INT(l.m->events, ref.m->events);
        CHECK_INT(l.m->nslices, ref.m->nslices);
        CHECK_INT(l.m->flows_matched, 1);
        CHECK_INT(l.m->ncounters, 1);
        CHECK_INT(diag_count(l.d), 0);
        for (uint32_t s = 0; s < l.m->nslices && s < ref.m->nslices; s++) {
            CHECK(l.m->start[s] == ref.m->start[s]);
            CHECK_INT(l.m->dur[s], ref.m->dur[s]);
            CHECK_INT(l.m->off[s], ref.m->off[s]);
            CHECK_INT(l.m->len[s], ref.m->len[s]);
            CHECK_STR(model_str(l.m, l.m->name[s]), model_str(ref.m, ref.m->name[s]));
        }
        unload(&l);
        if (test_failed_now())
            break;
    }
    trace_json_set_chunk_size(4u << 20);
    unload(&ref);
}

TEST(trace_lazy_args_from_file)
{
    char path[] = "/tmp/aptop_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    const char *doc = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
                      "\"args\":{\"Input Dims\":\"1,2\",\"n\":{\"deep\":[1,2,3]}}},\n"
                      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}";
    CHECK_INT(write(fd, doc, strlen(doc)), (long long)strlen(doc));
    close(fd);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    struct load_progress p = { 0 };
    CHECK_INT(trace_json_load(m, path, d, &p), 0);
    CHECK_INT(p.bytes_done, strlen(doc));
    CHECK_INT(p.bytes_total, strlen(doc));
    CHECK_INT(p.events, 2);
    model_finalize(m);
    char err[256];
    uint32_t a = find_slice(m, "a"), b = find_slice(m, "b");
    cJSON *args = trace_args_load(m, a, err, sizeof err);
    CHECK(args != NULL);
    if (args) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
        CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "1,2"));
        cJSON_Delete(args);
    }
    CHECK(trace_args_load(m, b, err, sizeof err) == NULL);
    CHECK(trace_args_load(m, 99, err, sizeof err) == NULL);
    model_free(m);
    diag_free(d);
    unlink(path);
    /* a missing file */
    m = model_new(TIME_LOCAL_US);
    d = diag_new();
    CHECK_INT(trace_json_load(m, "/nonexistent/trace_view.json", d, NULL), -1);
    CHECK(diag_has(d, "cannot open"));
    model_free(m);
    diag_free(d);
}

static int same_model(const struct model *a, const struct model *b, const char *what);
static int same_diags(struct diag *a, struct diag *b, const char *what);

/* --- real captures against an independent computation ----------------------------------- */

static const char *PY =
    "import json,sys,collections\n"
    "from decimal import Decimal, ROUND_HALF_UP\n"
    "raw=open(sys.argv[1],'rb').read().decode('utf-8','replace')\n"
    "try:\n d=json.loads(raw,parse_float=Decimal)\n"
    "except json.JSONDecodeError:\n d=json.loads(raw.rstrip().rstrip(',')+']',parse_float=Decimal)\n"
    "ev=d.get('traceEvents',[]) if isinstance(d,dict) else d\n"
    "ph=collections.Counter(e.get('ph') for e in ev)\n"
    "for k in sorted(ph): print('ph',k,ph[k])\n"
    "s={str(e.get('id')) for e in ev if e.get('ph')=='s' and e.get('cat')=='async_npu'}\n"
    "f={str(e.get('id')) for e in ev if e.get('ph')=='f' and e.get('cat')=='async_npu'}\n"
    "print('flows',len(s&f))\n"
    "hw={str(e.get('pid')) for e in ev if e.get('ph')=='M' and e.get('name')=='process_name' and (e.get('args') or {}).get('name')=='Ascend Hardware'}\n"
    "t={}\n"
    "for e in ev:\n"
    " if e.get('ph')=='X' and str(e.get('pid')) in hw:\n"
    "  c,x=t.get(e['name'],(0,0))\n"
    "  t[e['name']]=(c+1,x+int((Decimal(str(e.get('dur',0)))*1000).to_integral_value(ROUND_HALF_UP)))\n"
    "for n,(c,x) in sorted(t.items()): print('k',c,x,n.encode().hex())\n";

static void hex(const char *s, char *out, size_t size)
{
    size_t w = 0;
    for (; *s && w + 3 < size; s++)
        w += (size_t)snprintf(out + w, size - w, "%02x", (unsigned char)*s);
    out[w] = 0;
}

static void check_real_trace(const char *path)
{
    char cmd[8192];
    int st = 0;
    snprintf(cmd, sizeof cmd, "python3 -c \"$APTOP_PY\" '%s'", path);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    if (!out || st)
        goto done;
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    CHECK_INT(diag_count_level(d, DIAG_ERROR), 0);
    size_t nrows = 0;
    struct agg_row *rows = model_aggregate(m, NULL, 0, LANE_DEVICE, INT64_MIN, INT64_MAX, &nrows);
    size_t names = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char a[64], b[4096];
        long long c, x;
        if (sscanf(line, "ph %63s %lld", a, &c) == 2) {
            if (strlen(a) == 1)
                CHECK_INT(m->events_by_ph[(unsigned char)a[0]], c);
        } else if (sscanf(line, "flows %lld", &c) == 1) {
            CHECK_INT(model_flows_matched_cat(m, strtab_find(m->str, "async_npu", 9)), c);
        } else if (sscanf(line, "k %lld %lld %4095s", &c, &x, b) == 3) {
            names++;
            size_t i = 0;
            char h[4096];
            for (; i < nrows; i++) {
                hex(model_str(m, rows[i].name), h, sizeof h);
                if (!strcmp(h, b))
                    break;
            }
            CHECK(i < nrows);
            if (i < nrows) {
                CHECK_INT(rows[i].count, c);
                CHECK_INT(rows[i].total, x);
            }
        }
        if (test_failed_now()) {
            fprintf(stderr, "    in %s at: %s\n", path, line);
            break;
        }
    }
    CHECK_INT(names, nrows);
    if (getenv("APTOP_TEST_VERBOSE"))
        fprintf(stderr, "    %s: %zu kernel names\n", path, names);
    free(rows);
    /* two readers, split at a quarter, the middle and three quarters, and (the fourth) parts
     * taken over from 4 KiB on, by 16 KiB reads: the same model */
    uint64_t size = m->files[0].size;
    for (int q = 1; q <= 4 && !test_failed_now(); q++) {
        struct model *m2 = model_new(TIME_LOCAL_US);
        struct diag *d2 = diag_new();
        trace_json_set_split(0, q < 4 ? size * (uint64_t)q / 4 : UINT64_MAX);
        if (q == 4) {
            trace_json_set_sharing(4096);
            trace_json_set_chunk_size(16384);
        }
        CHECK_INT(trace_json_load(m2, path, d2, NULL), 0);
        CHECK_INT(trace_json_last_split(NULL), 1);
        if (q == 4 && getenv("APTOP_TEST_VERBOSE"))
            fprintf(stderr, "    %s: %d parts\n", path, trace_json_last_parts());
        trace_json_set_split(32u << 20, UINT64_MAX);
        trace_json_set_sharing(8u << 20);
        trace_json_set_chunk_size(4u << 20);
        CHECK_INT(model_finalize(m2), 0);
        if (same_model(m, m2, path))
            same_diags(d, d2, path);
        model_free(m2);
        diag_free(d2);
    }
    model_free(m);
    diag_free(d);
done:
    free(out);
}

static int walk(const char *dir, int depth)
{
    int n = 0;
    DIR *dp = depth < 16 ? opendir(dir) : NULL;
    if (!dp)
        return 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) < 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            n += walk(p, depth + 1);
        else if (!strcmp(e->d_name, "trace_view.json") && sb.st_size > 0) {
            check_real_trace(p);
            n++;
        }
    }
    closedir(dp);
    return n;
}

TEST(trace_real_captures_match_python)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    setenv("APTOP_PY", PY, 1);
    int n = walk(real, 0);
    CHECK(n > 0);
}

TEST(trace_cancel_and_object_truncation)
{
    char path[] = "/tmp/aptop_trace_XXXXXX";
    FILE *f = temp_trace(path);
    if (!f)
        return;
    fputc('[', f);
    for (int i = 0; i < 2000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}", i ? "," : "", i % 7, i * 2);
    fputc(']', f);
    fclose(f);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    struct load_progress p = { 0 };
    atomic_store(&p.cancel, true);
    trace_json_set_chunk_size(4096);
    trace_json_load(m, path, d, &p);
    trace_json_set_chunk_size(4u << 20);
    CHECK(m->events < 2000);
    CHECK(diag_has(d, "cancelled"));
    CHECK_INT(model_finalize(m), 0);
    model_free(m);
    diag_free(d);
    unlink(path);
    /* object form cut inside a value after the array */
    struct loaded l = load_str("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}],"
                               "\"meta\":{\"x\":[1,2");
    CHECK_INT(l.m->nslices, 1);
    CHECK(diag_has(l.d, "the file ends inside"));
    unload(&l);
}

/* --- two readers: any split gives the model and messages of one reader ------------------- */

/* Compares two finalized models field by field (string ids included); reports the first
 * difference with what. */
static int same_model(const struct model *a, const struct model *b, const char *what)
{
#define DIFF(cond, ...) do { if (cond) { test_fail(__FILE__, __LINE__, "%s: " #cond, what); return 0; } } while (0)
    DIFF(a->nslices != b->nslices);
    DIFF(a->nlanes != b->nlanes);
    DIFF(a->nprocs != b->nprocs);
    DIFF(a->nflows != b->nflows);
    DIFF(a->ncounters != b->ncounters);
    DIFF(a->events != b->events);
    DIFF(a->unknown_ph != b->unknown_ph);
    DIFF(memcmp(a->events_by_ph, b->events_by_ph, sizeof a->events_by_ph) != 0);
    DIFF(a->t_min != b->t_min || a->t_max != b->t_max);
    DIFF(a->flows_matched != b->flows_matched || a->flows_unmatched != b->flows_unmatched);
    DIFF(strtab_count(a->str) != strtab_count(b->str));
    for (uint32_t i = 0; i < strtab_count(a->str); i++)
        DIFF(strtab_len(a->str, i) != strtab_len(b->str, i) ||
             memcmp(strtab_get(a->str, i), strtab_get(b->str, i), strtab_len(a->str, i)) != 0);
    for (uint32_t s = 0; s < a->nslices; s++) {
        DIFF(a->start[s] != b->start[s] || a->dur[s] != b->dur[s]);
        DIFF(a->name[s] != b->name[s] || a->cat[s] != b->cat[s]);
        DIFF(a->lane[s] != b->lane[s] || a->depth[s] != b->depth[s]);
        DIFF(a->file[s] != b->file[s] || a->off[s] != b->off[s] || a->len[s] != b->len[s]);
    }
    for (uint32_t p = 0; p < a->nprocs; p++) {
        const struct proc *x = &a->procs[p], *y = &b->procs[p];
        DIFF(x->key != y->key || x->name != y->name || x->labels != y->labels);
        DIFF(x->sort_index != y->sort_index || x->kind != y->kind);
        DIFF(x->first_lane != y->first_lane || x->nlanes != y->nlanes);
    }
    for (uint32_t l = 0; l < a->nlanes; l++) {
        const struct lane *x = &a->lanes[l], *y = &b->lanes[l];
        DIFF(x->proc != y->proc || x->key != y->key || x->name != y->name || x->sort_index != y->sort_index);
        DIFF(x->kind != y->kind || x->first != y->first || x->count != y->count || x->ndepth != y->ndepth);
        DIFF(a->lane_build_to_final[l] != b->lane_build_to_final[l]);
    }
    for (size_t f = 0; f < a->nflows; f++) {
        const struct flow *x = &a->flows[f], *y = &b->flows[f];
        DIFF(x->cat != y->cat || x->name != y->name || x->id != y->id || x->id_is_str != y->id_is_str);
        DIFF(x->src != y->src || x->dst != y->dst || x->src_lane != y->src_lane || x->dst_lane != y->dst_lane);
        DIFF(x->src_ts != y->src_ts || x->dst_ts != y->dst_ts);
    }
    for (uint32_t c = 0; c < a->ncounters; c++) {
        const struct counter_track *x = &a->counters[c], *y = &b->counters[c];
        DIFF(x->proc != y->proc || x->name != y->name || x->unit != y->unit || x->n != y->n);
        for (size_t k = 0; k < x->n; k++)
            DIFF(x->ts[k] != y->ts[k] || x->value[k] != y->value[k]);
    }
#undef DIFF
    return 1;
}

static int same_diags(struct diag *a, struct diag *b, const char *what)
{
    if (diag_count(a) != diag_count(b)) {
        test_fail(__FILE__, __LINE__, "%s: %zu messages, expected %zu", what, diag_count(b), diag_count(a));
        for (size_t i = 0; i < diag_count(b); i++) {
            char x[600];
            diag_format(b, i, x, sizeof x);
            fprintf(stderr, "    got: %s\n", x);
        }
        return 0;
    }
    for (size_t i = 0; i < diag_count(a); i++) {
        char x[1200], y[1200];
        diag_format(a, i, x, sizeof x);
        diag_format(b, i, y, sizeof y);
        if (strcmp(x, y)) {
            test_fail(__FILE__, __LINE__, "%s: message %zu is \"%s\", expected \"%s\"", what, i, y, x);
            return 0;
        }
    }
    return 1;
}

static struct loaded load_mem(const char *doc, size_t len)
{
    struct loaded l = { model_new(TIME_LOCAL_US), diag_new(), 0 };
    l.rc = trace_json_load_buffer(l.m, "t.json", doc, len, l.d);
    model_finalize(l.m);
    return l;
}

/* Loads doc with the boundary search starting at every step-th offset (and a few chunk sizes);
 * every load must equal the one-reader load. Counts loads that were split (*used) and
 * those whose guess the first reader rejected (*rejected). */
static int loads_shared;   /* loads of split_everywhere that merged more than two parts */

static void split_everywhere(const char *doc, size_t len, size_t step, const char *what, int *used, int *rejected)
{
    trace_json_set_split(UINT64_MAX, UINT64_MAX);
    struct loaded ref = load_mem(doc, len);
    CHECK_INT(trace_json_last_split(NULL), 0);
    static const size_t chunks[] = { 4u << 20, 64, 97 };
    for (size_t from = 0; from < len && !test_failed_now(); from += step) {
        trace_json_set_chunk_size(chunks[(from / step) % 3]);
        trace_json_set_split(0, from);
        model_set_thread_min((from / step) % 2 ? 0 : SIZE_MAX);   /* finalize's threads too */
        struct loaded l = load_mem(doc, len);
        uint64_t at = 0;
        int how = trace_json_last_split(&at);
        *used += how == 1;
        *rejected += how == 2;
        loads_shared += trace_json_last_parts() > 2;
        char w[200];
        snprintf(w, sizeof w, "%s, search from byte %zu (split %d at %llu)", what, from, how, (unsigned long long)at);
        CHECK_INT(l.rc, ref.rc);
        if (same_model(ref.m, l.m, w))
            same_diags(ref.d, l.d, w);
        unload(&l);
    }
    trace_json_set_chunk_size(4u << 20);
    trace_json_set_split(32u << 20, UINT64_MAX);
    model_set_thread_min(100000);
    unload(&ref);
}

/* A trace with something to get wrong at every boundary: B/E pairs open across many events,
 * E without B, metadata late, strings holding "}, {" and escaped quotes, string and number
 * flow ids, counters named weakly, invalid UTF-8 and more than MAX_WARN warnings. */
static char *mixed_doc(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
#define PUT(...) (n += (size_t)snprintf(b + n, cap - n, __VA_ARGS__))
    PUT("[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n");
    PUT("{\"ph\":\"B\",\"name\":\"outer\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"k\":1}},\n");
    PUT("{\"ph\":\"B\",\"name\":\"mid\",\"pid\":1,\"tid\":1,\"ts\":2},\n");
    PUT("{\"ph\":\"E\",\"pid\":1,\"tid\":9,\"ts\":2},\n");   /* E without B */
    for (int i = 0; i < 14; i++) {
        PUT("{\"ph\":\"X\",\"name\":\"k%d \\\"q\\\" }, {\\\"ph\\\":\\\"X\\\"}, {\",\"cat\":\"kernel\",\"pid\":2,\"tid\":%d,"
            "\"ts\":\"%d.%03d\",\"dur\":1.5,\"args\":{\"s\":\"}, {\\\"ph\\\":1}\",\"n\":[{\"a\":1}, {\"b\":2}]}},\n",
            i % 3, 3 + i % 2, 10 + i, i * 7);
        if (i % 4 == 1)
            PUT("{\"ph\":\"s\",\"id\":%s,\"cat\":\"async_npu\",\"name\":\"async_npu%d\",\"pid\":1,\"tid\":1,\"ts\":%d},\n",
                i % 8 == 1 ? "\"77\"" : "\"x-id\"", 77, 10 + i);
        if (i % 4 == 3)
            PUT("{\"ph\":\"f\",\"bp\":\"e\",\"id\":%s,\"cat\":\"async_npu\",\"name\":\"async_npu\",\"pid\":2,\"tid\":3,\"ts\":%d},\n",
                i % 8 == 3 ? "77" : "\"x-id\"", 10 + i);
        if (i % 5 == 2)
            PUT("{\"ph\":\"C\",\"name\":\"Freq\",\"processName\":\"W%d\",\"pid\":5,\"tid\":0,\"ts\":%d,\"args\":{\"MHz\":%d,\"x\":%d.5}},\n",
                i, 10 + i, 1000 + i, i);
        if (i % 3 == 0)
            PUT("{\"ph\":\"X\",\"name\":\"bad%d\",\"pid\":2,\"tid\":3,\"ts\":%s,\"dur\":1},\n", i, i % 2 ? "true" : "\"x\"");
        if (i == 6)
            PUT("{\"ph\":\"X\",\"name\":\"utf\xff%d\",\"pid\":2,\"tid\":4,\"ts\":%d,\"dur\":0},\n", i, 12 + i);
        if (i == 7)
            PUT("{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":30},\n");   /* closes "mid" */
        if (i == 9)
            PUT("42, \"str\", [1, {\"ph\":\"X\"}],\n{\"ph\":\"B\",\"name\":\"late\",\"pid\":1,\"tid\":1,\"ts\":31},\n");
        if (i == 10)
            PUT("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":3,\"args\":{\"name\":\"Stream %d\"}},\n", i);
    }
    /* same start and duration on one lane in both halves: build order decides */
    PUT("{\"ph\":\"X\",\"name\":\"twin\",\"pid\":2,\"tid\":4,\"ts\":40,\"dur\":2},\n");
    PUT("{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":41},\n");   /* closes "late" */
    PUT("{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":42},\n");   /* closes "outer" */
    PUT("{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":43},\n");   /* nothing open */
    PUT("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"tid\":0,\"args\":{\"name\":\"Freq proc\"}},\n");
    PUT("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":2,\"tid\":0,\"args\":{\"sort_index\":-1}},\n");
    PUT("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"tid\":0,\"args\":{\"labels\":\"\"}},\n");
    PUT("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":2,\"tid\":4,\"args\":{\"sort_index\":3}},\n");
    PUT("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n");
    PUT("{\"ph\":\"C\",\"name\":\"Freq\",\"processName\":\"ignored\",\"pid\":5,\"tid\":0,\"ts\":50,\"args\":{\"MHz\":7}},\n");
    PUT("{\"ph\":\"B\",\"name\":\"open\",\"pid\":7,\"tid\":1,\"ts\":44},\n");
    PUT("{\"ph\":\"X\",\"name\":\"twin2\",\"pid\":2,\"tid\":4,\"ts\":40,\"dur\":2},\n");
    PUT("{\"ph\":\"f\",\"id\":\"x-id\",\"cat\":\"async_npu\",\"name\":\"new name\",\"pid\":7,\"tid\":1,\"ts\":45}\n]\n");
#undef PUT
    *len = n;
    return b;
}

TEST(trace_split_anywhere_same_model)
{
    size_t len;
    char *doc = mixed_doc(&len);
    int used = 0, rejected = 0;
    split_everywhere(doc, len, 3, "mixed", &used, &rejected);
    CHECK(used > 30);   /* most offsets find a real boundary */
    /* cut at a few places: inside an event, between events, after the array */
    static const size_t cuts[] = { 400, 1500, 2500 };
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts && !test_failed_now(); k++) {
        char w[32];
        snprintf(w, sizeof w, "mixed cut at %zu", cuts[k]);
        split_everywhere(doc, cuts[k] < len ? cuts[k] : len - 3, 13, w, &used, &rejected);
    }
    split_everywhere(doc, len - 3, 11, "mixed without ']'", &used, &rejected);
    free(doc);
}

/* args holding an array of objects with "ph": boundaries inside it look like event
 * boundaries; the first reader rejects them and reads on alone. */
TEST(trace_split_rejected_guess_same_model)
{
    const char *doc =
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"list\":["
        "{\"ph\":\"X\",\"n\":1}, {\"ph\":\"X\",\"n\":2}, {\"ph\":\"X\",\"n\":3}, {\"ph\":\"X\",\"n\":4}]}},\n"
        "{\"ph\":\"B\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":4}]";
    int used = 0, rejected = 0;
    split_everywhere(doc, strlen(doc), 1, "nested", &used, &rejected);
    CHECK(used > 0);
    CHECK(rejected > 0);
}

TEST(trace_split_object_form_same_model)
{
    const char *doc =
        "\xEF\xBB\xBF{\"displayTimeUnit\":\"ns\", \"traceEvents\" : [\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},\n"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
        "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
        "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":5},\n"
        "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1}\n"
        "], \"otherData\": {\"x\": [{\"ph\":\"X\"}, {\"ph\":\"X\"}]}, \"n\": 1} trailing";
    int used = 0, rejected = 0;
    split_everywhere(doc, strlen(doc), 1, "object", &used, &rejected);
    CHECK(used > 0);
    /* cut inside the object after the array, and inside the array */
    split_everywhere(doc, strlen(doc) - 30, 3, "object cut", &used, &rejected);
    split_everywhere(doc, 200, 3, "object cut in array", &used, &rejected);
    /* a second events array, left open: the first one's ']' counts for the file */
    const char *twice =
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}],\n"
        "\"traceEvents\":[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},\n"
        "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},\n"
        "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}";
    int used2 = 0;
    split_everywhere(twice, strlen(twice), 1, "two arrays", &used2, &rejected);
    CHECK(used2 > 0);
}

/* Events without pid and tid have a thread of their own (empty ids): never the first thread
 * read, and never a thread the model does not have (a second part starting with one). */
TEST(trace_no_pid_tid_own_lane)
{
    const char *doc = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                      "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1},\n"
                      "{\"ph\":\"B\",\"name\":\"c\",\"ts\":3},\n"
                      "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}]";
    struct loaded l = load_mem(doc, strlen(doc));
    CHECK_INT(l.m->nlanes, 2);
    CHECK_INT(l.m->nslices, 4);   /* c closed at the end of the trace */
    uint32_t lane_of[4] = { 0 };
    for (uint32_t i = 0; i < l.m->nslices && i < 4; i++) {
        const char *nm = strtab_get(l.m->str, l.m->name[i]);
        if (nm[0] >= 'a' && nm[0] <= 'd')
            lane_of[nm[0] - 'a'] = l.m->lane[i];
    }
    CHECK(lane_of[0] == lane_of[3]);
    CHECK(lane_of[1] == lane_of[2]);
    CHECK(lane_of[0] != lane_of[1]);
    unload(&l);
    int used = 0, rejected = 0;   /* and read in parts: the same */
    split_everywhere(doc, strlen(doc), 1, "no pid and tid", &used, &rejected);
    CHECK(used > 0);
}

/* A reader done first takes over half of the other's rest, again and again when sharing
 * starts at 2 bytes: every load equals the one-reader load, wrong guesses at the new cuts
 * (strings and args that look like event boundaries) included. Which reader takes over
 * depends on the threads' timing: the loads are repeated. */
TEST(trace_split_shared_parts_same_model)
{
    size_t len;
    char *doc = mixed_doc(&len);
    int used = 0, rejected = 0;
    const char *nested =
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"list\":["
        "{\"ph\":\"X\",\"n\":1}, {\"ph\":\"X\",\"n\":2}, {\"ph\":\"X\",\"n\":3}, {\"ph\":\"X\",\"n\":4}]}},\n"
        "{\"ph\":\"B\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
        "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1,\"args\":{\"s\":\"}, {\\\"ph\\\":\\\"X\\\"}\"}},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":6}]";
    trace_json_set_sharing(2);
    loads_shared = 0;
    /* repeated for other thread interleavings; once under qemu-user, where a pass is slow */
    int reps = test_emulated(NULL) ? 1 : 3;
    for (int rep = 0; rep < reps && !test_failed_now(); rep++) {
        split_everywhere(doc, len, 5, "mixed, shared", &used, &rejected);
        split_everywhere(nested, strlen(nested), 1, "nested, shared", &used, &rejected);
    }
    trace_json_set_sharing(8u << 20);
    printf("  %d of the loads merged more than two parts\n", loads_shared);
    CHECK(loads_shared > 0);
    CHECK(used > 0);
    free(doc);
}

/* From a file: two readers with pread, progress ends at the file's size and event count. */
TEST(trace_split_file_progress)
{
    char path[] = "/tmp/aptop_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    size_t len;
    char *doc = mixed_doc(&len);
    CHECK_INT(write(fd, doc, len), (long long)len);
    close(fd);
    trace_json_set_split(UINT64_MAX, UINT64_MAX);
    struct loaded ref = load_mem(doc, len);
    /* each place read in turn mapped (in place) and copied by pread */
    for (size_t from = 0; from < 2 * len && !test_failed_now(); from += 97) {
        trace_json_set_mapping(from < len ? 0 : UINT64_MAX);
        trace_json_set_split(0, from % len);
        trace_json_set_chunk_size(from % 2 ? 64 : 4u << 20);
        trace_json_set_sharing(from % 3 ? 8u << 20 : 2);   /* and parts taken over */
        struct loaded l = { model_new(TIME_LOCAL_US), diag_new(), 0 };
        struct load_progress p = { 0 };
        l.rc = trace_json_load(l.m, path, l.d, &p);
        int how = trace_json_last_split(NULL);
        CHECK_INT(p.bytes_done, len);
        CHECK_INT(p.bytes_total, len);
        CHECK_INT(p.events, ref.m->events);
        model_finalize(l.m);
        char w[64];
        snprintf(w, sizeof w, "file %s, from %zu (split %d)", from < len ? "mapped" : "read", from % len, how);
        for (size_t i = 0; i < diag_count(l.d); i++) {   /* the same messages, other path */
            char x[1200];
            diag_format(l.d, i, x, sizeof x);
            CHECK(strncmp(x, path, strlen(path)) == 0);
        }
        CHECK_INT(diag_count(l.d), diag_count(ref.d));
        same_model(ref.m, l.m, w);
        unload(&l);
    }
    trace_json_set_chunk_size(4u << 20);
    trace_json_set_split(32u << 20, UINT64_MAX);
    trace_json_set_mapping(1u << 20);
    trace_json_set_sharing(8u << 20);
    unload(&ref);
    free(doc);
    unlink(path);
}

/* Cancelled before the first chunk: both readers stop, one message, a valid model. */
TEST(trace_split_cancel)
{
    char path[] = "/tmp/aptop_trace_XXXXXX";
    FILE *f = temp_trace(path);
    if (!f)
        return;
    fputc('[', f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}", i ? ",\n" : "", i % 7, i * 2);
    fputc(']', f);
    fclose(f);
    for (int pass = 0; pass < 2; pass++) {
        struct model *m = model_new(TIME_LOCAL_US);
        struct diag *d = diag_new();
        struct load_progress p = { 0 };
        atomic_store(&p.cancel, true);
        trace_json_set_chunk_size(4096);
        trace_json_set_split(0, pass ? 150 : UINT64_MAX);
        trace_json_load(m, path, d, &p);
        trace_json_set_chunk_size(4u << 20);
        trace_json_set_split(32u << 20, UINT64_MAX);
        CHECK(m->events < 400);
        CHECK_INT(diag_count(d), 1);
        CHECK(diag_has(d, "cancelled"));
        CHECK_INT(model_finalize(m), 0);
        model_free(m);
        diag_free(d);
    }
    unlink(path);
}

/* B events open across the boundary deeper than the reader keeps: the first reader reads on
 * alone from the boundary (the second part's stacks would have been cut elsewhere). */
TEST(trace_split_deep_b_stacks_read_on)
{
    size_t cap = 1 << 20, n = 0;
    char *doc = malloc(cap);
    size_t mid = 0;
    n += (size_t)snprintf(doc + n, cap - n, "[");
    for (int i = 0; i < 5000; i++) {
        if (i == 3000)
            mid = n;
        n += (size_t)snprintf(doc + n, cap - n, "%s{\"ph\":\"B\",\"name\":\"b%d\",\"pid\":1,\"tid\":1,\"ts\":%d}", i ? "," : "", i % 5, i);
    }
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(doc + n, cap - n, ",{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d}", 6000 + i);
    n += (size_t)snprintf(doc + n, cap - n, "]");
    trace_json_set_split(UINT64_MAX, UINT64_MAX);
    struct loaded ref = load_mem(doc, n);
    CHECK(diag_has(ref.d, "too many open B events"));
    trace_json_set_split(0, mid);
    struct loaded l = load_mem(doc, n);
    CHECK_INT(trace_json_last_split(NULL), 2);
    trace_json_set_split(32u << 20, UINT64_MAX);
    if (same_model(ref.m, l.m, "deep B"))
        same_diags(ref.d, l.d, "deep B");
    unload(&l);
    unload(&ref);
    free(doc);
}

static void *cancel_soon(void *arg)
{
    struct load_progress *p = arg;
    while (!atomic_load(&p->bytes_done))
        usleep(100);
    atomic_store(&p->cancel, true);
    return NULL;
}

/* Cancelled from another thread while both readers run: they stop, one message, a valid model. */
TEST(trace_split_cancel_while_reading)
{
    char path[] = "/tmp/aptop_trace_XXXXXX";
    FILE *f = temp_trace(path);
    if (!f)
        return;
    fputc('[', f);
    for (int i = 0; i < 40000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}", i ? ",\n" : "", i % 7, i % 3, i * 2);
    fputc(']', f);
    fclose(f);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    struct load_progress p = { 0 };
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, cancel_soon, &p), 0);
    trace_json_set_chunk_size(1024);
    trace_json_set_split(0, UINT64_MAX);
    trace_json_load(m, path, d, &p);
    pthread_join(th, NULL);
    trace_json_set_chunk_size(4u << 20);
    trace_json_set_split(32u << 20, UINT64_MAX);
    /* (a busy machine may let the load finish before the cancel lands) */
    CHECK(diag_count(d) <= 1);
    CHECK(!diag_has(d, "cancelled") || m->events < 40000);
    CHECK(diag_count(d) == 1 || m->events == 40000);
    CHECK_INT(model_finalize(m), 0);
    model_free(m);
    diag_free(d);
    unlink(path);
}

/* --- a file shrunk by another program while it is read ------------------------------------- */

struct shrinker { struct load_progress *p; const char *path; uint64_t to, done_then; };

/* Shrinks the file once the load has started reading it (the load is slowed by tiny chunks). */
static void *shrink_soon(void *arg)
{
    struct shrinker *s = arg;
    while (atomic_load(&s->p->bytes_done) < (64u << 10))
        ;
    s->done_then = atomic_load(&s->p->bytes_done);
    if (truncate(s->path, (off_t)s->to) != 0)
        s->done_then = UINT64_MAX;
    return NULL;
}

/* Mapped or read, cut mid-page or at a page (read past by a fault): what came before the new
 * end is kept, nothing after it, one message says so, and nothing crashes. */
TEST(trace_file_shrunk_while_read_says_so)
{
    static const uint64_t cuts[] = { (8u << 20) + 123, 8u << 20 };
    for (int k = 0; k < 4 && !test_failed_now(); k++) {
        if (k == 1 && test_emulated("s390x"))
            continue;   /* a fault's SIGBUS: qemu-s390x gives it a wrong address */
        char path[] = "/tmp/aptop_trace_XXXXXX";
        FILE *f = temp_trace(path);
        if (!f)
            return;
        fputc('[', f);
        uint64_t n = 0, before_cut = 0;
        while ((uint64_t)ftell(f) < (16u << 20)) {
            fprintf(f, "%s{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":1,\"ts\":%llu,\"dur\":1}", n ? ",\n" : "",
                    (int)(n % 7), (unsigned long long)n * 2);
            n++;
            if ((uint64_t)ftell(f) <= cuts[k % 2])
                before_cut = n;   /* events wholly before the cut */
        }
        fputc(']', f);
        fclose(f);
        trace_json_set_mapping(k < 2 ? 0 : UINT64_MAX);
        trace_json_set_chunk_size(64);
        struct model *m = model_new(TIME_LOCAL_US);
        struct diag *d = diag_new();
        struct load_progress p = { 0 };
        struct shrinker s = { &p, path, cuts[k % 2], 0 };
        pthread_t th;
        CHECK_INT(pthread_create(&th, NULL, shrink_soon, &s), 0);
        int rc = trace_json_load(m, path, d, &p);
        pthread_join(th, NULL);
        trace_json_set_chunk_size(4u << 20);
        trace_json_set_mapping(1u << 20);
        if (s.done_then >= cuts[k % 2]) {
            test_skip("the load read past the cut before the file was shrunk (a busy machine)");
        } else {
            CHECK_INT(rc, 0);
            CHECK(diag_has(d, "the file shrank from"));
            char want[64];
            snprintf(want, sizeof want, "nothing past byte %llu", (unsigned long long)cuts[k % 2]);
            CHECK(diag_has(d, want));
            CHECK(diag_count_level(d, DIAG_ERROR) >= 1);
            CHECK_INT(model_finalize(m), 0);
            CHECK_INT(m->nslices, before_cut);
            if (test_failed_now())
                fprintf(stderr, "    %s, cut at %llu\n", k < 2 ? "mapped" : "read", (unsigned long long)cuts[k % 2]);
        }
        model_free(m);
        diag_free(d);
        unlink(path);
    }
}
