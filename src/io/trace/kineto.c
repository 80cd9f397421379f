/* Kineto trace specifics: top-level metadata and the process kinds. See kineto.h. */
#include "io/trace/kineto.h"
#include "util/free_all.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n == k && !memcmp(s, lit, k);
}

enum kineto_key kineto_top_key(const char *key, size_t n)
{
    if (n < 2)
        return KK_NONE;
    key++;
    n -= 2;
    if (is(key, n, "schemaVersion"))
        return KK_SCHEMA;
    if (is(key, n, "deviceProperties"))
        return KK_DEVICES;
    if (is(key, n, "distributedInfo"))
        return KK_DIST;
    if (is(key, n, "baseTimeNanoseconds"))
        return KK_BASE;
    return KK_NONE;
}

/* An integer written in decimal (no fraction, no exponent), exactly. */
static bool exact_int(const char *v, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && v[i] == '-')
        neg = true, i++;
    if (i == n)
        return false;
    uint64_t x = 0;
    for (; i < n; i++) {
        if (!isdigit((unsigned char)v[i]) || x > (uint64_t)INT64_MAX / 10)
            return false;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return true;
}

static bool json_int(const cJSON *j, int64_t *out)
{
    if (!cJSON_IsNumber(j) || j->valuedouble != j->valuedouble || j->valuedouble < -9e15 || j->valuedouble > 9e15)
        return false;
    *out = (int64_t)j->valuedouble;
    return (double)*out == j->valuedouble;
}

void kineto_top_value(struct kineto_meta *k, enum kineto_key key, const char *v, size_t n)
{
    if (key == KK_NONE)
        return;
    k->seen = true;
    if (key == KK_SCHEMA || key == KK_BASE) {
        int64_t x;
        if (!exact_int(v, n, &x))
            return;
        if (key == KK_SCHEMA)
            k->schema = x, k->has_schema = true;
        else
            k->base_ns = x, k->has_base = true;
        return;
    }
    cJSON *j = cJSON_ParseWithLength(v, n);
    if (!j)
        return;
    if (key == KK_DEVICES && cJSON_IsArray(j)) {
        const cJSON *d;
        cJSON_ArrayForEach(d, j) {
            int64_t id;
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
            if (json_int(cJSON_GetObjectItemCaseSensitive(d, "id"), &id) && id >= 0 && id < KINETO_MAX_DEVICES &&
                cJSON_IsString(name))
                snprintf(k->dev_name[id], sizeof k->dev_name[id], "%s", name->valuestring);
        }
    } else if (key == KK_DIST && cJSON_IsObject(j)) {
        int64_t x;
        if (json_int(cJSON_GetObjectItemCaseSensitive(j, "rank"), &x) && x >= 0)
            k->rank = x, k->has_rank = true;
        if (json_int(cJSON_GetObjectItemCaseSensitive(j, "world_size"), &x))
            k->world_size = x;
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "backend");
        if (cJSON_IsString(b))
            snprintf(k->backend, sizeof k->backend, "%s", b->valuestring);
    }
    cJSON_Delete(j);
}

void kineto_merge(struct kineto_meta *dst, const struct kineto_meta *src)
{
    dst->seen |= src->seen;
    if (!dst->has_schema && src->has_schema)
        dst->schema = src->schema, dst->has_schema = true;
    if (!dst->has_base && src->has_base)
        dst->base_ns = src->base_ns, dst->has_base = true;
    if (!dst->has_rank && src->has_rank) {
        dst->rank = src->rank, dst->has_rank = true;
        dst->world_size = src->world_size;
        memcpy(dst->backend, src->backend, sizeof dst->backend);
    }
    for (int i = 0; i < KINETO_MAX_DEVICES; i++)
        if (!dst->dev_name[i][0])
            memcpy(dst->dev_name[i], src->dev_name[i], sizeof dst->dev_name[i]);
}

bool kineto_is_gpu_annotation(const char *cat, size_t n)
{
    return is(cat, n, "gpu_user_annotation") || is(cat, n, "cuda_sync");
}

bool kineto_is_instant_slice(const char *cat, size_t n)
{
    return is(cat, n, "cpu_instant_event");
}

static bool ends_with(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n > k && !memcmp(s + n - k, lit, k);
}

