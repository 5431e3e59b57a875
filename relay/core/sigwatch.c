/* chessrelay relay: the signal watcher thread. */
#include "core/sigwatch.h"

#include <event2/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct cr_sigwatch {
    pthread_t thread;
    bool started;
    sigset_t set, old_mask;
    struct event_base *base;
    void (*stop)(void *data);
    void *data;
    struct event *hup;
    atomic_bool done;
    atomic_int count, first; /* signals taken; the first one */
};

cr_sigwatch *cr_sigwatch_new(bool hup)
{
    cr_sigwatch *w = calloc(1, sizeof *w);
    if (!w) {
        return NULL;
    }
    sigemptyset(&w->set);
    sigaddset(&w->set, SIGINT);
    sigaddset(&w->set, SIGTERM);
    if (hup) {
        sigaddset(&w->set, SIGHUP);
    }
    pthread_sigmask(SIG_BLOCK, &w->set, &w->old_mask);
    /* The watcher ends the loop from its own thread. */
    evthread_use_pthreads();
    return w;
}

static void *watch(void *arg)
{
    cr_sigwatch *w = arg;
    for (;;) {
        int sig;
        if (sigwait(&w->set, &sig) != 0 || atomic_load(&w->done)) {
            return NULL;
        }
        /* No logging here: this thread must never block (stderr may be a
         * full pipe); the loop logs the signal once it is out. */
        if (sig == SIGHUP) {
            if (w->hup) {
                event_active(w->hup, EV_READ, 0);
            }
            continue;
        }
        if (atomic_fetch_add(&w->count, 1) == 0) {
            atomic_store(&w->first, sig);
            if (w->stop) {
                w->stop(w->data);
            }
            event_base_loopexit(w->base, NULL);
        } else {
            _exit(1);
        }
    }
}

int cr_sigwatch_start(cr_sigwatch *w, struct event_base *base, void (*stop)(void *data), void *data,
                      struct event *hup)
{
    w->base = base;
    w->stop = stop;
    w->data = data;
    w->hup = hup;
    if (pthread_create(&w->thread, NULL, watch, w)) {
        return -1;
    }
    w->started = true;
    return 0;
}

int cr_sigwatch_signal(const cr_sigwatch *w)
{
    return w ? atomic_load(&w->first) : 0;
}

static void forced_exit(int sig)
{
    (void)sig;
    _exit(1);
}

void cr_sigwatch_free(cr_sigwatch *w)
{
    if (!w) {
        return;
    }
    if (w->started) {
        atomic_store(&w->done, true);
        pthread_kill(w->thread, SIGTERM); /* blocked: pending for its sigwait */
        pthread_join(w->thread, NULL);
    }
    /* Signals that came after the watcher stopped: consumed, not fatal. */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&w->set, NULL, &zero) > 0) {
    }
    if (atomic_load(&w->count)) {
        /* Stopping on a signal: one more, even now, forces the exit (status
         * 1) as it did while the watcher ran, rather than killing us. */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = forced_exit;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
    free(w);
}
