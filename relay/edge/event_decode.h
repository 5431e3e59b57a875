/* chessrelay relay: the inverse of cr_store_event_json (store.h). An edge
 * relay (cmd_edge.c) receives the venue relay's store events as protocol
 * messages ({"type":"move","seq":...}) and rebuilds its own store from
 * them, so the decoder is strict: every field the encoder writes must be
 * there with its type, nothing else may be, and errors name the field
 * ("move: clock: expected an integer or null").
 *
 * A move message carries the move as text (uci, san) and the position
 * after it; which cr_move that is depends on the position before, which
 * only the store knows: cr_event_resolve_move completes the event against
 * it. The relay-only ply data that the protocol does not carry (emt, the
 * ply's own time stamp, fits) travels beside the message (NATS headers) and
 * is set by the caller.
 *
 * Pure functions (jansson only). */
#ifndef CR_RELAY_EVENT_DECODE_H
#define CR_RELAY_EVENT_DECODE_H

#include <stddef.h>

#include "cr/common.h"
#include "core/store.h"

/* Parses one message. Returns 0 with *out set to a new event (free with
 * cr_store_event_free), or CR_EPROTO with err naming the field and *out
 * NULL (CR_ENOMEM when out of memory). For a MOVE, move.move is
 * CR_MOVE_NONE until cr_event_resolve_move; emt_ms is CR_CLOCK_UNKNOWN,
 * ts -1 and fits 1. */
int cr_event_decode(const char *text, size_t len, cr_store_event **out, cr_error *err);

/* For a MOVE event (other kinds: returns 0 at once): finds the legal move
 * named by uci in `before` (the game's position before the ply) and checks
 * that it leads to the message's fen. An illegal move (flag "illegal")
 * needs no move: its fen is the position that stood. Returns 0 or
 * CR_EPROTO with err ("move: uci: e2e5 is not legal in ..."). */
int cr_event_resolve_move(cr_store_event *ev, const cr_position *before, cr_error *err);

/* Decodes, resolves against the store's game and applies: the whole path of
 * one message into a store. Returns 0 or an error (err filled); the store
 * is unchanged on error. If out is not NULL it receives the applied event
 * (caller frees), else the event is freed. */
int cr_event_apply_json(cr_store *store, const char *text, size_t len, cr_store_event **out,
                        cr_error *err);

/* An engine evaluation as the venue publishes it to NATS (nats_out.h):
 * {"type":"eval","game":G,"ply":P,"fen":F,"eval":{...}}, the eval as in
 * docs/protocol.md (cp or mate, depth, best, pv, optional nag and lines)
 * and fen the position after ply P it is of. Returns 0 with the fields
 * set, or CR_EPROTO with err naming the field. */
int cr_eval_decode(const char *text, size_t len, int *game, int *ply, char fen[CR_FEN_MAX],
                   cr_eval *e, cr_error *err);

#endif
