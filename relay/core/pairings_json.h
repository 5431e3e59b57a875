/* chessrelay relay: the pairings file as the JSON the viewer's standings
 * read (GET /pairings.json, docs/protocol.md): the players with their start
 * rank, rating, federation and the file's own points, the rounds' dates,
 * every round's boards
 * with the file's results (forfeits included) and every round's byes. The
 * viewer merges it with the live results (web/src/standings.js), so rounds
 * played before the relay started and byes count.
 *
 * Ownership: returns a new NUL-terminated string (free() it), or NULL when
 * out of memory. p is only read. */
#ifndef CR_RELAY_PAIRINGS_JSON_H
#define CR_RELAY_PAIRINGS_JSON_H

#include "cr/pairings.h"

char *cr_pairings_json(const cr_pairings *p);

#endif