enum kineto_launch_side kineto_launch_side(const char *cat, size_t n)
{
    if (n < 6)
        return KINETO_NO_LAUNCH;
    switch (cat[n - 1]) {   /* every trace event asks: most categories stop at their last byte */
    case 'l':
        return is(cat, n, "kernel") || is(cat, n, "Kernel") ? KINETO_LAUNCHED : KINETO_NO_LAUNCH;
    case 'y':
        return is(cat, n, "gpu_memcpy") || is(cat, n, "Memcpy") ? KINETO_LAUNCHED : KINETO_NO_LAUNCH;
    case 't':
        return is(cat, n, "gpu_memset") || is(cat, n, "Memset") ? KINETO_LAUNCHED : KINETO_NO_LAUNCH;
    case 'e':
        return is(cat, n, "Runtime") || ends_with(cat, n, "_runtime") ? KINETO_LAUNCH : KINETO_NO_LAUNCH;
    case 'r':
        return is(cat, n, "Driver") || ends_with(cat, n, "_driver") ? KINETO_LAUNCH : KINETO_NO_LAUNCH;
    }
    return KINETO_NO_LAUNCH;
}

static size_t skip_space(const char *s, size_t n, size_t k)
{
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r'))
        k++;
    return k;
}

/* The end of the JSON value starting at s[k] (a string, a number, a literal or a nested
 * object / array), n when it runs off the text. */
static size_t value_end(const char *s, size_t n, size_t k)
{
    if (k < n && s[k] == '"') {
        for (k++; k < n && s[k] != '"'; k += s[k] == '\\' ? 2 : 1)
            ;
        return k < n ? k + 1 : n;
    }
    int depth = 0;
    for (; k < n; k++) {
        char c = s[k];
        if (c == '"') {
            for (k++; k < n && s[k] != '"'; k += s[k] == '\\' ? 2 : 1)
                ;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth-- == 0)
                return k;
            if (depth == 0)
                return k + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
            return k;
        }
    }
    return n;
}

bool kineto_obj_value(const char *obj, size_t n, const char *key, const char **v, size_t *vlen)
{
    const size_t kl = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = obj[i];
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c == '"') {
            size_t j = i + 1;   /* past the string */
            while (j < n && obj[j] != '"')
                j += obj[j] == '\\' ? 2 : 1;
            if (depth == 1 && j - i - 1 == kl && !memcmp(obj + i + 1, key, kl)) {
                size_t k = skip_space(obj, n, j + 1);
                if (k < n && obj[k] == ':') {
                    k = skip_space(obj, n, k + 1);
                    *v = obj + k;
                    *vlen = value_end(obj, n, k) - k;
                    return *vlen > 0;
                }
            }
            i = j;
        }
    }
    return false;
}

bool kineto_obj_int(const char *obj, size_t n, const char *key, int64_t *out)
{
    const char *v;
    size_t vl, k = 0;
    if (!kineto_obj_value(obj, n, key, &v, &vl))
        return false;
    bool neg = vl && v[0] == '-';
    k = neg;
    uint64_t x = 0;
    size_t d0 = k;
    for (; k < vl && isdigit((unsigned char)v[k]); k++) {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(v[k] - '0');
    }
    /* an integer, not the start of a fraction or exponent */
    if (k == d0 || k != vl || x > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return true;
}

bool kineto_obj_str(const char *obj, size_t n, const char *key, const char **s, size_t *len)
{
    const char *v;
    size_t vl;
    if (!kineto_obj_value(obj, n, key, &v, &vl) || vl < 2 || v[0] != '"' || v[vl - 1] != '"')
        return false;
    *s = v + 1;
    *len = vl - 2;
    return true;
}

bool kineto_args_correlation(const char *args, size_t n, uint64_t *id)
{
    int64_t v;
    if (!kineto_obj_int(args, n, "correlation", &v) || v < 0)
        return false;
    *id = (uint64_t)v;
    return true;
}

/* "GPU 3" -> 3; else -1. */
static int gpu_label(const char *s)
{
    if (!s || strncmp(s, "GPU ", 4) || !isdigit((unsigned char)s[4]))
        return -1;
    char *e;
    long v = strtol(s + 4, &e, 10);
    return *e || v > 1000000 ? -1 : (int)v;
}

static int decimal(const char *s)
{
    if (!s || !*s)
        return -1;
    long v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > 1000000)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return (int)v;
}

enum { PF_DEVICE = 1, PF_HOST = 2, PF_MTIA = 4, PF_OTHER = 8 };

static uint32_t find_proc(const struct model *m, const char *key)
{
    for (uint32_t p = 0; p < m->nprocs; p++)
        if (!strcmp(strtab_get(m->str, m->procs[p].key), key))
            return p;
    return UINT32_MAX;
}

