/* Capture discovery: from any path a user may type, find the ranks and the files of each,
 * classify them (by content where names may lie) and say what is wrong, without reading
 * events. Never writes anything. See README "Formats" for the layouts recognised. */
#ifndef APTOP_CAPTURE_H
#define APTOP_CAPTURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "io/discovery/file_kinds.h"
#include "model/index/diag.h"

enum capture_class { CLASS_UNKNOWN, CLASS_A /* torch_npu ..._ascend_pt, ASCEND_PROFILER_OUTPUT */, CLASS_B /* PROF_* */ };

/* One value per row of FILE_KINDS (io/discovery/file_kinds.h), in its order. */
#define FK_ENUM_VALUE(id, ...) id,
enum file_kind { FILE_KINDS(FK_ENUM_VALUE) FK_COUNT };
#undef FK_ENUM_VALUE
const char *file_kind_name(enum file_kind k);
/* The table kind (enum table_kind, model/session.h) a CSV file of kind k becomes, -1 when
 * none: the table column of FILE_KINDS. */
int file_kind_table(enum file_kind k);
/* "A", "B" or "?". */
const char *capture_class_name(enum capture_class c);

struct capture_file {
    char *path;
    enum file_kind kind;
    uint64_t size;
    char *problem;          /* NULL when fine, else e.g. "0-byte file", "not readable" */
    char *skipped;          /* NULL when read, else why not (e.g. its events are in the merged
                             * msprof_*.json beside it): listed, never loaded */
    char *merge;            /* skipped as a component: the path of its iteration's merge, which
                             * it stands in for when that merge cannot be read at all */
};

/* Something discovery saw and did not read (a file, or a folder not walked), with why. */
struct capture_skip {
    char *path;
    char *why;
};

struct capture_rank {
    int rank;               /* from profiler_info*.json, else the directory name, else order */
    int device;             /* -1 when unknown */
    char *dir;              /* the rank's directory (or the file's directory) */
    char *label;            /* short name for display: the directory name */
    enum capture_class cls;
    struct capture_file *files;
    size_t nfiles;
    char *problem;          /* e.g. not analysed yet, with the Python line to run */
    char *group;            /* the capture it belongs to: the folder holding its rank folders */
};

struct capture {
    char *root;             /* the path as given */
    struct capture_rank *ranks;     /* the ranks of one capture: these are loaded */
    size_t nranks;
    struct capture_skip *skipped;   /* every artifact seen and not read, with why */
    size_t nskipped;
    /* Unrelated captures found under root (ranks of other groups): listed, not loaded, so
     * that ranks of different jobs are never compared as ranks of one. */
    struct capture_rank *other;
    size_t nother;
    size_t ngroups;                 /* captures found: 1 + the groups in other */
};

/* Returns 0 when at least one rank has a loadable file, 1 otherwise; problems go to d
 * (one clear line naming the path). Fills *out in both cases (free with capture_free). */
int capture_discover(const char *path, struct capture *out, struct diag *d);
void capture_free(struct capture *c);
/* Prints the `aptop --list` form: per rank the class, files with sizes, problems. */
void capture_print(const struct capture *c, FILE *fp);
/* A file a reader can load: a data kind (not info/metadata/other), no problem, not skipped. */
bool capture_file_loadable(const struct capture_file *f);

#endif
