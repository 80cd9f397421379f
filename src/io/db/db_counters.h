/* The counter families of a DB export (sampled device figures) as counter tracks of the
 * model, one process per family (and device, when the table holds several), named like the
 * text export's counter processes, with the unit in every series name:
 *
 *   AICORE_FREQ           "AI Core Freq"    AI Core Freq (MHz)
 *   NPU_MEM               "NPU MEM"         APP/DDR, APP/HBM, APP/Memory (= DDR + HBM),
 *                                           Device/... (KB: the table's bytes / 1024)
 *   NPU_MODULE_MEM        "NPU Module Mem"  <ENUM_MODULE name> reserved (KB), for the modules
 *                                           that ever reserved memory (the others said)
 *   HBM                   "HBM"             HBM <hbmId>/Read, /Write (B/s)
 *   DDR                   "DDR"             DDR/Read, DDR/Write (B/s)
 *   LLC                   "LLC"             LLC <llcId> <mode>/Hit Rate (%), /Throughput (B/s)
 *   ACC_PMU               "Acc PMU"         Acc <accId>/read_bandwidth, write_bandwidth,
 *                                           read_ost, write_ost (levels)
 *   SOC_BANDWIDTH_LEVEL   "Stars Soc Info"  L2 Buffer Bw Level, Mata Bw Level (levels)
 *   HCCS, PCIE, NIC,      the table name    every other numeric column, per funcId when
 *   ROCE, QOS                               there is one (B/s for throughput/bandwidth
 *                                           columns, as the msprof DB stores them)
 *
 * Units are the DB's own (bytes, B/s, %, MHz; memory shown in KB as the text export does),
 * so no figure is rescaled by a guessed factor. A family whose table lacks the columns it
 * needs is skipped with a message naming the table. */
#ifndef APTOP_DB_COUNTERS_H
#define APTOP_DB_COUNTERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/index/diag.h"
#include "model/index/model.h"

struct dbc_ctx {
    sqlite3 *db;
    const char *path;
    struct diag *d;
    struct model *m;
    /* the text of STRING_IDS id (NULL when unknown); the reader's own resolution */
    const char *(*string)(void *arg, int64_t id);
    /* called per row; returns false to stop (cancelled) */
    bool (*tick)(void *arg);
    void *arg;
};

/* Reads every counter family present. Returns the number of samples added. */
uint64_t db_read_counters(const struct dbc_ctx *x);

#endif
