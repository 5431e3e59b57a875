/* chessrelay relay: one message of the venue's stream as an edge holds it
 * (edge/edge_sub reads them from NATS), and its line in the edge's state
 * log (edge/edge_log):
 *
 *   <stream seq> <tournament> <seq> <delay> <ply> <message>
 *
 * ply is "emt_ms,ts,fits" (a move's Cr-Ply header), "-" (none) or "eval"
 * (an engine evaluation; seq is then its Cr-After); delay is the venue's
 * Cr-Delay in seconds, -1 unknown; message is the JSON as published.
 *
 * Pure functions. A cr_edge_msg is one malloc'ed block: free it with free(). */
#ifndef CR_RELAY_EDGE_MSG_H
#define CR_RELAY_EDGE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cr/common.h"

#define CR_EDGE_TOURNAMENT_MAX 64 /* CR_NATS_TOKEN_MAX (out/nats_out.h) */

typedef struct cr_edge_msg {
    uint64_t sseq;     /* stream sequence */
    uint64_t npending; /* messages left in the stream after it (caught up when 0) */
    int64_t seq;       /* relay seq (Cr-Seq); an eval: its Cr-After */
    int delay_s;       /* the venue's public delay (Cr-Delay), -1 unknown */
    bool has_ply;
    bool eval; /* an engine evaluation */
    int32_t emt_ms;
    int64_t ply_ts;
    int fits;
    char tournament[CR_EDGE_TOURNAMENT_MAX];
    size_t len;
    char data[]; /* len bytes of JSON and a NUL */
} cr_edge_msg;

/* A new message holding a copy of data (len bytes): no ply, delay -1,
 * npending 0. NULL when out of memory. */
cr_edge_msg *cr_edge_msg_new(const char *data, size_t len);

/* m's state-log line (with its "\n") into *buf (grown as needed, *cap its
 * size). Returns its length or CR_ENOMEM. */
int cr_edge_msg_line(const cr_edge_msg *m, char **buf, size_t *cap);

/* A state-log line (len bytes, without "\n") back into a new message
 * (npending 1: restored messages never say the edge is caught up). NULL
 * with err saying what is wrong (CR_EPROTO, CR_ENOMEM). */
cr_edge_msg *cr_edge_msg_parse(const char *line, size_t len, cr_error *err);

#endif
