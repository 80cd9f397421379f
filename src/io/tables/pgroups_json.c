#include "io/tables/pgroups_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/tables/comm_json.h"

#define PGROUPS_MAX_BYTES ((long)64 << 20)

static cJSON *read_json(const char *path, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_add(d, DIAG_WARN, path, "cannot open: %s; parallel groups not read", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && len <= PGROUPS_MAX_BYTES && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)len + 1);
    size_t got = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!buf) {
        diag_add(d, DIAG_WARN, path, "%s; parallel groups not read",
                 len > PGROUPS_MAX_BYTES ? "larger than 64 MiB" : "cannot be read");
        return NULL;
    }
    buf[got] = 0;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, got + 1, NULL, 1);
    free(buf);
    if (!root)
        diag_add(d, DIAG_WARN, path, "not valid JSON (%zu bytes); parallel groups not read", got);
    return root;
}

/* An integer rank: a JSON number, or a number kept as its text (io/tables/comm_json.h). */
static bool rank_of(const cJSON *v, int *out)
{
    const char *t = comm_json_num_text(v);
    if (t) {
        char *end;
        long x = strtol(t, &end, 10);
        if (*end || x < 0 || x > INT_MAX)
            return false;
        *out = (int)x;
        return true;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > INT_MAX || v->valuedouble != (int)v->valuedouble)
        return false;
    *out = (int)v->valuedouble;
    return true;
}

/* Adds the group of kind with the ranks of array a; -1 when memory ran out. */
static int add_array(struct pgroups *g, const char *kind, const cJSON *a)
{
    int n = cJSON_GetArraySize(a), k = 0;
    if (!cJSON_IsArray(a) || n <= 0)
        return 0;
    int *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (rank_of(it, &r[k]))
            k++;
    int rc = pgroups_add(g, kind, r, (size_t)k);
    free(r);
    return rc;
}

static struct pgroups *none_if_empty(struct pgroups *g)
{
    if (g && !g->n) {
        pgroups_free(g);
        return NULL;
    }
    return g;
}

struct pgroups *pgroups_read_metadata(const char *path, struct diag *d)
{
    cJSON *root = read_json(path, d);
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "parallel_group_info");
    struct pgroups *g = cJSON_IsObject(info) ? pgroups_new() : NULL;
    const cJSON *grp, *list = g ? info : NULL;
    cJSON_ArrayForEach(grp, list) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(grp, "group_name");
        const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(grp, "global_ranks");
        if (!cJSON_IsString(name) || !cJSON_IsArray(ranks)) {
            diag_add(d, DIAG_WARN, path, "parallel_group_info/%s: no group_name or global_ranks; group left out",
                     grp->string ? grp->string : "?");
            continue;
        }
        if (add_array(g, name->valuestring, ranks))
            break;
    }
    cJSON_Delete(root);
    return none_if_empty(g);
}

struct pgroups *pgroups_read_comm_group(const char *path, struct diag *d)
{
    cJSON *root = read_json(path, d);
    if (!root)
        return NULL;
    struct pgroups *g = pgroups_new();
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "comm_group_parallel_info");
    const cJSON *it;
    if (g && cJSON_IsArray(info)) {
        cJSON_ArrayForEach(it, info) {
            const cJSON *pg = cJSON_GetObjectItemCaseSensitive(it, "pg_name");
            const cJSON *set = cJSON_GetObjectItemCaseSensitive(it, "rank_set");
            const char *kind = cJSON_IsString(pg) && pg->valuestring[0] ? pg->valuestring : "collective";
            if (add_array(g, kind, set))
                break;
        }
    } else if (g) {
        /* the older form: the collective groups' rank lists, without names */
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "collective"))
            if (add_array(g, "collective", it))
                break;
    }
    if (g && !g->n)
        diag_add(d, DIAG_INFO, path, "no parallel group found (no comm_group_parallel_info or collective lists)");
    cJSON_Delete(root);
    return none_if_empty(g);
}

struct pgroups *pgroups_from_json(const cJSON *groups)
{
    if (!cJSON_IsObject(groups))
        return NULL;
    struct pgroups *g = pgroups_new();
    const cJSON *it, *list = g ? groups : NULL;
    cJSON_ArrayForEach(it, list)
        if (add_array(g, it->string, it))
            break;
    return none_if_empty(g);
}

char *pgroups_cluster_file(const char *root)
{
    static const char *const rel[] = { "/cluster_analysis_output/communication_group.json", "/communication_group.json" };
    struct stat st;
    for (int i = 0; root && i < 2; i++) {
        size_t n = strlen(root) + strlen(rel[i]) + 1;
        char *p = malloc(n);
        if (!p)
            return NULL;
        snprintf(p, n, "%s%s", root, rel[i]);
        /* the second form only when root is the cluster_analysis_output folder itself */
        bool fits = i == 0 || strstr(root, "cluster_analysis_output") != NULL;
        if (fits && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            return p;
        free(p);
    }
    return NULL;
}
