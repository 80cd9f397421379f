/* gzip streaming: one inflating thread, a ring of decompressed blocks, one consumer.
 * See gz_stream.h. */
#include "io/files/gz_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define IN_CHUNK (256u << 10)    /* compressed bytes read at a time */
#define BLOCK (1u << 20)         /* decompressed bytes per ring block */
#define NBLOCKS 4                /* blocks in flight: enough to keep both threads busy */

bool gz_magic(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

struct block {
    char *data;
    size_t len;
};

struct gz_stream {
    int fd;                       /* -1: memory */
    const unsigned char *mem;
    size_t memlen;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct block ring[NBLOCKS];
    size_t head, count;           /* consumer reads ring[head]; count blocks are full */
    size_t head_pos;              /* bytes of ring[head] already copied out */
    bool done;                    /* the producer has finished (status is final) */
    bool stop;                    /* the consumer closes: the producer quits */
    _Atomic uint64_t in_done;
    uint64_t out_read;            /* decompressed bytes copied out (zlib counts per member) */
    struct gz_status st;
};

/* Reads the next compressed bytes at offset at; returns the count, 0 at the end, -1 on error. */
static long read_in(struct gz_stream *g, unsigned char *buf, uint64_t at, char *msg, size_t msgsz)
{
    if (g->fd < 0) {
        if (at >= g->memlen)
            return 0;
        size_t k = g->memlen - at < IN_CHUNK ? g->memlen - (size_t)at : IN_CHUNK;
        memcpy(buf, g->mem + at, k);
        return (long)k;
    }
    for (;;) {
        ssize_t k = pread(g->fd, buf, IN_CHUNK, (off_t)at);
        if (k >= 0)
            return (long)k;
        if (errno != EINTR) {
            snprintf(msg, msgsz, "read failed at compressed byte %llu: %s", (unsigned long long)at, strerror(errno));
            return -1;
        }
    }
}

/* Waits for a free block; NULL when the consumer is closing. */
static struct block *free_block(struct gz_stream *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->count == NBLOCKS && !g->stop)
        pthread_cond_wait(&g->cv, &g->mu);
    struct block *b = g->stop ? NULL : &g->ring[(g->head + g->count) % NBLOCKS];
    pthread_mutex_unlock(&g->mu);
    return b;
}