/* The interned ids of Kineto's device and host categories (UINT32_MAX: not in the trace):
 * the writers since 2022 first, then the 2021 writer's (Kernel, Memcpy, Memset on the
 * device; Operator and Runtime on the host). */
enum { NDEV = 7, NHOST = 9, DEV_MTIA = 6 };
struct kineto_cats { uint32_t dev[NDEV], host[NHOST], span; };

static void cats_find(const struct model *m, struct kineto_cats *c)
{
    /* MTIA's device work is "mtia_ccp_events", its runtime calls "mtia_runtime" */
    static const char *const dev_cats[NDEV] = { "kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset",
                                                "mtia_ccp_events" };
    static const char *const host_cats[NHOST] = { "cpu_op", "python_function", "cuda_runtime", "cuda_driver",
                                                  "user_annotation", "cpu_instant_event", "Operator", "Runtime",
                                                  "mtia_runtime" };
    for (int i = 0; i < NDEV; i++)
        c->dev[i] = strtab_find(m->str, dev_cats[i], strlen(dev_cats[i]));
    for (int i = 0; i < NHOST; i++)
        c->host[i] = strtab_find(m->str, host_cats[i], strlen(host_cats[i]));
    c->span = strtab_find(m->str, "Trace", 5);   /* the profiler's own span ("PyTorch Profiler (0)") */
}

/* Kineto by its top-level keys, or by the CUDA/HIP runtime categories only it writes (a
 * "kernel" category alone is not enough: other traces use the word; the 2021 "Runtime" only
 * beside its device categories), or by its process labels "GPU N" beside GPU work (a trace
 * cut before the rest). */
static bool is_kineto(const struct kineto_meta *k, const struct model *m, const struct kineto_cats *c)
{
    bool gpu_work = false, work_2021 = false;
    for (int i = 0; i < NDEV; i++) {
        gpu_work |= c->dev[i] != UINT32_MAX;
        work_2021 |= i >= 3 && i < DEV_MTIA && c->dev[i] != UINT32_MAX;
    }
    bool any = k->seen || c->host[2] != UINT32_MAX || c->host[3] != UINT32_MAX || c->host[8] != UINT32_MAX
            || (c->host[7] != UINT32_MAX && work_2021);
    for (uint32_t p = 0; p < m->nprocs && !any && gpu_work; p++)
        any = m->procs[p].labels && gpu_label(strtab_get(m->str, m->procs[p].labels)) >= 0;
    return any;
}

/* Which lanes (lf) and processes (pf) hold device work, host work or both. */
static void flag_work(const struct model *m, const struct kineto_cats *c, uint8_t *pf, uint8_t *lf)
{
    for (uint32_t i = 0; i < m->nslices; i++) {
        uint32_t cat = m->cat[i], l = m->lane[i];
        bool dev = false, host = false;
        for (int d = 0; d < NDEV && !dev; d++)
            dev = cat == c->dev[d];
        if (dev)
            lf[l] |= PF_DEVICE | (cat == c->dev[DEV_MTIA] ? PF_MTIA : 0);
        for (int h = 0; h < NHOST && !dev && !host; h++)
            host = cat == c->host[h];
        if (host)
            lf[l] |= PF_HOST;
        else if (!dev && cat != c->span)
            lf[l] |= PF_OTHER;
    }
    for (uint32_t l = 0; l < m->nlanes; l++)
        pf[m->lanes[l].proc] |= lf[l];
}

/* A GPU's pid may also hold host threads (python_function on "thread 0"): those lanes go to
 * a host process of their own. */
static void move_host_lanes(struct model *m, uint32_t nprocs, uint32_t nlanes, const uint8_t *pf, const uint8_t *lf)
{
    for (uint32_t l = 0; l < nlanes; l++) {
        uint32_t p = m->lanes[l].proc;
        if (!(pf[p] & PF_DEVICE) || (lf[l] & (PF_HOST | PF_DEVICE)) != PF_HOST)
            continue;
        char key[128];
        snprintf(key, sizeof key, "%s host", strtab_get(m->str, m->procs[p].key));
        uint32_t hp = model_proc(m, key, strlen(key));
        if (hp >= nprocs) {
            const char *pn = strtab_get(m->str, m->procs[p].name);
            model_set_process_name(m, hp, pn, strlen(pn));
            model_set_process_sort(m, hp, m->procs[p].sort_index);
            model_set_process_kind(m, hp, LANE_PYTHON);
        }
        model_move_lane(m, l, hp);
    }
}

