#include "io/load/loader.h"
#include "util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/tables/pgroups_json.h"
#include "io/load/rank_split.h"
#include "io/load/readers.h"
#include "io/load/timeline_parts.h"
#include "model/analysis/comm.h"
#include "model/analysis/pgroups.h"
#include "model/index/table.h"
#include "model/index/rank_filter.h"
#include "util/free_all.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* --- the hand-over queue ------------------------------------------------------------------
 * The loader fills a private rank_data per rank. Each finished part is pushed here as
 * (rank, field, pointer); the UI thread pops and stores it into the session. */

enum part_kind { PART_MODEL, PART_TABLE, PART_COMM, PART_STEPS, PART_FLOWSTATS, PART_DIGEST, PART_GROUPS, PART_CLUSTER_GROUPS, PART_MEMORY, PART_STATUS,
                 PART_TIMELINE_END };

struct part {
    size_t rank;
    enum part_kind kind;
    int table;            /* for PART_TABLE */
    unsigned files;       /* for PART_STATUS, PART_TIMELINE_END: files read */
    int device;           /* for PART_STATUS, PART_TIMELINE_END: the device found while loading, else -1 */
    void *ptr;
    bool timeline;        /* read in the timeline pass: freed when the rank is evicted */
    enum lru_state now;   /* for PART_TIMELINE_END: where the rank's timeline is now */
    char status[128];     /* for PART_STATUS, PART_TIMELINE_END */
};

#define STATUS_NOT_LOADED "not loaded: Enter loads it"
#define STATUS_EVICTED "evicted: Enter loads it"
#define STATUS_LOADING "loading timeline"

struct loader {
    const struct capture *cap;
    struct session *s;
    struct loader_opts opts;
    struct load_progress progress;  /* the first worker's: what the UI shows */
    struct load_progress aux;       /* the second worker's, files counted in progress */
    _Atomic size_t next_rank;       /* ranks are taken in order by whichever worker is free */
    pthread_t thread;
    bool started;
    _Atomic bool done;
    int pipe_r, pipe_w;
    pthread_mutex_t lock;
    struct part *queue;
    size_t nqueue, capqueue;
    bool sync;            /* no thread: parts are installed as soon as they are made */

    /* two passes (split != NULL): the small files of every rank, then timelines */
    struct rank_split *split;       /* per rank */
    _Atomic bool small_done;        /* the first pass has ended */
    bool small_seen;                /* UI thread: and its parts were all installed */
    struct rank_lru lru;            /* UI thread: which timelines are in memory */
    struct timeline_parts *held;    /* UI thread: per rank, what came with its timeline */
    bool *read_before;              /* UI thread: per rank, its timeline was read once */
    size_t want;                    /* UI thread: the rank opened last, SIZE_MAX none */
    size_t busy;                    /* UI thread: timelines given whose end is not installed */
    pthread_cond_t job_cond;
    size_t jobs[LRU_BATCH];         /* under lock: the ranks whose timeline to read, in order */
    bool jobs_quiet[LRU_BATCH];     /* under lock: its diagnostics were given the first time */
    size_t njobs;
    bool stopping;                  /* under lock */
};

static void rank_timeline_free(struct loader *l, size_t rank, const char *status)
{
    struct rank_data *rd = &l->s->ranks[rank];
    timeline_parts_free(&l->held[rank], rd);
    snprintf(rd->status, sizeof rd->status, "%s", status);
#ifdef __GLIBC__
    malloc_trim(0);   /* give the pages back: the bound is on what the process holds */
#endif
}

/* A part of the timeline pass: noted so that evicting the rank frees it; one the first
 * pass made already (communication.json beats the kernels' own) is dropped, as a one-pass
 * load never makes it. */
static bool install_timeline_part(struct loader *l, const struct part *p)
{
    struct rank_data *rd = &l->s->ranks[p->rank];
    struct timeline_parts *tp = &l->held[p->rank];
    switch (p->kind) {
    case PART_MODEL:     if (rd->model) { model_free(p->ptr); return true; } tp->model = true; break;
    case PART_TABLE:     if (rd->tables[p->table]) { table_free(p->ptr); return true; } tp->table[p->table] = true; break;
    case PART_COMM:      if (rd->comm) { comm_free(p->ptr); return true; } tp->comm = true; break;
    case PART_STEPS:     tp->steps = true; break;
    case PART_FLOWSTATS: tp->flowstats = true; break;
    case PART_MEMORY:    tp->memory = true; break;
    case PART_TIMELINE_END:
        l->busy--;
        l->read_before[p->rank] = true;
        rank_lru_finished(&l->lru, p->rank, p->now);
        if (p->now == LRU_LOADING) {       /* cancelled: what it made goes */
            rank_timeline_free(l, p->rank, STATUS_NOT_LOADED);
            return true;
        }
        tp->files = p->files;
        rd->files_read += p->files;
        if (p->device >= 0)
            rd->device = p->device;
        memcpy(rd->status, p->status, sizeof rd->status);
        return true;
    default: break;
    }
    return false;
}

