#include "io/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/pgroups_json.h"
#include "io/readers.h"
#include "model/pgroups.h"

/* --- sessions ------------------------------------------------------------------------- */

struct session *session_new(const struct capture *c, struct diag *d)
{
    struct session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->diag = d;
    s->root = strdup(c->root ? c->root : "");
    s->nranks = c->nranks;
    s->ranks = calloc(c->nranks ? c->nranks : 1, sizeof *s->ranks);
    if (!s->root || !s->ranks) {
        session_free(s);
        return NULL;
    }
    for (size_t i = 0; i < c->nranks; i++) {
        struct rank_data *rd = &s->ranks[i];
        rd->rank = c->ranks[i].rank;
        rd->device = c->ranks[i].device;
        rd->label = strdup(c->ranks[i].label ? c->ranks[i].label : "");
        snprintf(rd->status, sizeof rd->status, "waiting");
    }
    return s;
}

static void rank_parts_free(struct rank_data *rd)
{
    readers_free_parts(rd);
    free(rd->label);
}

void session_free(struct session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nranks; i++)
        rank_parts_free(&s->ranks[i]);
    free(s->ranks);
    free(s->root);
    pgroups_free(s->cluster_groups);
    for (size_t g = 0; g < s->ngroups; g++) {
        free(s->groups[g].root);
        free(s->groups[g].path);
    }
    free(s->groups);
    free(s);
}

void session_set_groups(struct session *s, struct session_group *groups, size_t n)
{
    s->groups = groups;
    s->ngroups = n;
}

/* --- the hand-over queue ------------------------------------------------------------------
 * The loader fills a private rank_data per rank. Each finished part is pushed here as
 * (rank, field, pointer); the UI thread pops and stores it into the session. */

enum part_kind { PART_MODEL, PART_TABLE, PART_COMM, PART_STEPS, PART_FLOWSTATS, PART_DIGEST, PART_GROUPS, PART_CLUSTER_GROUPS, PART_MEMORY, PART_STATUS };

struct part {
    size_t rank;
    enum part_kind kind;
    int table;            /* for PART_TABLE */
    unsigned files;       /* for PART_STATUS: files read so far */
    int device;           /* for PART_STATUS: the device found while loading, else -1 */
    void *ptr;
    char status[128];     /* for PART_STATUS */
};

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
};

static void install(struct session *s, const struct part *p)
{
    struct rank_data *rd = &s->ranks[p->rank];
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
    }
}

static void push(struct loader *l, struct part p)
{
    if (l->sync) {
        install(l->s, &p);
        return;
    }
    pthread_mutex_lock(&l->lock);
    if (l->nqueue == l->capqueue) {
        size_t cap = l->capqueue ? l->capqueue * 2 : 32;
        struct part *q = realloc(l->queue, cap * sizeof *q);
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

/* The reader side hands parts over through this callback (see io/readers.h). */
static void hand_over(void *ctx, size_t rank, enum reader_part kind, int table, void *ptr)
{
    struct loader *l = ctx;
    static const enum part_kind map[] = {
        [RP_MODEL] = PART_MODEL, [RP_TABLE] = PART_TABLE, [RP_COMM] = PART_COMM,
        [RP_STEPS] = PART_STEPS, [RP_FLOWSTATS] = PART_FLOWSTATS, [RP_DIGEST] = PART_DIGEST, [RP_GROUPS] = PART_GROUPS,
        [RP_MEMORY] = PART_MEMORY,
    };
    push(l, (struct part){ .rank = rank, .kind = map[kind], .table = table, .ptr = ptr });
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One worker: takes the next rank not yet taken until none is left. */
static int load_ranks(struct loader *l, struct load_progress *p)
{
    int loaded = 0;
    for (;;) {
        size_t i = atomic_fetch_add(&l->next_rank, 1);
        if (i >= l->cap->nranks || progress_cancelled(p))
            break;
        const struct capture_rank *cr = &l->cap->ranks[i];
        if (l->opts.rank >= 0 && cr->rank != l->opts.rank) {
            push_status(l, i, "not loaded (--rank)", 0, -1);
            continue;
        }
        push_status(l, i, "loading", 0, -1);
        char status[128];
        struct reader_result res = { 0, -1 };
        int n = readers_load_rank(cr, i, l->opts.prefer_db, l->opts.cache, l->s->diag, p, hand_over, l,
                                  status, sizeof status, &res);
        loaded += n > 0 ? n : 0;
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
        if (l->opts.rank < 0 || l->cap->ranks[i].rank == l->opts.rank)
            total += readers_count_files(&l->cap->ranks[i], l->opts.prefer_db);
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
    return load_all(&l);
}

static void *loader_main(void *arg)
{
    struct loader *l = arg;
    load_all(l);
    atomic_store(&l->done, true);
    char b = 1;
    ssize_t w = write(l->pipe_w, &b, 1);
    (void)w;
    return NULL;
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
    /* signals go to the UI thread only: block them while the loader is created */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    l->started = pthread_create(&l->thread, NULL, loader_main, l) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!l->started)
        atomic_store(&l->done, true);
    return l;
}

int loader_fd(const struct loader *l) { return l->pipe_r; }

int loader_apply(struct loader *l)
{
    char buf[256];
    while (read(l->pipe_r, buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&l->lock);
    size_t n = l->nqueue;
    for (size_t i = 0; i < n; i++)
        install(l->s, &l->queue[i]);
    l->nqueue = 0;
    pthread_mutex_unlock(&l->lock);
    return (int)n;
}

struct load_progress *loader_progress(struct loader *l) { return &l->progress; }

bool loader_done(const struct loader *l) { return atomic_load(&l->done); }

void loader_stop(struct loader *l)
{
    if (!l)
        return;
    atomic_store(&l->progress.cancel, true);
    atomic_store(&l->aux.cancel, true);
    if (l->started)
        pthread_join(l->thread, NULL);
    loader_apply(l);   /* parts made before the cancel belong to the session, which frees them */
    close(l->pipe_r);
    close(l->pipe_w);
    pthread_mutex_destroy(&l->lock);
    free(l->queue);
    free(l);
}