/* The annotation process of pid (key KINETO_ANNOT_PREFIX pid): "GPU N annotations", sorted
 * beside its GPU. */
static void name_annotations(struct model *m, uint32_t p, const char *pid)
{
    char name[160];
    uint32_t gp = find_proc(m, pid);
    int gid = gp == UINT32_MAX ? -1 : gpu_label(m->procs[gp].labels ? strtab_get(m->str, m->procs[gp].labels) : NULL);
    snprintf(name, sizeof name, "GPU %d annotations", gid >= 0 ? gid : decimal(pid));
    model_set_process_name(m, p, name, strlen(name));
    if (gp != UINT32_MAX)
        model_set_process_sort(m, p, m->procs[gp].sort_index);
    model_set_process_kind(m, p, LANE_DEVICE_ANNOT);
}

/* A device process: "GPU N (device name)" by its label or pid; an MTIA's "MTIA N". */
static void name_gpu(const struct kineto_meta *k, struct model *m, uint32_t p, int id, const char *key, bool mtia)
{
    char name[160];
    const char *what = mtia ? "MTIA" : "GPU";
    if (id < 0)
        id = decimal(key);
    const char *dn = id >= 0 && id < KINETO_MAX_DEVICES && !mtia ? k->dev_name[id] : "";
    if (id >= 0 && dn[0])
        snprintf(name, sizeof name, "%s %d (%s)", what, id, dn);
    else if (id >= 0)
        snprintf(name, sizeof name, "%s %d", what, id);
    else
        snprintf(name, sizeof name, "%s %s", what, key);
    model_set_process_name(m, p, name, strlen(name));
    model_set_process_kind(m, p, LANE_DEVICE);
}

/* Names and kinds of the first nprocs processes; annot[p] set for annotation processes.
 * Returns the number of GPUs; *nmtia gets the number of MTIA devices. */
static size_t name_processes(const struct kineto_meta *k, struct model *m, uint32_t nprocs, const uint8_t *pf,
                             bool *annot, size_t *nmtia)
{
    size_t ngpu = 0;
    *nmtia = 0;
    for (uint32_t p = 0; p < nprocs; p++) {
        struct proc *pr = &m->procs[p];
        const char *key = strtab_get(m->str, pr->key);
        if (!strncmp(key, KINETO_ANNOT_PREFIX, strlen(KINETO_ANNOT_PREFIX))) {
            name_annotations(m, p, key + strlen(KINETO_ANNOT_PREFIX));
            annot[p] = true;
            continue;
        }
        if (lane_kind_from_process_name(strtab_get(m->str, pr->name)) != LANE_OTHER)
            continue;   /* named for what it is already ("Ascend Hardware", "CANN", ...) */
        if (pf[p] & PF_DEVICE) {
            bool mtia = (pf[p] & PF_MTIA) != 0;
            name_gpu(k, m, p, gpu_label(pr->labels ? strtab_get(m->str, pr->labels) : NULL), key, mtia);
            *nmtia += mtia;
            ngpu += !mtia;
        } else if (pf[p] & PF_HOST) {
            model_set_process_kind(m, p, LANE_PYTHON);
        }
    }
    return ngpu;
}

/* An annotation lane is named after its stream ("stream 7"). */
static void name_annotation_lanes(struct model *m, uint32_t nprocs, uint32_t nlanes, const bool *annot)
{
    char name[160];
    for (uint32_t l = 0; l < nlanes; l++)
        if (m->lanes[l].proc < nprocs && annot[m->lanes[l].proc] && !m->lanes[l].name) {
            snprintf(name, sizeof name, "stream %s", strtab_get(m->str, m->lanes[l].key));
            model_set_thread_name(m, l, name, strlen(name));
        }
}

/* Processes whose slices are of no category known as device or host work (an accelerator
 * whose writer names its work otherwise): said, with a category of theirs, rather than shown
 * as if the trace had no device. */
static void say_unknown_work(const struct model *m, struct diag *d, const char *path, uint32_t nprocs,
                             const uint8_t *pf, const bool *annot, size_t ndev)
{
    for (uint32_t p = 0; p < nprocs; p++) {
        if (annot[p] || (pf[p] & (PF_DEVICE | PF_HOST)) || !(pf[p] & PF_OTHER))
            continue;
        const char *cat = "";
        for (uint32_t s = 0; s < m->nslices && !cat[0]; s++)
            if (m->lane[s] < m->nlanes && m->lanes[m->lane[s]].proc == p && m->cat[s] != UINT32_MAX)
                cat = strtab_get(m->str, m->cat[s]);
        diag_add(d, DIAG_WARN, path, "process %s: its slices (category \"%s\") are not known device or host work: "
                 "shown as lanes of their own, never as kernels or device time%s",
                 strtab_get(m->str, m->procs[p].name ? m->procs[p].name : m->procs[p].key), cat,
                 ndev ? "" : " (this trace has no device lane aptop knows)");
    }
}