static void install(struct loader *l, const struct part *p)
{
    struct session *s = l->s;
    struct rank_data *rd = &s->ranks[p->rank];
    if (p->timeline && install_timeline_part(l, p))
        return;
    switch (p->kind) {
    case PART_MODEL:     rd->model = p->ptr; break;
    case PART_TABLE:     rd->tables[p->table] = p->ptr; break;
    case PART_COMM:      rd->comm = p->ptr; break;
    case PART_STEPS:     rd->steps = p->ptr; break;
    case PART_FLOWSTATS: rd->flowstats = p->ptr; break;
    case PART_DIGEST:    rd->digest = p->ptr; break;
    case PART_GROUPS:    rd->groups = p->ptr; break;
    case PART_CLUSTER_GROUPS: s->cluster_groups = p->ptr; break;
    case PART_MEMORY:    rd->memory = p->ptr; break;
    case PART_STATUS:
        memcpy(rd->status, p->status, sizeof rd->status);
        rd->files_read = p->files;
        if (p->device >= 0)
            rd->device = p->device;
        break;
    case PART_TIMELINE_END:
        break;
    }
}

static void push(struct loader *l, struct part p)
{
    if (l->sync) {
        install(l, &p);
        return;
    }
    pthread_mutex_lock(&l->lock);
    if (l->nqueue == l->capqueue) {
        size_t cap = l->capqueue ? l->capqueue * 2 : 32;
        struct part *q = grow_exact(l->queue, cap, sizeof *q);
        if (q) {
            l->queue = q;
            l->capqueue = cap;
        }
    }
    if (l->nqueue < l->capqueue)
        l->queue[l->nqueue++] = p;
    pthread_mutex_unlock(&l->lock);
    char b = 1;
    ssize_t w = write(l->pipe_w, &b, 1);   /* a full pipe already means "wake up" */
    (void)w;
}

static void push_status(struct loader *l, size_t rank, const char *text, unsigned files, int device)
{
    struct part p = { .rank = rank, .kind = PART_STATUS, .files = files, .device = device };
    snprintf(p.status, sizeof p.status, "%s", text);
    push(l, p);
}

static const enum part_kind part_of[] = {
    [RP_MODEL] = PART_MODEL, [RP_TABLE] = PART_TABLE, [RP_COMM] = PART_COMM,
    [RP_STEPS] = PART_STEPS, [RP_FLOWSTATS] = PART_FLOWSTATS, [RP_DIGEST] = PART_DIGEST, [RP_GROUPS] = PART_GROUPS,
    [RP_MEMORY] = PART_MEMORY,
};

/* The reader side hands parts over through this callback (see io/load/readers.h). */
static void hand_over(void *ctx, size_t rank, enum reader_part kind, int table, void *ptr)
{
    push(ctx, (struct part){ .rank = rank, .kind = part_of[kind], .table = table, .ptr = ptr });
}

