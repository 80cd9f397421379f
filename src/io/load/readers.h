/* Loading one rank: picks the files to read (text or DB), runs each reader in order, then
 * the analyses that need the results (joins, steps, flow chains), and hands every finished
 * part to the caller as soon as it is ready. Runs on the loader thread or synchronously. */
#ifndef APTOP_READERS_H
#define APTOP_READERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/discovery/capture.h"
#include "io/cache/index_cache.h"
#include "model/index/progress.h"
#include "model/index/session.h"

enum reader_part { RP_MODEL, RP_TABLE, RP_COMM, RP_STEPS, RP_FLOWSTATS, RP_DIGEST, RP_GROUPS, RP_MEMORY };

/* Receives ownership of ptr; table is the table kind for RP_TABLE. */
typedef void (*reader_handover_fn)(void *ctx, size_t rank, enum reader_part kind, int table, void *ptr);

/* Files that readers_load_rank will read. */
uint64_t readers_count_files(const struct capture_rank *cr, bool prefer_db);
/* What loading a rank found besides its parts. */
struct reader_result {
    unsigned files;     /* files read (each part of a table counts) */
    int device;         /* the device its kernel table names (one Device_id throughout), else -1 */
};
/* Loads one rank (cache: the index cache, NULL for none); returns the number of parts handed over; writes a one-line status and
 * (out, may be NULL) what else it found. */
int readers_load_rank(const struct capture_rank *cr, size_t rank_index, bool prefer_db,
                      const struct cache_opts *cache, struct diag *d, struct load_progress *p,
                      reader_handover_fn hand_over, void *ctx, char *status, size_t status_size,
                      struct reader_result *out);
/* The rank is read from its DB export (only DB files, or --prefer db): what readers_load_rank chooses. */
bool readers_use_db(const struct capture_rank *cr, bool prefer_db);
/* Frees every part of a rank_data (the session owns installed parts). */
void readers_free_parts(struct rank_data *rd);

#endif
