/* chessrelay relay: the one way a long-running command stops on a signal.
 *
 * SIGINT and SIGTERM (and SIGHUP, if asked) are blocked in the thread that
 * makes the watcher, before it starts any other thread, so that every
 * thread inherits the mask; a thread of the watcher's own takes them with
 * sigwait. The first SIGINT/SIGTERM calls stop (if given: it runs in the
 * watcher's thread and must neither block nor log, e.g. cr_queue_close of a
 * queue the loop may wait on, lws_cancel_service) and then
 * event_base_loopexit; a second one exits at once (_exit(1)), whatever is
 * stuck. A handler in the loop (evsignal) could do neither while the loop
 * thread blocks (a full queue to a stalled thread). SIGHUP activates the
 * given event instead.
 *
 * Use: w = cr_sigwatch_new(hup) first thing (it also turns on libevent's
 * pthread locking, so the event_base must be made after it); make the base;
 * cr_sigwatch_start; run the loop; cr_sigwatch_signal tells whether a signal
 * ended it; cr_sigwatch_free when every other thread is stopped: it ends
 * the watcher, consumes signals that came late, keeps a further signal
 * forcing the exit (status 1) if the first one stopped us, and restores the
 * caller's mask. */
#ifndef CR_RELAY_SIGWATCH_H
#define CR_RELAY_SIGWATCH_H

#include <event2/event.h>
#include <stdbool.h>

typedef struct cr_sigwatch cr_sigwatch;

/* Blocks the signals in the calling thread; NULL when out of memory (the
 * mask is left as it was then). */
cr_sigwatch *cr_sigwatch_new(bool hup);

/* Starts the watcher thread. base: borrowed, made after cr_sigwatch_new;
 * stop, data: see above (stop may be NULL); hup: the event SIGHUP activates
 * (NULL unless cr_sigwatch_new(true)). Returns 0, or -1 if the thread could
 * not start. */
int cr_sigwatch_start(cr_sigwatch *w, struct event_base *base, void (*stop)(void *data), void *data,
                      struct event *hup);

/* The first SIGINT/SIGTERM taken, 0 if none (yet). */
int cr_sigwatch_signal(const cr_sigwatch *w);

/* Stops the watcher (see above). Accepts NULL. */
void cr_sigwatch_free(cr_sigwatch *w);

#endif
