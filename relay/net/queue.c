/* chessrelay relay: bounded pointer queue between threads. */
#include "net/queue.h"

#include <pthread.h>
#include <stdlib.h>

struct cr_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_full;
    void **items;
    size_t capacity, head, count;
    bool closed;
    bool unwoken; /* quiet pushes since the last wake */
    cr_queue_wake_fn wake;
    void *wake_data;
};

cr_queue *cr_queue_new(size_t capacity, cr_queue_wake_fn wake, void *wake_data)
{
    if (capacity == 0) {
        return NULL;
    }
    cr_queue *q = calloc(1, sizeof *q);
    if (!q) {
        return NULL;
    }
    q->items = calloc(capacity, sizeof *q->items);
    if (!q->items) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_full, NULL);
    q->capacity = capacity;
    q->wake = wake;
    q->wake_data = wake_data;
    return q;
}

void cr_queue_free(cr_queue *q, void (*free_item)(void *item))
{
    if (!q) {
        return;
    }
    void *item;
    while ((item = cr_queue_pop(q)) != NULL) {
        if (free_item) {
            free_item(item);
        }
    }
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_full);
    free(q->items);
    free(q);
}

void cr_queue_set_wake(cr_queue *q, cr_queue_wake_fn wake, void *wake_data)
{
    pthread_mutex_lock(&q->lock);
    q->wake = wake;
    q->wake_data = wake_data;
    pthread_mutex_unlock(&q->lock);
}

static bool push(cr_queue *q, void *item, bool wait, bool quiet)
{
    pthread_mutex_lock(&q->lock);
    while (!q->closed && q->count == q->capacity && wait) {
        if (q->unwoken && q->wake) {
            /* The consumer may not know of the batch yet: tell it, or wait forever. */
            cr_queue_wake_fn wake = q->wake;
            void *wake_data = q->wake_data;
            q->unwoken = false;
            pthread_mutex_unlock(&q->lock);
            wake(wake_data);
            pthread_mutex_lock(&q->lock);
            continue;
        }
        pthread_cond_wait(&q->not_full, &q->lock);
    }
    if (q->closed || q->count == q->capacity) {
        pthread_mutex_unlock(&q->lock);
        return false;
    }
    q->items[(q->head + q->count) % q->capacity] = item;
    q->count++;
    cr_queue_wake_fn wake = quiet ? NULL : q->wake;
    void *wake_data = q->wake_data;
    q->unwoken = quiet;
    pthread_mutex_unlock(&q->lock);
    if (wake) {
        wake(wake_data);
    }
    return true;
}

bool cr_queue_push(cr_queue *q, void *item, bool wait)
{
    return push(q, item, wait, false);
}

bool cr_queue_push_quiet(cr_queue *q, void *item, bool wait)
{
    return push(q, item, wait, true);
}

void cr_queue_wake(cr_queue *q)
{
    pthread_mutex_lock(&q->lock);
    cr_queue_wake_fn wake = q->unwoken ? q->wake : NULL;
    void *wake_data = q->wake_data;
    q->unwoken = false;
    pthread_mutex_unlock(&q->lock);
    if (wake) {
        wake(wake_data);
    }
}

void *cr_queue_pop(cr_queue *q)
{
    void *item = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->count) {
        item = q->items[q->head];
        q->head = (q->head + 1) % q->capacity;
        q->count--;
        pthread_cond_signal(&q->not_full);
    }
    pthread_mutex_unlock(&q->lock);
    return item;
}

void cr_queue_close(cr_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = true;
    pthread_cond_broadcast(&q->not_full);
    pthread_mutex_unlock(&q->lock);
}

size_t cr_queue_length(cr_queue *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = q->count;
    pthread_mutex_unlock(&q->lock);
    return n;
}
