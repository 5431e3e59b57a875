/* chessrelay relay: a bounded queue of pointers between two threads.
 *
 * The loop thread hands publications to the WebSocket thread, and the
 * WebSocket thread hands commands (arbiters, agents) to the loop, each
 * through one of these. The producer pushes and then wakes the consumer with
 * the queue's wake callback (lws_cancel_service() or event_active()); the
 * consumer drains everything in its own thread. Items are owned by the queue
 * between push and pop. */
#ifndef CR_RELAY_QUEUE_H
#define CR_RELAY_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cr_queue cr_queue;
typedef void (*cr_queue_wake_fn)(void *data);

/* capacity: maximum number of items held. wake (may be NULL) is called by
 * the producer after each successful push, outside the lock. Returns NULL
 * when out of memory. */
cr_queue *cr_queue_new(size_t capacity, cr_queue_wake_fn wake, void *wake_data);

/* Frees the queue; items still held are passed to free_item (may be NULL). */
void cr_queue_free(cr_queue *q, void (*free_item)(void *item));

/* Sets the wake callback (e.g. once the consumer's loop exists). */
void cr_queue_set_wake(cr_queue *q, cr_queue_wake_fn wake, void *wake_data);

/* Adds an item. wait: block while the queue is full (until space or
 * cr_queue_close); otherwise fail at once. Returns true if the item was
 * queued; false if full (no wait) or closed: the caller keeps the item. */
bool cr_queue_push(cr_queue *q, void *item, bool wait);

/* As cr_queue_push, without the wake: a producer that makes several items
 * in a row wakes the consumer once, with cr_queue_wake, after the last (one
 * service round for the batch instead of one per item). A push that has to
 * wait for room wakes the consumer first, so a batch never deadlocks. */
bool cr_queue_push_quiet(cr_queue *q, void *item, bool wait);

/* Calls the wake callback if items were pushed quietly since the last wake. */
void cr_queue_wake(cr_queue *q);

/* Removes the oldest item, or returns NULL if empty. Never blocks. */
void *cr_queue_pop(cr_queue *q);

/* Pushes fail from now on and blocked producers return. */
void cr_queue_close(cr_queue *q);

size_t cr_queue_length(cr_queue *q);

#endif
