/* chessrelay relay: an arbiter's action on a game, as it goes from the
 * WebSocket thread (parsed from an "arbiter-action" message) to the loop
 * thread (applied by the arbiter link). Plain data, no pointers: it travels
 * inside a cr_command_msg freed with free(). */
#ifndef CR_RELAY_ARBITER_CMD_H
#define CR_RELAY_ARBITER_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "cr/arbiter.h"

typedef enum cr_arbiter_action {
    CR_ARB_RESULT = 0, /* set/change the result ("result") */
    CR_ARB_DRAW_OFFER, /* mark/clear a draw offer on a ply ("draw-offer") */
    CR_ARB_TAKE_BACK,  /* keep `ply` plies ("take-back") */
    CR_ARB_PLAYERS,    /* White/Black names ("players") */
    CR_ARB_CLAIM,      /* a draw claim: D1 a/b, threefold, 50 moves ("claim") */
    CR_ARB_DECIDE,     /* the decision on the pending claim ("decide") */
    CR_ARB_CONFIRM_FLAG, /* `color`'s flag fell, seen on the clock ("confirm-flag") */
    CR_ARB_REPLACE_MOVE, /* ply `ply` was `move` ("replace-move") */
    CR_ARB_ACK,          /* alert `alert` seen by an arbiter ("ack") */
    CR_ARB_ACTION_NB
} cr_arbiter_action;

#define CR_ARB_NAME_MAX 128
#define CR_ARB_ALERT_MAX 48 /* an alert's key: an incident's seq ("3"), "attention@41", ... */

typedef struct cr_arbiter_cmd {
    cr_arbiter_action action;
    int game;
    cr_result result;       /* RESULT */
    int ply;                /* DRAW_OFFER: ply index (-1 last); TAKE_BACK: plies kept;
                               REPLACE_MOVE: the ply (0-based) */
    bool offered;           /* DRAW_OFFER */
    int color;              /* CLAIM: claimant; CONFIRM_FLAG: whose flag (CR_WHITE/CR_BLACK) */
    cr_claim_basis basis;   /* CLAIM */
    char move[16];          /* CLAIM (threefold, 50 moves): the move written, "" none;
                               REPLACE_MOVE: the move played (SAN or UCI) */
    cr_decision decision;   /* DECIDE */
    int32_t added_ms;       /* DECIDE: time added on rejection (-1: default) */
    bool has_white, has_black;
    char white[CR_ARB_NAME_MAX], black[CR_ARB_NAME_MAX]; /* PLAYERS */
    char text[CR_INCIDENT_TEXT_MAX];                      /* reason or note (may be empty) */
    char alert[CR_ARB_ALERT_MAX];                         /* ACK: the alert's key */
    char who[64];                                         /* the token's name, for the log */
} cr_arbiter_cmd;

/* "result", "draw-offer", ... ; "?" when out of range. */
const char *cr_arbiter_action_name(cr_arbiter_action a);

/* An alert key: 1 to CR_ARB_ALERT_MAX - 1 of A-Z a-z 0-9 @ : . _ - */
bool cr_arbiter_alert_ok(const char *key);

/* Parses the JSON text of an "arbiter-action" message:
 *   {"op":"arbiter-action","game":7,"action":"result","result":"1-0","reason":"..."}
 *   "action":"draw-offer","ply":12,"offered":true       (ply -1 or absent: the last)
 *   "action":"take-back","plies":40,"reason":"..."      (plies kept)
 *   "action":"players","white":"...","black":"..."       (either may be absent)
 *   "action":"claim","claimant":"w"|"b","basis":"a"|"b"|"threefold"|"fifty-moves","move":"Nf3"
 *                                                        (move: threefold / 50 moves only, optional)
 *   "action":"confirm-flag","color":"w"|"b","reason":"..."
 *   "action":"replace-move","ply":12,"move":"Nf3","reason":"..."
 *   "action":"decide","decision":"draw"|"rejected"|"postponed","added_ms":120000,"note":"..."
 *   "action":"ack","alert":"3"                           (an incident's seq, "attention@41", ...)
 * Returns 0, or CR_EINVAL with a message naming the field in err. */
int cr_arbiter_cmd_parse(const char *json, size_t len, cr_arbiter_cmd *out, char *err,
                         size_t err_size);

#endif
