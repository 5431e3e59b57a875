/* chessrelay relay: what the server thread holds of the arbiter monitoring,
 * made of the arbiter link's publications (core/publish.h): the channel's latest
 * snapshot and the messages published since, incidents.json, and each
 * claim's report and PGN. Dashboards joining the channel and the GETs of
 * /arbiter/... are answered from it; the monitors themselves stay in the
 * loop thread.
 *
 * Threads: the server thread only. Ownership: cr_arbiter_view_new returns a
 * new object (cr_arbiter_view_free) holding references to the buffers. */
#ifndef CR_RELAY_ARBITER_VIEW_H
#define CR_RELAY_ARBITER_VIEW_H

#include <stdbool.h>

#include "net/view.h"

typedef struct cr_arbiter_view cr_arbiter_view;

/* Returns NULL when out of memory. */
cr_arbiter_view *cr_arbiter_view_new(void);
void cr_arbiter_view_free(cr_arbiter_view *v); /* accepts NULL */

/* Applies a CR_PUB_ARBITER, CR_PUB_ARBITER_STATE or CR_PUB_ARBITER_REPORT
 * publication (others are ignored). A snapshot covers every message
 * published before it. */
void cr_arbiter_view_apply(cr_arbiter_view *v, const cr_pub *p);

/* What a dashboard gets when it joins: the latest snapshot, then the
 * messages published since (their aseq is higher). send gets a new
 * reference to each buffer; returns the number sent. */
int cr_arbiter_view_join(const cr_arbiter_view *v, void (*send)(void *data, cr_buf *b), void *data);

/* GET /arbiter/...: incidents.json, claim/<id>.html, claim/<id>.pgn.
 * authorized: the request carried an arbiter's token. Returns the body (new
 * reference, NULL when out of memory) and sets *status (200, 401, 404) and
 * *ctype. */
cr_buf *cr_arbiter_view_http(const cr_arbiter_view *v, const char *uri, bool authorized,
                             int *status, const char **ctype);

#endif
