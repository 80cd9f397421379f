/* Private to capture discovery's files: capture.c (file kind names, the walk, grouping and
 * ordering ranks), capture_classify.c (what kind a file is), capture_clocks.c (loose timelines on different clocks), capture_fs.c (path helpers, directory listings), capture_ranks.c (the discovery context,
 * ranks and their files), capture_layout.c (rank ids from info files and names, the Class A
 * and B layouts, per-rank traces, plain folders) and capture_print.c (--list). Nothing else
 * includes this header. */
#ifndef APTOP_CAPTURE_INTERNAL_H
#define APTOP_CAPTURE_INTERNAL_H

#include "io/discovery/capture.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MAX_DEPTH       8       /* levels below the given folder searched for ranks */
#define MAX_ENTRIES     10000   /* entries read per directory */
#define MAX_RANKS       4096
#define MAX_FILES       2048    /* files per rank */
#define MAX_VISITED     20000   /* directories visited in one discovery */
#define SNIFF_BYTES     4096
#define HEAD_BYTES      (64 << 10)   /* JSON heads that need more (Kineto metadata, gzip) */
#define INFO_MAX_BYTES  (1 << 20)

struct entry { char *name; bool is_dir, is_reg; };
struct listing { struct entry *e; size_t n; int err; bool truncated; };

struct dev_ino { dev_t dev; ino_t ino; };

struct strlist { char **v; size_t n, cap; };

struct ctx {
    struct capture *c;
    struct diag *d;
    struct dev_ino *visited;
    size_t nvisited, capvisited;
    bool too_many_ranks;
    struct strlist walked;  /* folders whose every entry is read, walked or said skipped */
    struct strlist taken;   /* folders walked or scanned: not skipped */
};

/* capture_clocks.c: the trace files of rank ri on another clock than its first trace's
 * become captures of their own (one rank each, grouped by the file's path); when any did,
 * or own_capture is set (loose files beside other captures' folders), rank ri is grouped by
 * its first loadable file, a capture of its own too. */
void cap_split_by_clock(struct ctx *x, size_t ri, bool own_capture);

/* capture_classify.c */
bool cap_listable_name(const char *name);
bool cap_stem_digits(const char *name, const char *stem);
long cap_read_head(const char *path, char *buf, size_t n);
void cap_classify_file(struct capture_file *f);

/* capture.c */
void cap_account_skipped(struct ctx *x);
void cap_rank_free(struct capture_rank *r);

/* capture_fs.c */
bool cap_starts_with(const char *s, const char *p);
bool cap_ends_with_ci(const char *s, const char *suf);
char *cap_xstrdup(const char *s);
/* arr (n elements of elem bytes) moved to hold one more, zeroed, at [n]; memory running out
 * aborts, as cap_xstrdup does. */
void *cap_grow_one(void *arr, size_t n, size_t elem);
char *cap_join(const char *a, const char *b);
const char *cap_base_name(const char *path);
char *cap_dir_name(const char *path);
const char *cap_clean_base(const char *path, char *buf, size_t size);
void cap_list_dir(const char *dir, struct listing *l);
void cap_listing_free(struct listing *l);
const struct entry *cap_find_entry(const struct listing *l, const char *name, bool dir);
bool cap_has_dir_prefix(const struct listing *l, const char *prefix);
int cap_device_dir_id(const char *name);

/* capture_ranks.c */
void cap_strlist_add(struct strlist *l, const char *s);
void cap_strlist_free(struct strlist *l);
void cap_walked(struct ctx *x, const char *dir);
__attribute__((format(printf, 3, 4)))
void cap_skip_add(struct ctx *x, const char *path, const char *fmt, ...);
/* Appends a skipped artifact to c, taking path and why (both malloc'd). */
void cap_skip_take(struct capture *c, char *path, char *why);
bool cap_visit(struct ctx *x, const char *path);
struct capture_rank *cap_new_rank(struct ctx *x, const char *dir, const char *label,
                                  enum capture_class cls);
struct capture_file *cap_add_file(struct ctx *x, struct capture_rank *r, const char *path);
void cap_say_dropped(struct ctx *x, const char *dir, size_t dropped);
size_t cap_add_files_of(struct ctx *x, struct capture_rank *r, const char *dir,
                        const struct listing *l);
bool cap_is_clock_name(const char *name);
void cap_add_clock_files(struct ctx *x, struct capture_rank *r, const char *dir);
size_t cap_count_loadable(const struct capture_rank *r);

/* capture_layout.c */
int cap_rank_from_info(struct ctx *x, const char *path);
int cap_rank_from_name(const char *name);
void cap_set_rank(struct ctx *x, struct capture_rank *r, const char *name1, const char *name2);
void cap_set_group(struct capture_rank *r, const char *dir);
bool cap_has_legacy_device(const char *dir, const struct listing *l);
void cap_add_class_b(struct ctx *x, const char *dir, const struct listing *l);
void cap_add_class_a(struct ctx *x, const char *dir, const struct listing *l);
int cap_trace_rank(const char *path);
bool cap_add_trace_ranks(struct ctx *x, const char *dir, const struct listing *l);
bool cap_add_plain(struct ctx *x, const char *dir, const struct listing *l);
bool cap_is_rank_dir_name(const char *name);

#endif
