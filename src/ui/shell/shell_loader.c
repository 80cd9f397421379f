/* The shell's side of the loader: installs what it handed over between frames, keeps the
 * timeline on screen in memory (two passes), and words the load's progress. */
#include <stdio.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/shell_internal.h"

/* Installs what the loader handed over; once the load has ended, says how long it took. */
void loader_turn(struct ui *ui, bool loading, bool woke)
{
    struct shell *sh = ui->shell;
    struct loader *l = ui->l;
    struct session *s = ui->all;
    if ((woke || !loading) && loader_apply(l) > 0)
        notify_changed(ui);
    if (loading || sh->was_done)
        return;
    sh->was_done = true;
    /* the end of the load changes every "partial" figure, even with nothing left to install:
     * a view computed during the last frame of the load computes again */
    loader_apply(l);
    notify_changed(ui);
    unsigned keep = loader_max_ranks(l);
    if (!ui->msg[0] && s && keep) {
        ui_message(ui, "loaded %zu ranks' step and communication files in %.0f ms; a rank's timeline is read "
                   "when it is opened (Enter in Ranks), at most %u in memory", s->nranks, s->load_ms, keep);
        sh->msg_session = true;
    } else if (!ui->msg[0] && s) {
        ui_message(ui, "loaded %zu rank%s in %.0f ms", s->nranks, s->nranks == 1 ? "" : "s", s->load_ms);
        sh->msg_session = true;
    }
    ui->full = true;
}

bool ui_timeline_readable(const struct ui *ui, size_t rank)
{
    enum lru_state st = loader_rank_state(ui->l, session_rank(ui, rank));
    return st == LRU_OUT || st == LRU_LOADING;
}

/* Two passes: the timeline on screen is wanted; the loader starts the next timeline and
 * frees one first when needed, before this frame is drawn. Not while a window export runs
 * (io/export/export_job.h): its thread reads a timeline that must stay. */
void timeline_turn(struct ui *ui)
{
    if (!loader_max_ranks(ui->l) || !ui->s || !ui->s->nranks)
        return;
    if (export_job_pending())   /* a window export reads its rank's timeline: nothing is freed */
        return;
    struct view *v = ui_current(ui);
    size_t keep = session_rank(ui, ui->rank < ui->s->nranks ? ui->rank : 0);
    if (v && v->ops->rank_timeline)
        loader_want(ui->l, keep);
    size_t evicted;
    if (!loader_tick(ui->l, keep, &evicted))
        return;
    notify_changed(ui);
    if (evicted != SIZE_MAX)
        ui_message(ui, "rank %d's timeline freed to make room (at most %u in memory)",
                   ui->all->ranks[evicted].rank, loader_max_ranks(ui->l));
}

static const char *human_bytes(uint64_t b, char *buf, size_t size)
{
    if (b >= (1ull << 30)) snprintf(buf, size, "%.1f GB", (double)b / (1 << 30));
    else if (b >= (1ull << 20)) snprintf(buf, size, "%.1f MB", (double)b / (1 << 20));
    else if (b >= 1024) snprintf(buf, size, "%.0f KB", (double)b / 1024);
    else snprintf(buf, size, "%llu B", (unsigned long long)b);
    return buf;
}

void progress_text(struct ui *ui, char *out, size_t size)
{
    struct shell *sh = ui->shell;
    struct load_progress *p = loader_progress(ui->l);
    if (!p) { snprintf(out, size, "loading"); return; }
    const char *file = atomic_load(&p->file);
    uint64_t done = atomic_load(&p->bytes_done), total = atomic_load(&p->bytes_total);
    uint64_t fd = atomic_load(&p->files_done), ft = atomic_load(&p->files_total);
    double t = now_ms();
    if (file != sh->rate_file || done < sh->rate_bytes) {
        sh->rate_file = file;
        sh->rate_bytes = done;
        sh->rate_t = t;
        sh->rate = 0;
    } else if (t - sh->rate_t >= 250) {
        sh->rate = (double)(done - sh->rate_bytes) / ((t - sh->rate_t) / 1e3);
        sh->rate_bytes = done;
        sh->rate_t = t;
    }
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file ? file : "";
    char eb[600], b1[32], b2[32], b3[32];
    draw_escape(base, SIZE_MAX, eb, sizeof eb);
    int pct = total ? (int)(done * 100 / total) : 0;
    if (ft && fd >= ft) {   /* every file read: the index and analyses, or the next pass starting */
        snprintf(out, size, "loading: %llu file%s read, finishing", (unsigned long long)fd, fd == 1 ? "" : "s");
        return;
    }
    if (!file) {
        snprintf(out, size, "loading file %llu/%llu", (unsigned long long)fd + 1, (unsigned long long)ft);
        return;
    }
    if (sh->rate > 0)
        snprintf(out, size, "loading %s %d%% %s/%s %s/s %s file %llu/%llu", eb, pct,
                 human_bytes(done, b1, sizeof b1), human_bytes(total, b2, sizeof b2),
                 human_bytes((uint64_t)sh->rate, b3, sizeof b3), draw_utf8 ? "·" : "-",
                 (unsigned long long)fd + 1, (unsigned long long)ft);
    else
        snprintf(out, size, "loading %s %d%% %s/%s %s file %llu/%llu", eb, pct,
                 human_bytes(done, b1, sizeof b1), human_bytes(total, b2, sizeof b2),
                 draw_utf8 ? "·" : "-", (unsigned long long)fd + 1, (unsigned long long)ft);
}