/* The same in the timeline pass. */
static void hand_over_timeline(void *ctx, size_t rank, enum reader_part kind, int table, void *ptr)
{
    push(ctx, (struct part){ .rank = rank, .kind = part_of[kind], .table = table, .ptr = ptr, .timeline = true });
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The files of rank i the first pass reads: all of them, or its small half. */
static const struct capture_rank *first_pass_files(const struct loader *l, size_t i)
{
    return l->split ? &l->split[i].small : &l->cap->ranks[i];
}

/* One worker: takes the next rank not yet taken until none is left. */
static int load_ranks(struct loader *l, struct load_progress *p)
{
    int loaded = 0;
    for (;;) {
        size_t i = atomic_fetch_add(&l->next_rank, 1);
        if (i >= l->cap->nranks || progress_cancelled(p))
            break;
        const struct capture_rank *cr = first_pass_files(l, i);
        if (!rank_selected(cr->rank, l->opts.rank)) {
            push_status(l, i, "not loaded (--rank)", 0, -1);
            continue;
        }
        push_status(l, i, "loading", 0, -1);
        char status[128];
        struct reader_result res = { 0, -1 };
        int n = readers_load_rank(cr, i, l->opts.prefer_db, l->opts.cache, l->s->diag, p, hand_over, l,
                                  status, sizeof status, &res);
        loaded += n > 0 ? n : 0;
        if (l->split && rank_split_has_timeline(&l->split[i], l->opts.prefer_db) && !progress_cancelled(p))
            snprintf(status, sizeof status, STATUS_NOT_LOADED);
        push_status(l, i, status, res.files, res.device);
    }
    return loaded;
}

struct aux_worker { struct loader *l; int loaded; };

static void *aux_main(void *arg)
{
    struct aux_worker *w = arg;
    w->loaded = load_ranks(w->l, &w->l->aux);
    return NULL;
}

/* Ranks are independent (each has its own model and string table), so with two cores and
 * several ranks a second worker loads ranks alongside the first. */
static int load_all(struct loader *l)
{
    double t0 = now_ms();
    /* the cluster's parallel groups, when its analysis folder is beside the ranks */
    char *cluster_file = pgroups_cluster_file(l->cap->root);
    struct pgroups *cg = cluster_file ? pgroups_read_comm_group(cluster_file, l->s->diag) : NULL;
    free(cluster_file);
    if (cg && l->s->nranks)
        push(l, (struct part){ .rank = 0, .kind = PART_CLUSTER_GROUPS, .ptr = cg });
    else
        pgroups_free(cg);
    uint64_t total = 0;
    for (size_t i = 0; i < l->cap->nranks; i++)
        if (rank_selected(l->cap->ranks[i].rank, l->opts.rank))
            total += readers_count_files(first_pass_files(l, i), l->opts.prefer_db);
    atomic_store(&l->progress.files_total, total);
    l->aux.total = &l->progress;
    struct aux_worker w = { .l = l };
    pthread_t aux;
    bool two = l->opts.rank < 0 && l->cap->nranks > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1
               && pthread_create(&aux, NULL, aux_main, &w) == 0;
    int loaded = load_ranks(l, &l->progress);
    if (two) {
        pthread_join(aux, NULL);
        loaded += w.loaded;
    }
    l->s->load_ms = now_ms() - t0;
    return loaded;
}

int loader_run_sync(const struct capture *c, struct session *s, const struct loader_opts *o)
{
    struct loader l = { .cap = c, .s = s, .opts = *o, .sync = true, .pipe_r = -1, .pipe_w = -1 };
    return load_all(&l);   /* one pass: report figures come from every file */
}

/* --- the timeline pass ---------------------------------------------------------------------
 * The UI thread gives one rank at a time (loader_tick); the loader thread reads its
 * timeline half and ends with PART_TIMELINE_END, which frees the UI to give the next. */

static void wake_ui(struct loader *l)
{
    char b = 1;
    ssize_t w = write(l->pipe_w, &b, 1);
    (void)w;
}

static void read_timeline(struct loader *l, size_t i, bool quiet)
{
    const struct capture_rank *cr = &l->split[i].timeline;
    /* a timeline read again would repeat the diagnostics it gave the first time */
    struct diag *scratch = quiet ? diag_new() : NULL;
    struct load_progress *p = &l->progress;
    atomic_store(&p->files_total, readers_count_files(cr, l->opts.prefer_db));
    atomic_store(&p->files_done, 0);
    atomic_store(&p->file, NULL);   /* the first pass's last file is not being read any more */
    atomic_store(&p->bytes_done, 0);
    atomic_store(&p->bytes_total, 0);
    char status[128];
    struct reader_result res = { 0, -1 };
    int n = readers_load_rank(cr, i, l->opts.prefer_db, l->opts.cache, scratch ? scratch : l->s->diag, p,
                              hand_over_timeline, l, status, sizeof status, &res);
    diag_free(scratch);
    struct part end = { .rank = i, .kind = PART_TIMELINE_END, .timeline = true, .files = res.files,
                        .device = res.device };
    end.now = progress_cancelled(p) ? LRU_LOADING : n > 0 ? LRU_IN : LRU_NONE;
    snprintf(end.status, sizeof end.status, "%s", status);
    push(l, end);
}

static void timeline_pass(struct loader *l)
{
    for (;;) {
        pthread_mutex_lock(&l->lock);
        while (!l->njobs && !l->stopping)
            pthread_cond_wait(&l->job_cond, &l->lock);
        if (l->stopping) {
            pthread_mutex_unlock(&l->lock);
            return;
        }
        size_t i = l->jobs[0];
        bool quiet = l->jobs_quiet[0];
        l->njobs--;
        memmove(l->jobs, l->jobs + 1, l->njobs * sizeof *l->jobs);
        memmove(l->jobs_quiet, l->jobs_quiet + 1, l->njobs * sizeof *l->jobs_quiet);
        atomic_store(&l->progress.cancel, false);   /* a cancel was for the load before */
        pthread_mutex_unlock(&l->lock);
        read_timeline(l, i, quiet);
    }
}

static void *loader_main(void *arg)
{
    struct loader *l = arg;
    load_all(l);
    if (l->split) {
        atomic_store(&l->small_done, true);
        wake_ui(l);
        timeline_pass(l);
    }
    atomic_store(&l->done, true);
    wake_ui(l);
    return NULL;
}

unsigned loader_lazy_max(size_t nranks, unsigned asked, bool lazy, bool one_rank)
{
    if (one_rank)
        return 0;
    if (asked)
        return asked;
    return lazy || nranks > LOADER_LAZY_ABOVE ? LOADER_LAZY_KEEP : 0;
}

/* Two passes: each rank's halves, and the books of which timelines are in memory. */
static int split_ranks(struct loader *l)
{
    size_t n = l->cap->nranks;
    l->split = calloc(n ? n : 1, sizeof *l->split);
    l->held = calloc(n ? n : 1, sizeof *l->held);
    l->read_before = calloc(n ? n : 1, sizeof *l->read_before);
    if (!l->split || !l->held || !l->read_before
        || rank_lru_init(&l->lru, n, l->opts.max_ranks, !l->opts.on_demand) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (rank_split_make(&l->cap->ranks[i], l->opts.prefer_db, &l->split[i]) < 0)
            return -1;
        rank_lru_set_loadable(&l->lru, i, rank_split_has_timeline(&l->split[i], l->opts.prefer_db));
    }
    pthread_cond_init(&l->job_cond, NULL);
    l->want = SIZE_MAX;
    return 0;
}

static void split_free(struct loader *l)
{
    for (size_t i = 0; l->split && i < l->cap->nranks; i++)
        rank_split_free(&l->split[i]);
    FREE_ALL(l->split, l->held, l->read_before);
    rank_lru_free(&l->lru);
}

struct loader *loader_start(const struct capture *c, struct session *s, const struct loader_opts *o)
{
    struct loader *l = calloc(1, sizeof *l);
    int fds[2];
    if (!l)
        return NULL;
    if (pipe(fds) < 0) {
        free(l);
        return NULL;
    }
    l->cap = c;
    l->s = s;
    l->opts = *o;
    l->pipe_r = fds[0];
    l->pipe_w = fds[1];
    fcntl(l->pipe_r, F_SETFL, O_NONBLOCK);
    fcntl(l->pipe_w, F_SETFL, O_NONBLOCK);
    fcntl(l->pipe_r, F_SETFD, FD_CLOEXEC);
    fcntl(l->pipe_w, F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&l->lock, NULL);
    bool lazy = o->max_ranks > 0 && o->rank < 0 && c->nranks > 0;
    if (lazy && split_ranks(l) < 0) {   /* out of memory: one pass still works */
        split_free(l);
        l->split = NULL;
        l->held = NULL;
        l->read_before = NULL;
        l->opts.max_ranks = 0;
    } else if (!lazy) {
        l->opts.max_ranks = 0;
    }
    /* signals go to the UI thread only: block them while the loader is created */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    l->started = pthread_create(&l->thread, NULL, loader_main, l) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!l->started) {
        atomic_store(&l->done, true);
        atomic_store(&l->small_done, true);
        l->stopping = true;
    }
    return l;
}

