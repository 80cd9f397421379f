/* Readers of the parallel groups (model/analysis/pgroups.h) a job's files name:
 *   profiler_metadata.json (torch_npu, one per rank): "parallel_group_info": {"group_name_N":
 *     {"group_name": "tp", "group_rank": 0, "global_ranks": [0, 1, 2, 3]}, ...};
 *   cluster_analysis_output/communication_group.json (the cluster analysis of a whole job):
 *     "comm_group_parallel_info": [{"type", "rank_set": [...], "group_name", "group_id",
 *     "pg_name": "tp"}, ...], else its "collective" lists of rank lists (kind "collective").
 * Each returns NULL when the file names no group (a metadata file without parallel groups is
 * normal); a file that cannot be read or is not JSON is said in d, naming it. */
#ifndef APTOP_PGROUPS_JSON_H
#define APTOP_PGROUPS_JSON_H
#include "model/index/diag.h"
#include "model/analysis/pgroups.h"

struct cJSON;

struct pgroups *pgroups_read_metadata(const char *path, struct diag *d);
struct pgroups *pgroups_read_comm_group(const char *path, struct diag *d);
/* The groups key of a ranks row ({"tp": [0, 1], ...}); NULL when it holds none. */
struct pgroups *pgroups_from_json(const struct cJSON *groups);
/* The cluster file beside a capture's rank folders: root/cluster_analysis_output/
 * communication_group.json, or root itself when it is that folder; NULL when absent
 * (malloc'd path otherwise). */
char *pgroups_cluster_file(const char *root);

#endif
