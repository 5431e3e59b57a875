/* libFuzzer target: arbitrary bytes as the messages of one /ws client (one
 * message per line), handled by the server's message handler
 * (cr_srv_viewer_message, relay/net/server_ws.c) without a socket: hello
 * with right and wrong tokens, subscriptions, commands, arbiter ops. It must
 * never crash, hang or leak; a command reaches the loop only from an
 * arbiter's connection, with a game id in range and a valid tag name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "cr/pgn.h"
#include "net/server_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_server *server(void)
{
    static cr_server *s;
    static cr_config *cfg;
    if (s) {
        return s;
    }
    cr_error err;
    /* the tokens the seeds use */
    cfg = cr_config_parse("{\"tokens\":[{\"role\":\"arbiter\",\"token\":\"arbiter-secret-1\"},"
                          "{\"role\":\"agent\",\"token\":\"agent-secret-1\",\"agents\":[\"a\"]}]}",
                          "fuzz.json", NULL, &err);
    s = calloc(1, sizeof *s);
    if (!cfg || !s) {
        abort();
    }
    s->cfg.tournament = cfg;
    s->cfg.ring = 64;
    s->cfg.backlog = 64;
    s->cfg.max_message = 4096;
    s->cfg.rate = 20;
    for (int l = 0; l < LANE_NB; l++) {
        s->views[l] = cr_view_new(64);
    }
    s->cmds = cr_queue_new(1024, NULL, NULL);
    if (!s->views[LANE_LIVE] || !s->views[LANE_PUBLIC] || !s->cmds) {
        abort();
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_server *s = server();
    pss p;
    memset(&p, 0, sizeof p);
    p.kind = PSS_WS;
    p.lane = LANE_PUBLIC;
    p.tokens = s->cfg.rate;
    if (!cr_srv_slot_add(s, &p)) {
        return 0;
    }
    const char *text = (const char *)data;
    size_t at = 0;
    while (at < size && p.faults < 5) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
        if (len <= s->cfg.max_message) {
            cr_srv_viewer_message(s, &p, text + at, len);
        }
        at += len + 1;
        /* Checked after each message: a later hello may take the role away
         * again, which does not undo what an arbiter did before. */
        cr_command_msg *c;
        while ((c = cr_queue_pop(s->cmds)) != NULL) {
            bool ok = p.arbiter && c->game >= 1 &&
                      (c->kind != CR_COMMAND_TAG || cr_pgn_tag_name_ok(c->name));
            free(c);
            if (!ok) {
                abort();
            }
        }
    }
    cr_srv_slot_remove(s, &p);
    if (p.trusted) {
        s->ntrusted--;
    }
    cr_srv_free_viewer(&p);
    return 0;
}