int loader_fd(const struct loader *l) { return l->pipe_r; }

int loader_apply(struct loader *l)
{
    char buf[256];
    while (read(l->pipe_r, buf, sizeof buf) > 0)
        ;
    /* the first pass pushed its last part before it said it ended */
    bool small_done = l->split && atomic_load(&l->small_done);
    pthread_mutex_lock(&l->lock);
    size_t n = l->nqueue;
    for (size_t i = 0; i < n; i++)
        install(l, &l->queue[i]);
    l->nqueue = 0;
    pthread_mutex_unlock(&l->lock);
    l->small_seen |= small_done;
    return (int)n;
}

struct load_progress *loader_progress(struct loader *l) { return &l->progress; }

bool loader_done(const struct loader *l)
{
    if (l->split)   /* the first pass's parts installed, no timeline being read */
        return l->small_seen && !l->busy;
    return atomic_load(&l->done);
}

unsigned loader_max_ranks(const struct loader *l) { return l ? l->opts.max_ranks : 0; }

void loader_want(struct loader *l, size_t rank)
{
    if (l && l->split && rank < l->cap->nranks)
        l->want = rank;
}

enum lru_state loader_rank_state(const struct loader *l, size_t rank)
{
    return l && l->split && rank < l->lru.n ? (enum lru_state)l->lru.state[rank] : LRU_NONE;
}

