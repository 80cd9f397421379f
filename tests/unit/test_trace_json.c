/* The streaming trace reader: exact numbers, field types, metadata, broken files, chunk
 * boundaries, lazy args, and real captures checked against Python's json module. */
#include "../runner.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/trace_args.h"
#include "io/trace_json.h"
#include "model/diag.h"
#include "model/model.h"

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
    CHECK_INT(m->unknown_ph, 1);
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
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
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
