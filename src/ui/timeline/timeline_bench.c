/* Render benchmark: draws frames of a pan/zoom sequence of the timeline into an off-screen
 * terminal (newterm on /dev/null) and prints per-frame times. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/shell/draw.h"
#include "ui/timeline/timeline.h"
#include "ui/shell/ui.h"
#include "util/free_all.h"

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

/* Draws `frames` frames of view `ops`, each after one request of seq (after `setup`), into
 * an off-screen 200x48 terminal, and prints per-frame times under `label`. */
static int view_bench(struct session *s, const struct view_ops *ops, const enum request *setup,
                      size_t nsetup, const enum request *seq, size_t nseq, int frames,
                      const char *label, FILE *out)
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
    ui.step_selected = SIZE_MAX;
    ui.wake_fd = -1;
    ui.rows = 48;
    ui.cols = 200;
    ui.body = newwin(46, 200, 1, 0);
    struct view v = { .ops = ops, .ui = &ui };
    v.priv = calloc(1, ops->private_size ? ops->private_size : 1);
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
    if (ops->init)
        ops->init(&v);
    if (ops->data_changed)
        ops->data_changed(&v);
    /* a first frame sets the width (the timeline fits the capture) */
    ops->draw(&v, ui.body);
    for (size_t i = 0; i < nsetup; i++) {
        view_request(&v, setup[i], 0);
        ops->draw(&v, ui.body);
    }
    /* what is on screen, so the figures say what was drawn */
    char top[120] = "";
    mvwinnstr(ui.body, 0, 0, top, (int)sizeof top - 1);
    for (char *e = top + strlen(top); e > top && e[-1] == ' '; )
        *--e = 0;
    for (int f = 0; f < frames; f++) {
        double t0 = now_ms();
        view_request(&v, seq[(size_t)f % nseq], 0);
        ops->draw(&v, ui.body);
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
    fprintf(out, "%s: %d frames 200x48: p50 %.3f ms  p99 %.3f ms  max %.3f ms "
            "(drawing alone: p50 %.3f ms  p99 %.3f ms)\n    showing:%s\n",
            label, frames, ms[(size_t)frames / 2], ms[p99], ms[frames - 1],
            dm[(size_t)frames / 2], dm[p99], top);
    if (ops->done)
        ops->done(&v);
done:
    FREE_ALL(ms, dm, v.priv);
    if (ui.body)
        delwin(ui.body);
    endwin();
    delscreen(scr);
    fclose(devnull);
    return rc;
}

int timeline_bench(struct session *s, int frames, FILE *out)
{
    static const enum request seq[] = {
        REQ_ZOOM_IN, REQ_ZOOM_IN, REQ_PAN_RIGHT, REQ_ZOOM_IN, REQ_PAN_RIGHT, REQ_MOVE_DOWN,
        REQ_ZOOM_IN, REQ_PAN_LEFT, REQ_NEXT_SLICE, REQ_ZOOM_OUT, REQ_MOVE_DOWN, REQ_ZOOM_OUT,
        REQ_PAN_RIGHT, REQ_ZOOM_OUT, REQ_FIT,
    };
    size_t rank = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].model && (!s->ranks[rank].model || s->ranks[i].model->nslices > s->ranks[rank].model->nslices))
            rank = i;
    const struct model *m = s->nranks ? s->ranks[rank].model : NULL;
    char label[128];
    snprintf(label, sizeof label, "timeline render (%u slices, %u lanes)", m ? m->nslices : 0, m ? m->nlanes : 0);
    return view_bench(s, &view_timeline, NULL, 0, seq, sizeof seq / sizeof seq[0], frames, label, out);
}

int table_bench(struct session *s, int frames, FILE *out)
{
    /* the kernel instances of the top kernel: the biggest table a person scrolls */
    static const enum request setup[] = { REQ_ENTER };
    static const enum request seq[] = {
        REQ_MOVE_DOWN, REQ_PAGE_DOWN, REQ_MOVE_RIGHT, REQ_PAGE_DOWN, REQ_MOVE_LEFT, REQ_MOVE_UP,
        REQ_PAGE_UP, REQ_END, REQ_HOME,
    };
    return view_bench(s, &view_kernels, setup, 1, seq, sizeof seq / sizeof seq[0], frames,
                      "kernel table redraw (instances of the top kernel)", out);
}