size_t loader_timelines_in(const struct loader *l)
{
    size_t k = 0;
    for (size_t i = 0; l && l->split && i < l->lru.n; i++)
        k += l->lru.state[i] == LRU_IN;
    return k;
}

/* Another rank was opened: the timelines given and not started yet are taken back, the one
 * being read is stopped (its end comes as cancelled). */
static void cancel_jobs(struct loader *l)
{
    pthread_mutex_lock(&l->lock);
    for (size_t k = 0; k < l->njobs; k++) {
        size_t r = l->jobs[k];
        rank_lru_finished(&l->lru, r, LRU_LOADING);
        snprintf(l->s->ranks[r].status, sizeof l->s->ranks[r].status, STATUS_NOT_LOADED);
        l->busy--;
    }
    l->njobs = 0;
    atomic_store(&l->progress.cancel, true);   /* under the lock: the read it meant has begun */
    pthread_mutex_unlock(&l->lock);
}

/* The rank opened is among the timelines given: it is read next. */
static void want_first(struct loader *l, size_t rank)
{
    pthread_mutex_lock(&l->lock);
    for (size_t k = 1; k < l->njobs; k++)
        if (l->jobs[k] == rank) {
            bool quiet = l->jobs_quiet[k];
            memmove(l->jobs + 1, l->jobs, k * sizeof *l->jobs);
            memmove(l->jobs_quiet + 1, l->jobs_quiet, k * sizeof *l->jobs_quiet);
            l->jobs[0] = rank;
            l->jobs_quiet[0] = quiet;
            break;
        }
    pthread_mutex_unlock(&l->lock);
}

bool loader_tick(struct loader *l, size_t keep, size_t *evicted)
{
    *evicted = SIZE_MAX;
    if (!l || !l->split || !l->small_seen || l->stopping)
        return false;
    rank_lru_touch(&l->lru, keep);
    struct lru_step st = rank_lru_next(&l->lru, l->want, keep);
    if (st.cancel)
        cancel_jobs(l);
    else if (l->want < l->lru.n && l->lru.state[l->want] == LRU_LOADING)
        want_first(l, l->want);
    if (st.evict != SIZE_MAX) {
        rank_timeline_free(l, st.evict, STATUS_EVICTED);
        rank_lru_evicted(&l->lru, st.evict);
        *evicted = st.evict;
    }
    if (st.nload) {
        pthread_mutex_lock(&l->lock);
        for (size_t k = 0; k < st.nload && l->njobs < LRU_BATCH; k++) {
            size_t r = st.load[k];
            rank_lru_started(&l->lru, r);
            snprintf(l->s->ranks[r].status, sizeof l->s->ranks[r].status, STATUS_LOADING);
            l->jobs_quiet[l->njobs] = l->read_before[r];
            l->jobs[l->njobs++] = r;
            l->busy++;
        }
        pthread_cond_signal(&l->job_cond);
        pthread_mutex_unlock(&l->lock);
    }
    return st.cancel || st.evict != SIZE_MAX || st.nload;
}

void loader_stop(struct loader *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    atomic_store(&l->progress.cancel, true);
    atomic_store(&l->aux.cancel, true);
    if (l->split)
        pthread_cond_signal(&l->job_cond);
    pthread_mutex_unlock(&l->lock);
    if (l->started)
        pthread_join(l->thread, NULL);
    loader_apply(l);   /* parts made before the cancel belong to the session, which frees them */
    close(l->pipe_r);
    close(l->pipe_w);
    if (l->split) {
        pthread_cond_destroy(&l->job_cond);
        split_free(l);
    }
    pthread_mutex_destroy(&l->lock);
    free(l->queue);
    free(l);
}
