/* Render benchmark: draws frames of a pan/zoom sequence of the timeline into an off-screen
 * terminal (newterm on /dev/null) and prints per-frame times. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/draw.h"
#include "ui/timeline.h"
#include "ui/ui.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int timeline_bench(struct session *s, int frames, FILE *out)
{
    if (frames < 1)
        frames = 1;
    setlocale(LC_ALL, "");
    FILE *devnull = fopen("/dev/null", "w+");
    if (!devnull)
        return 1;
    SCREEN *scr = newterm("xterm-256color", devnull, devnull);
    if (!scr) {
        fclose(devnull);
        fprintf(out, "bench-render: no terminal description for xterm-256color\n");
        return 1;
    }
    set_term(scr);
    resizeterm(48, 200);
    draw_colors_init();

    struct ui ui;
    memset(&ui, 0, sizeof ui);
    ui.s = s;
    ui.rows = 48;
    ui.cols = 200;
    ui.body = newwin(46, 200, 1, 0);
    struct view v = { .ops = &view_timeline, .ui = &ui };
    v.priv = calloc(1, view_timeline.private_size);
    double *ms = calloc((size_t)frames, sizeof *ms);
    double *dm = calloc((size_t)frames, sizeof *dm);
    int rc = 0;
    if (!ui.body || !v.priv || !ms || !dm) {
        rc = 1;
        goto done;
    }
    /* the rank with the most slices */
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].model && (!s->ranks[ui.rank].model ||
                                  s->ranks[i].model->nslices > s->ranks[ui.rank].model->nslices))
            ui.rank = i;
    view_timeline.init(&v);
    /* a first frame sets the width and fits the capture */
    view_timeline.draw(&v, ui.body);
    static const enum request seq[] = {
        REQ_ZOOM_IN, REQ_ZOOM_IN, REQ_PAN_RIGHT, REQ_ZOOM_IN, REQ_PAN_RIGHT, REQ_MOVE_DOWN,
        REQ_ZOOM_IN, REQ_PAN_LEFT, REQ_NEXT_SLICE, REQ_ZOOM_OUT, REQ_MOVE_DOWN, REQ_ZOOM_OUT,
        REQ_PAN_RIGHT, REQ_ZOOM_OUT, REQ_FIT,
    };
    size_t nseq = sizeof seq / sizeof seq[0];
    for (int f = 0; f < frames; f++) {
        double t0 = now_ms();
        view_timeline.request(&v, seq[(size_t)f % nseq], 0);
        view_timeline.draw(&v, ui.body);
        dm[f] = now_ms() - t0;
        wnoutrefresh(ui.body);
        doupdate();
        ms[f] = now_ms() - t0;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    qsort(dm, (size_t)frames, sizeof *dm, cmp_double);
    size_t p99 = (size_t)((double)frames * 0.99);
    if (p99 >= (size_t)frames)
        p99 = (size_t)frames - 1;
    const struct model *m = s->nranks ? s->ranks[ui.rank].model : NULL;
    fprintf(out, "render: %d frames 200x48, %u slices, %u lanes: p50 %.3f ms  p99 %.3f ms  max %.3f ms "
            "(drawing alone: p50 %.3f ms  p99 %.3f ms)\n",
            frames, m ? m->nslices : 0, m ? m->nlanes : 0, ms[(size_t)frames / 2], ms[p99], ms[frames - 1],
            dm[(size_t)frames / 2], dm[p99]);
    view_timeline.done(&v);
done:
    free(ms);
    free(dm);
    free(v.priv);
    if (ui.body)
        delwin(ui.body);
    endwin();
    delscreen(scr);
    fclose(devnull);
    return rc;
}