static void publish(struct gz_stream *g)
{
    pthread_mutex_lock(&g->mu);
    g->count++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void *producer(void *arg)
{
    struct gz_stream *g = arg;
    struct gz_status st = { .end = GZ_RUNNING };
    z_stream z;
    memset(&z, 0, sizeof z);
    unsigned char *in = malloc(IN_CHUNK);
    if (!in || inflateInit2(&z, 15 + 16) != Z_OK) {
        free(in);
        st.end = GZ_NOMEM;
        snprintf(st.msg, sizeof st.msg, "out of memory");
        goto out;
    }
    uint64_t in_at = 0;           /* compressed bytes handed to zlib */
    bool in_eof = false, member_done = false;
    struct block *b = NULL;
    while (st.end == GZ_RUNNING) {
        if (!b) {
            b = free_block(g);
            if (!b) {
                st.end = GZ_CANCELLED;
                break;
            }
            b->len = 0;
        }
        if (z.avail_in == 0 && !in_eof) {
            long k = read_in(g, in, in_at, st.msg, sizeof st.msg);
            if (k < 0) {
                st.end = GZ_IOERR;
                break;
            }
            if (k == 0)
                in_eof = true;
            z.next_in = in;
            z.avail_in = (uInt)k;
            in_at += (uint64_t)k;
        }
        if (member_done) {
            /* after a member: another one, trailing bytes, or the end */
            if (z.avail_in == 0 && in_eof) {
                st.end = GZ_COMPLETE;
                break;
            }
            if (z.avail_in == 0)
                continue;
            if (z.next_in[0] != 0x1f || (z.avail_in >= 2 && z.next_in[1] != 0x8b)) {
                st.end = GZ_TRAILING;
                snprintf(st.msg, sizeof st.msg, "bytes from compressed byte %llu on are not gzip data (ignored)",
                         (unsigned long long)(in_at - z.avail_in));
                break;
            }
            inflateReset(&z);
            member_done = false;
        }
        z.next_out = (unsigned char *)b->data + b->len;
        z.avail_out = (uInt)(BLOCK - b->len);
        int rc = inflate(&z, Z_NO_FLUSH);
        b->len = BLOCK - z.avail_out;
        atomic_store_explicit(&g->in_done, in_at - z.avail_in, memory_order_relaxed);
        if (rc == Z_STREAM_END) {
            member_done = true;
        } else if (rc == Z_BUF_ERROR) {
            /* no progress: more input is needed (read above), unless there is none */
            if (z.avail_in == 0 && in_eof) {
                st.end = GZ_TRUNCATED;
                break;
            }
        } else if (rc != Z_OK) {
            st.end = rc == Z_MEM_ERROR ? GZ_NOMEM : GZ_CORRUPT;
            snprintf(st.msg, sizeof st.msg, "%s", z.msg ? z.msg : "invalid compressed data");
            break;
        }
        if (b->len == BLOCK) {
            publish(g);
            b = NULL;
        }
    }
    st.in_bytes = in_at - z.avail_in;
    if (b && b->len && st.end != GZ_CANCELLED)
        publish(g);
    inflateEnd(&z);
    free(in);
out:
    pthread_mutex_lock(&g->mu);
    g->st = st;
    g->done = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static struct gz_stream *start(struct gz_stream *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    for (int i = 0; i < NBLOCKS; i++) {
        g->ring[i].data = malloc(BLOCK);
        if (!g->ring[i].data) {
            gz_stream_close(g);
            return NULL;
        }
    }
    if (pthread_create(&g->thread, NULL, producer, g) != 0) {
        gz_stream_close(g);
        return NULL;
    }
    g->started = true;
    return g;
}

struct gz_stream *gz_stream_open_fd(int fd)
{
    struct gz_stream *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->fd = fd;
    return start(g);
}

struct gz_stream *gz_stream_open_mem(const void *buf, size_t len)
{
    struct gz_stream *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->fd = -1;
    g->mem = buf;
    g->memlen = len;
    return start(g);
}

size_t gz_stream_read(struct gz_stream *g, char *dst, size_t n)
{
    size_t got = 0;
    pthread_mutex_lock(&g->mu);
    while (got < n) {
        while (!g->count && !g->done)
            pthread_cond_wait(&g->cv, &g->mu);
        if (!g->count)
            break;
        struct block *b = &g->ring[g->head];
        size_t k = b->len - g->head_pos;
        if (k > n - got)
            k = n - got;
        /* the block is the consumer's until released: copy without the lock */
        pthread_mutex_unlock(&g->mu);
        memcpy(dst + got, b->data + g->head_pos, k);
        pthread_mutex_lock(&g->mu);
        got += k;
        g->head_pos += k;
        g->out_read += k;
        if (g->head_pos == b->len) {
            g->head = (g->head + 1) % NBLOCKS;
            g->head_pos = 0;
            g->count--;
            pthread_cond_broadcast(&g->cv);
        }
        if (got)
            break;   /* return what one block gave: the parser works while the next fills */
    }
    pthread_mutex_unlock(&g->mu);
    return got;
}

uint64_t gz_stream_in_done(const struct gz_stream *g)
{
    return atomic_load_explicit(&g->in_done, memory_order_relaxed);
}

void gz_stream_status(const struct gz_stream *g, struct gz_status *st)
{
    struct gz_stream *w = (struct gz_stream *)g;
    pthread_mutex_lock(&w->mu);
    *st = g->st;
    st->out_bytes = g->out_read;
    if (!g->done || g->count)
        st->end = GZ_RUNNING;
    pthread_mutex_unlock(&w->mu);
}

void gz_stream_close(struct gz_stream *g)
{
    if (!g)
        return;
    if (g->started) {
        pthread_mutex_lock(&g->mu);
        g->stop = true;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->thread, NULL);
    }
    for (int i = 0; i < NBLOCKS; i++)
        free(g->ring[i].data);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

uint64_t gz_size_hint(int fd, uint64_t file_size)
{
    unsigned char t[4];
    if (fd < 0 || file_size < 18 || pread(fd, t, 4, (off_t)(file_size - 4)) != 4)
        return 0;
    return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
}

long gz_read_range(const char *path, uint64_t off, char *dst, size_t n, char *err, size_t errsz)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (err && errsz)
            snprintf(err, errsz, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct gz_stream *g = gz_stream_open_fd(fd);
    if (!g) {
        close(fd);
        if (err && errsz)
            snprintf(err, errsz, "out of memory");
        return -1;
    }
    char *skip = off ? malloc(BLOCK) : NULL;
    uint64_t at = 0;
    size_t got = 0;
    while (at < off && skip) {
        uint64_t want = off - at < BLOCK ? off - at : BLOCK;
        size_t k = gz_stream_read(g, skip, (size_t)want);
        if (!k)
            break;
        at += k;
    }
    free(skip);
    if (at == off) {
        while (got < n) {
            size_t k = gz_stream_read(g, dst + got, n - got);
            if (!k)
                break;
            got += k;
        }
    }
    gz_stream_close(g);
    close(fd);
    return (long)got;
}
