/* The lane labels of a Timeline frame: each shortened to its room so that no two different
 * names look the same on screen ("Thread 3140046" and "Thread 3140047" stay apart at every
 * width): the processes, the lanes and the counters of the rows shown, each kind shortened
 * together by the one middle-shortening rule (util/shorten.h). */
#include <stdlib.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/timeline/timeline.h"
#include "util/shorten.h"

/* The room of row r's name at label width lw (as draw_label lays it out). */
static int name_room(const struct timeline *t, const struct tl_row *r, int lw)
{
    const struct model *m = t->m;
    if (r->kind == TR_PROC) {
        int room = lw - 3;
        if (r->proc < t->nfolded && t->folded[r->proc])
            room -= 8;   /* " (count)" after a folded process */
        return room;
    }
    if (r->kind == TR_LANE)
        return lw - 4;
    char val[32] = "";
    double v;
    if (tl_counter_at(&m->counters[r->track], t->cur_t, &v))
        tl_fmt_value(v, val, sizeof val);
    int vw = (int)strlen(val);
    int nw = lw - 4 - (vw ? vw + 1 : 0);
    return nw > 3 ? nw : 3;
}

static const char *row_name(const struct timeline *t, const struct tl_row *r, size_t *len)
{
    const struct model *m = t->m;
    uint32_t id = r->kind == TR_PROC ? m->procs[r->proc].name
                : r->kind == TR_LANE ? m->lanes[r->lane].name : m->counters[r->track].name;
    *len = strlen(model_str(m, id));
    return model_str(m, id);
}

char *tl_short_labels(const struct timeline *t, size_t top, size_t count, int lw, size_t *cell)
{
    *cell = (size_t)(lw > 0 ? lw : 1) * 4 + 16;
    char *out = calloc(count ? count : 1, *cell);
    const char **names = malloc((count ? count : 1) * sizeof *names);
    size_t *lens = malloc((count ? count : 1) * sizeof *lens), *at = malloc((count ? count : 1) * sizeof *at);
    char *tmp = malloc((count ? count : 1) * *cell);
    if (!out || !names || !lens || !at || !tmp) {
        free(out);
        out = NULL;
        goto done;
    }
    for (int kind = TR_PROC; kind <= TR_COUNTER; kind++) {
        size_t n = 0;
        int width = lw;
        for (size_t k = 0; k < count && top + k < t->nrows; k++) {
            const struct tl_row *r = &t->rows[top + k];
            if (r->kind != kind || (kind == TR_LANE && r->depth))
                continue;
            names[n] = row_name(t, r, &lens[n]);
            int room = name_room(t, r, lw);
            if (room < width)
                width = room;
            at[n++] = k;
        }
        if (!n)
            continue;
        shorten_unique(names, lens, n, width > 1 ? width : 1, draw_utf8 ? "\xe2\x80\xa6" : "~", tmp, *cell);
        for (size_t i = 0; i < n; i++)
            memcpy(out + at[i] * *cell, tmp + i * *cell, *cell);
    }
done:
    free(names);
    free(lens);
    free(at);
    free(tmp);
    return out;
}
