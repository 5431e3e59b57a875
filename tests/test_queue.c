/* Tests of the relay's bounded queue between threads: wakes, quiet batches,
 * and that a blocked producer always gets out (consumer woken, or close). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "net/queue.h"

static atomic_int wakes;

static void count_wake(void *data)
{
    (void)data;
    atomic_fetch_add(&wakes, 1);
}

static void test_push_wakes_each_time(void **state)
{
    (void)state;
    int a = 1, b = 2;
    atomic_store(&wakes, 0);
    cr_queue *q = cr_queue_new(4, count_wake, NULL);
    assert_true(cr_queue_push(q, &a, false));
    assert_true(cr_queue_push(q, &b, false));
    assert_int_equal(atomic_load(&wakes), 2);
    assert_ptr_equal(cr_queue_pop(q), &a);
    assert_ptr_equal(cr_queue_pop(q), &b);
    assert_null(cr_queue_pop(q));
    cr_queue_free(q, NULL);
}

static void test_quiet_batch_wakes_once(void **state)
{
    (void)state;
    int items[3];
    atomic_store(&wakes, 0);
    cr_queue *q = cr_queue_new(8, count_wake, NULL);
    cr_queue_wake(q); /* nothing pushed: no wake */
    assert_int_equal(atomic_load(&wakes), 0);
    for (int i = 0; i < 3; i++) {
        assert_true(cr_queue_push_quiet(q, &items[i], false));
    }
    assert_int_equal(atomic_load(&wakes), 0);
    cr_queue_wake(q);
    cr_queue_wake(q); /* already woken for this batch */
    assert_int_equal(atomic_load(&wakes), 1);
    assert_int_equal(cr_queue_length(q), 3);
    for (int i = 0; i < 3; i++) {
        assert_ptr_equal(cr_queue_pop(q), &items[i]);
    }
    cr_queue_free(q, NULL);
}

static void test_full_without_wait_fails(void **state)
{
    (void)state;
    int a, b;
    cr_queue *q = cr_queue_new(1, NULL, NULL);
    assert_true(cr_queue_push_quiet(q, &a, false));
    assert_false(cr_queue_push_quiet(q, &b, false));
    assert_false(cr_queue_push(q, &b, false));
    cr_queue_free(q, NULL);
}

/* A consumer that only drains when woken, as the lws thread does. */
typedef struct consumer {
    cr_queue *q;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending_wakes;
    atomic_int popped;
    atomic_bool stop;
} consumer;

static void consumer_wake(void *data)
{
    consumer *c = data;
    pthread_mutex_lock(&c->lock);
    c->pending_wakes++;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void *consumer_main(void *arg)
{
    consumer *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (!c->pending_wakes && !atomic_load(&c->stop)) {
            pthread_cond_wait(&c->cond, &c->lock);
        }
        c->pending_wakes = 0;
        pthread_mutex_unlock(&c->lock);
        while (cr_queue_pop(c->q)) {
            atomic_fetch_add(&c->popped, 1);
        }
        if (atomic_load(&c->stop)) {
            return NULL;
        }
    }
}

static void test_quiet_push_into_full_queue_wakes_consumer(void **state)
{
    (void)state;
    consumer c = {.pending_wakes = 0};
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    c.q = cr_queue_new(4, consumer_wake, &c);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, consumer_main, &c), 0);
    static int items[100];
    /* 100 quiet pushes into 4 places, never an explicit wake: each full
     * queue must wake the consumer itself, or this never returns. */
    for (int i = 0; i < 100; i++) {
        assert_true(cr_queue_push_quiet(c.q, &items[i], true));
    }
    cr_queue_wake(c.q);
    for (int i = 0; i < 2000 && atomic_load(&c.popped) < 100; i++) {
        usleep(1000);
    }
    assert_int_equal(atomic_load(&c.popped), 100);
    atomic_store(&c.stop, true);
    consumer_wake(&c);
    pthread_join(t, NULL);
    cr_queue_free(c.q, NULL);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.cond);
}

typedef struct blocked {
    cr_queue *q;
    atomic_bool returned;
    bool result;
} blocked;

static void *push_blocked(void *arg)
{
    blocked *b = arg;
    static int item;
    b->result = cr_queue_push(b->q, &item, true);
    atomic_store(&b->returned, true);
    return NULL;
}

static void test_close_releases_blocked_producer(void **state)
{
    (void)state;
    int a;
    blocked b = {.q = cr_queue_new(1, NULL, NULL)};
    assert_true(cr_queue_push(b.q, &a, false));
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, push_blocked, &b), 0);
    usleep(20000);
    assert_false(atomic_load(&b.returned)); /* full, nobody pops */
    cr_queue_close(b.q);
    pthread_join(t, NULL);
    assert_false(b.result);
    assert_false(cr_queue_push_quiet(b.q, &a, true)); /* closed: never waits */
    assert_ptr_equal(cr_queue_pop(b.q), &a);
    cr_queue_free(b.q, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_wakes_each_time),
        cmocka_unit_test(test_quiet_batch_wakes_once),
        cmocka_unit_test(test_full_without_wait_fails),
        cmocka_unit_test(test_quiet_push_into_full_queue_wakes_consumer),
        cmocka_unit_test(test_close_releases_blocked_producer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
