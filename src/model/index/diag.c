#include "model/index/diag.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_MAX 10000   /* beyond this only a count is kept: a hostile file cannot grow it */
#define DIAG_TEXT_MAX 65536   /* bytes of one message */

struct diag {
    pthread_mutex_t lock;
    struct diag_msg *msgs;
    size_t count, cap, dropped;
    size_t short_of_memory;   /* diag_out_of_memory calls */
};

struct diag *diag_new(void)
{
    struct diag *d = calloc(1, sizeof *d);
    if (d)
        pthread_mutex_init(&d->lock, NULL);
    return d;
}

void diag_free(struct diag *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        FREE_ALL(d->msgs[i].path, d->msgs[i].text);
    pthread_mutex_destroy(&d->lock);
    FREE_ALL(d->msgs, d);
}

void diag_add(struct diag *d, enum diag_level level, const char *path, const char *fmt, ...)
{
    /* the whole message, however long (capped only against hostile input) */
    char stack[1024], *text = stack;
    va_list ap;
    if (!d)
        return;
    va_start(ap, fmt);
    int need = vsnprintf(stack, sizeof stack, fmt, ap);
    va_end(ap);
    if (need >= (int)sizeof stack) {
        size_t size = (size_t)need + 1 < DIAG_TEXT_MAX ? (size_t)need + 1 : DIAG_TEXT_MAX;
        text = malloc(size);
        if (!text)
            text = stack;
        else {
            va_start(ap, fmt);
            vsnprintf(text, size, fmt, ap);
            va_end(ap);
        }
    }
    pthread_mutex_lock(&d->lock);
    if (d->count >= DIAG_MAX) {
        d->dropped++;
    } else {
        d->msgs = grow_array_or_exit(d->msgs, &d->cap, d->count + 1, sizeof *d->msgs, "messages");
        struct diag_msg *m = &d->msgs[d->count];
        m->level = level;
        m->path = strdup(path ? path : "");
        m->text = strdup(text);
        if (m->path && m->text)
            d->count++;
        else {
            free(m->path);
            free(m->text);
        }
    }
    pthread_mutex_unlock(&d->lock);
    if (text != stack)
        free(text);
}

void diag_out_of_memory(struct diag *d, const char *path, const char *fmt, ...)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->short_of_memory++;   /* first: the message below needs memory that may not be there */
    pthread_mutex_unlock(&d->lock);
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    diag_add(d, DIAG_ERROR, path, "%s", text);
}

size_t diag_short_of_memory(struct diag *d)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->short_of_memory;
    pthread_mutex_unlock(&d->lock);
    return n;
}

size_t diag_dropped(struct diag *d)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->dropped;
    pthread_mutex_unlock(&d->lock);
    return n;
}

size_t diag_count(struct diag *d)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->count;
    pthread_mutex_unlock(&d->lock);
    return n;
}

size_t diag_count_level(struct diag *d, enum diag_level min_level)
{
    size_t n = 0;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->count; i++)
        n += d->msgs[i].level >= min_level;
    pthread_mutex_unlock(&d->lock);
    return n;
}

int diag_get(struct diag *d, size_t i, struct diag_msg *out)
{
    int rc = -1;
    pthread_mutex_lock(&d->lock);
    if (i < d->count) {
        out->level = d->msgs[i].level;
        out->path = strdup(d->msgs[i].path);
        out->text = strdup(d->msgs[i].text);
        rc = out->path && out->text ? 0 : -1;
        if (rc < 0) {   /* out of memory: nothing half-copied for the caller to free */
            FREE_ALL(out->path, out->text);
            out->path = out->text = NULL;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

void diag_format(struct diag *d, size_t i, char *buf, size_t size)
{
    pthread_mutex_lock(&d->lock);
    if (i < d->count)
        snprintf(buf, size, "%s%s%s", d->msgs[i].path, d->msgs[i].path[0] ? ": " : "", d->msgs[i].text);
    else if (size)
        buf[0] = 0;
    pthread_mutex_unlock(&d->lock);
}

const char *diag_level_name(enum diag_level l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARN ? "warning" : "info";
}
