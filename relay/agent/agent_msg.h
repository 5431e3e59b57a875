/* chessrelay relay: the messages of the agent link (docs/protocol.md,
 * "Agents"). A venue agent forwards its boards' feed events to a central
 * relay over one WebSocket; every event carries a number that grows by one
 * per event of that agent, and the relay acknowledges (cumulatively) what
 * its journal holds durably.
 *
 *   agent -> relay   {"op":"agent-hello","agent":"venue-a","token":"...","clock":C,"last":N}
 *                    {"op":"ev","n":17,"clock":C,"lines":["<feed line>", ...]}  (17, 18, ...)
 *                    {"op":"tick","clock":C,"last":N}
 *                    {"op":"bye","last":N}
 *   relay -> agent   {"type":"welcome","agent":"venue-a","acked":N}
 *                    {"type":"ack","n":N}
 *                    {"type":"error","error":"...","where":"..."}
 *
 * Pure functions (jansson only): encoders return a new malloc'ed
 * NUL-terminated JSON text (NULL when out of memory), the decoder fills a
 * cr_amsg that owns its lines (cr_amsg_clear frees them). */
#ifndef CR_RELAY_AGENT_MSG_H
#define CR_RELAY_AGENT_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cr/common.h"

#define CR_AGENT_ID_MAX 64
#define CR_AGENT_TOKEN_MAX 256
#define CR_AGENT_BATCH_MAX 256          /* lines in one "ev" message */
/* How far past the next expected number an "ev" may start: an agent sends
 * its events in order from the relay's welcome, so a real one is never
 * more than a batch ahead; a bigger jump is a forged or broken number,
 * refused so that it can never be acked and wedge the agent's numbering. */
#define CR_AGENT_AHEAD_MAX CR_AGENT_BATCH_MAX
#define CR_AGENT_MESSAGE_MAX (256 * 1024) /* bytes of one message, either way */
#define CR_AGENT_TIME_MAX ((int64_t)1 << 50) /* |clock| and |event time| in ms: sums
                                                of a few never overflow */
#define CR_AGENT_SEQ_MAX ((int64_t)1 << 40) /* event numbers ("n", "last", "acked"): 10^12
                                               events, and n + a batch never overflows */

typedef enum cr_amsg_kind {
    CR_AMSG_HELLO = 0,
    CR_AMSG_EV,
    CR_AMSG_TICK,
    CR_AMSG_BYE,
    CR_AMSG_WELCOME,
    CR_AMSG_ACK,
    CR_AMSG_ERROR
} cr_amsg_kind;

typedef struct cr_amsg {
    cr_amsg_kind kind;
    char agent[CR_AGENT_ID_MAX + 1];  /* HELLO, WELCOME */
    char token[CR_AGENT_TOKEN_MAX + 1]; /* HELLO */
    int64_t clock;  /* HELLO: the agent's feed clock now (ms); EV, TICK: its watermark,
                       every event stamped up to this time has been sent */
    int64_t n;      /* EV: number of lines[0]; ACK, WELCOME: acknowledged up to n;
                       HELLO, TICK, BYE: the agent's last event number */
    char **lines;   /* EV: owned, each NUL-terminated, without "\n" */
    size_t *lens;
    size_t count;
    char error[200]; /* ERROR: error text, then where (truncated) */
} cr_amsg;

/* Parses one message (either direction). Returns 0 with m filled, or
 * CR_EPROTO with err naming the field ("ev: lines[3]: expected a string
 * without newlines"). m is cleared first; call cr_amsg_clear afterwards in
 * both cases. */
int cr_amsg_parse(const char *text, size_t len, cr_amsg *m, cr_error *err);
void cr_amsg_clear(cr_amsg *m);

char *cr_amsg_hello(const char *agent, const char *token, int64_t clock, int64_t last);
/* lines[i] (lens[i] bytes, no "\n") is event first + i; count >= 1. */
char *cr_amsg_events(int64_t first, int64_t clock, const char *const *lines, const size_t *lens,
                     size_t count);
char *cr_amsg_tick(int64_t clock, int64_t last);
char *cr_amsg_bye(int64_t last);
char *cr_amsg_welcome(const char *agent, int64_t acked);
char *cr_amsg_ack(int64_t n);
char *cr_amsg_error(const char *error, const char *where);

/* True if s is a valid agent id: 1..CR_AGENT_ID_MAX of A-Z a-z 0-9 . _ - */
bool cr_agent_id_valid(const char *s);

#endif