void kineto_finish(const struct kineto_meta *k, struct model *m, struct diag *d, const char *path)
{
    struct kineto_cats c;
    cats_find(m, &c);
    if (!is_kineto(k, m, &c) || !m->nprocs)
        return;
    uint32_t nprocs = m->nprocs, nlanes = m->nlanes;
    uint8_t *pf = calloc(nprocs, 1), *lf = calloc(nlanes ? nlanes : 1, 1);
    bool *annot = calloc(nprocs, sizeof *annot);
    if (!pf || !lf || !annot) {
        FREE_ALL(pf, lf, annot);
        return;
    }
    flag_work(m, &c, pf, lf);
    move_host_lanes(m, nprocs, nlanes, pf, lf);
    size_t nmtia, ngpu = name_processes(k, m, nprocs, pf, annot, &nmtia);
    name_annotation_lanes(m, nprocs, nlanes, annot);
    say_unknown_work(m, d, path, nprocs, pf, annot, ngpu + nmtia);
    FREE_ALL(annot, pf, lf);
    char rank[96] = "", devs[96];
    if (k->has_rank)
        snprintf(rank, sizeof rank, ", rank %lld of %lld (%s)", (long long)k->rank, (long long)k->world_size,
                 k->backend[0] ? k->backend : "backend not named");
    /* the devices it has, by kind: "1 GPU", "2 MTIA devices", "1 GPU and 1 MTIA device" */
    if (nmtia && ngpu)
        snprintf(devs, sizeof devs, "%zu GPU%s and %zu MTIA device%s", ngpu, ngpu == 1 ? "" : "s", nmtia,
                 nmtia == 1 ? "" : "s");
    else if (nmtia)
        snprintf(devs, sizeof devs, "%zu MTIA device%s", nmtia, nmtia == 1 ? "" : "s");
    else
        snprintf(devs, sizeof devs, "%zu GPU%s", ngpu, ngpu == 1 ? "" : "s");
    diag_add(d, DIAG_INFO, path, "PyTorch profiler (Kineto) trace%s: %s with events%s",
             k->has_schema ? "" : " without schemaVersion", devs, rank);
}

int kineto_gpu_of(const struct model *m)
{
    int gpu = -1;
    for (uint32_t p = 0; m && p < m->nprocs; p++) {
        const struct proc *pr = &m->procs[p];
        const char *name = strtab_get(m->str, pr->name);
        if (pr->kind != LANE_DEVICE || !name || strncmp(name, "GPU ", 4) || !isdigit((unsigned char)name[4]))
            continue;
        long v = strtol(name + 4, NULL, 10);
        if (v > 1000000 || (gpu >= 0 && gpu != (int)v))
            return -1;
        gpu = (int)v;
    }
    return gpu;
}

int kineto_rank_from_head(const char *buf, size_t n)
{
    const char *p = memmem(buf, n, "\"distributedInfo\"", 17);
    if (!p)
        return -1;
    const char *end = buf + n, *q = p + 17;
    /* the object is small and flat but for pg_config; find "rank" at its first level */
    while (q < end && *q != '{')
        q++;
    int depth = 0;
    for (; q < end; q++) {
        if (*q == '{' || *q == '[')
            depth++;
        else if (*q == '}' || *q == ']') {
            if (--depth == 0)
                return -1;
        } else if (*q == '"' && depth == 1 && end - q > 7 && !memcmp(q, "\"rank\"", 6)) {
            q += 6;
            while (q < end && (*q == ' ' || *q == ':' || *q == '\t' || *q == '\n' || *q == '\r'))
                q++;
            long v = 0;
            const char *s = q;
            while (q < end && isdigit((unsigned char)*q) && v < 10000000)
                v = v * 10 + (*q++ - '0');
            return q > s ? (int)v : -1;
        } else if (*q == '"') {
            /* skip a string */
            for (q++; q < end && *q != '"'; q++)
                if (*q == '\\')
                    q++;
        }
    }
    return -1;
}
