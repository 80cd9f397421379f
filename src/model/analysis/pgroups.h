/* Parallel groups of a job: which ranks work together as tensor, data, pipeline or expert
 * parallel groups (tp, dp, pp, ep, ... as the job named them).
 *
 * Data flow: io/tables/pgroups_json.c reads them from a rank's profiler_metadata.json
 * (parallel_group_info: group_name and global_ranks per group the rank belongs to), from a
 * cluster's cluster_analysis_output/communication_group.json (comm_group_parallel_info:
 * pg_name and rank_set per group), or from a summary file's ranks rows (their groups key).
 * Each rank's groups go to rank_data.groups, the cluster file's to session.cluster_groups;
 * pgroups_of_session merges them (a group is its kind and its set of ranks; the same group
 * read twice counts once). The ranks section prints each rank's groups, the Ranks view a short
 * label per rank. The group named "default_group" (every rank of the job) is left out: it
 * groups nothing. Nothing here reads files or knows curses. */
#ifndef APTOP_PGROUPS_H
#define APTOP_PGROUPS_H
#include <stdbool.h>
#include <stddef.h>

struct session;

struct pgroup {
    char kind[24];      /* lower case, as the job named it: "tp", "dp", "pp", "ep", "dp_cp" */
    int *ranks;         /* global ranks, ascending, no repeats */
    size_t n;
};

struct pgroups {
    struct pgroup *v;
    size_t n;
};

struct pgroups *pgroups_new(void);
void pgroups_free(struct pgroups *g);
/* Adds a group (ranks copied, sorted, repeats dropped) unless the same kind and ranks are
 * there already or the kind is "default_group". 0, or -1 when memory ran out. */
int pgroups_add(struct pgroups *g, const char *kind, const int *ranks, size_t n);
/* Every group of the session's ranks and of its cluster file, in a fixed order: by kind
 * (tp, dp, pp, ep, cp first, then the others by name), then by lowest rank. NULL when the
 * session has none (or memory ran out). Caller frees. */
struct pgroups *pgroups_of_session(const struct session *s);
/* The groups holding rank as a JSON object, kinds in that order, one group per kind (the
 * first): {"tp": [0, 1, 2, 3], "dp": [1, 5]}. "{}" when none. */
const char *pgroups_rank_json(const struct pgroups *all, int rank, char *buf, size_t size);
/* The same as a short label: each kind with the number of its group among the kind's
 * groups (by lowest rank, from 0): "tp0 dp1 pp0". "" when none. */
const char *pgroups_rank_label(const struct pgroups *all, int rank, char *buf, size_t size);

#endif
