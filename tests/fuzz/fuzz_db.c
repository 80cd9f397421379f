/* libFuzzer target for the DB reader: the input is written to a temporary file (the reader
 * opens files by path, read-only) and loaded with db_load and db_analysis_read. Inputs that
 * do not start with the SQLite header are given one, so the fuzzer reaches the page parser
 * quickly; seed it with small real DBs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/db/db_reader.h"
#include "model/analysis/comm.h"
#include "model/index/model.h"
#include "model/index/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/aptop_fuzz_db_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    static const char magic[16] = "SQLite format 3";
    if (size < 16 || memcmp(data, magic, 16)) {
        if (write(fd, magic, 16) != 16) {
            close(fd);
            unlink(path);
            return 0;
        }
    }
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    db_load(path, &rd, d, NULL);
    db_load_analysis(path, &rd, d);
    db_analysis_free(db_analysis_read(path, d));
    comm_free(rd.comm);
    model_free(rd.model);
    for (int i = 0; i < TK_COUNT; i++)
        table_free(rd.tables[i]);
    diag_free(d);
    unlink(path);
    return 0;
}
