#include "model/diag.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_MAX 10000   /* beyond this only a count is kept: a hostile file cannot grow it */

struct diag {
    pthread_mutex_t lock;
    struct diag_msg *msgs;
    size_t count, cap, dropped;
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
    for (size_t i = 0; i < d->count; i++) {
        free(d->msgs[i].path);
        free(d->msgs[i].text);
    }
    free(d->msgs);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

void diag_add(struct diag *d, enum diag_level level, const char *path, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    if (!d)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&d->lock);
    if (d->count >= DIAG_MAX) {
        d->dropped++;
    } else {
        if (d->count == d->cap) {
            size_t cap = d->cap ? d->cap * 2 : 16;
            struct diag_msg *m = realloc(d->msgs, cap * sizeof *m);
            if (!m) {
                pthread_mutex_unlock(&d->lock);
                return;
            }
            d->msgs = m;
            d->cap = cap;
        }
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
