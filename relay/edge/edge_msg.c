/* chessrelay relay: an edge's stream message and its state-log line (see
 * edge_msg.h). */
#include "edge/edge_msg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/game.h"
#include "util/grow.h"

cr_edge_msg *cr_edge_msg_new(const char *data, size_t len)
{
    cr_edge_msg *m = calloc(1, sizeof *m + len + 1);
    if (m) {
        memcpy(m->data, data, len);
        m->len = len;
        m->fits = 1;
        m->emt_ms = CR_CLOCK_UNKNOWN;
        m->ply_ts = -1;
        m->delay_s = -1;
    }
    return m;
}

int cr_edge_msg_line(const cr_edge_msg *m, char **buf, size_t *cap)
{
    char ply[96];
    if (m->eval) {
        snprintf(ply, sizeof ply, "eval");
    } else if (m->has_ply) {
        snprintf(ply, sizeof ply, "%" PRId32 ",%" PRId64 ",%d", m->emt_ms, m->ply_ts, m->fits);
    } else {
        snprintf(ply, sizeof ply, "-");
    }
    char head[256];
    int hn = snprintf(head, sizeof head, "%" PRIu64 " %s %" PRId64 " %d %s ", m->sseq,
                      m->tournament[0] ? m->tournament : "_", m->seq, m->delay_s, ply);
    size_t n = (size_t)hn + m->len + 1;
    char *b = cr_grow(*buf, cap, n + 1, 1, 256);
    if (!b || n > INT32_MAX) {
        return CR_ENOMEM;
    }
    *buf = b;
    memcpy(b, head, (size_t)hn);
    memcpy(b + hn, m->data, m->len);
    b[n - 1] = '\n';
    b[n] = '\0';
    return (int)n;
}

cr_edge_msg *cr_edge_msg_parse(const char *line, size_t len, cr_error *err)
{
    unsigned long long sseq;
    long long seq;
    char tournament[CR_EDGE_TOURNAMENT_MAX], ply[96];
    int used = 0, delay;
    char head[256];
    size_t hn = len < sizeof head - 1 ? len : sizeof head - 1;
    memcpy(head, line, hn);
    head[hn] = '\0';
    if (sscanf(head, "%llu %63s %lld %d %95s %n", &sseq, tournament, &seq, &delay, ply, &used) !=
            5 ||
        !used) {
        cr_error_set(err, CR_EPROTO, 0, 0,
                     "expected <stream seq> <tournament> <seq> <delay> <ply> <message>");
        return NULL;
    }
    if ((size_t)used >= len) {
        cr_error_set(err, CR_EPROTO, 0, 0, "no message after the ply field");
        return NULL;
    }
    cr_edge_msg *m = cr_edge_msg_new(line + used, len - (size_t)used);
    if (!m) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    m->sseq = sseq;
    m->seq = seq;
    m->delay_s = delay;
    m->npending = 1;
    snprintf(m->tournament, sizeof m->tournament, "%s", tournament);
    long long ts;
    int emt, fits, end = 0;
    if (strcmp(ply, "eval") == 0) {
        m->eval = true;
    } else if (strcmp(ply, "-") != 0) {
        if (sscanf(ply, "%d,%lld,%d%n", &emt, &ts, &fits, &end) != 3 || ply[end]) {
            cr_error_set(err, CR_EPROTO, 0, 0, "ply: expected emt,ts,fits, - or eval, got '%s'",
                         ply);
            free(m);
            return NULL;
        }
        m->has_ply = true;
        m->emt_ms = emt;
        m->ply_ts = ts;
        m->fits = fits;
    }
    return m;
}
