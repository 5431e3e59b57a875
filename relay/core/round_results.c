/* chessrelay relay: the round's results back to the pairing program (see
 * round_results.h). */
#include "core/round_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/pairings.h"
#include "util/hash.h"
#include "util/log.h"

struct cr_round_results {
    int *confirmed; /* game ids whose result an arbiter stands behind */
    int nconfirmed, capconfirmed;
    /* What the last TRF was made from: made again when any of it differs. */
    cr_round_result *last;
    int nlast;
    uint64_t text_hash; /* of the pairings file's text */
    size_t len;
    int round;
    cr_buf *trf;
    bool complete;
    char last_error[200]; /* logged once */
};

cr_round_results *cr_round_results_new(void)
{
    return calloc(1, sizeof(cr_round_results));
}

void cr_round_results_free(cr_round_results *rr)
{
    if (rr) {
        free(rr->confirmed);
        free(rr->last);
        cr_buf_unref(rr->trf);
        free(rr);
    }
}

static int find_confirmed(const cr_round_results *rr, int game)
{
    for (int i = 0; i < rr->nconfirmed; i++) {
        if (rr->confirmed[i] == game) {
            return i;
        }
    }
    return -1;
}

void cr_round_results_note(cr_round_results *rr, const cr_store_event *ev)
{
    if (!rr || ev->kind != CR_SEV_RESULT) {
        return;
    }
    int game = ev->game;
    bool by_arbiter = ev->by_arbiter;
    int i = find_confirmed(rr, game);
    if (!by_arbiter) {
        if (i >= 0) {
            rr->confirmed[i] = rr->confirmed[--rr->nconfirmed];
        }
        return;
    }
    if (i >= 0) {
        return;
    }
    if (rr->nconfirmed == rr->capconfirmed) {
        int cap = rr->capconfirmed ? rr->capconfirmed * 2 : 64;
        int *n = realloc(rr->confirmed, (size_t)cap * sizeof *n);
        if (!n) {
            cr_log(CR_LOG_ERROR, "results: out of memory, game %d's result counts as unconfirmed",
                   game);
            return;
        }
        rr->confirmed = n;
        rr->capconfirmed = cap;
    }
    rr->confirmed[rr->nconfirmed++] = game;
}

/* The round's results from the store, one per table of the pairings (a
 * table without a game: no result). Returns how many, or -1. */
static int gather(const cr_round_results *rr, const cr_pairings_link *pl, const cr_store *live,
                  const cr_pairing *boards, int nboards, int round, cr_round_result *out)
{
    char name[CR_ROUND_MAX];
    snprintf(name, sizeof name, "%d", round);
    for (int i = 0; i < nboards; i++) {
        out[i] = (cr_round_result){.table = boards[i].table, .result = "*"};
    }
    for (int i = 0; i < cr_store_game_count(live); i++) {
        const cr_store_game *g = cr_store_game_at(live, i);
        if (g->table < 1 || strcmp(g->round, name) != 0 || !cr_pairings_link_owns(pl, g->id)) {
            continue;
        }
        cr_round_result *r = NULL;
        for (int k = 0; k < nboards && !r; k++) {
            r = out[k].table == g->table ? &out[k] : NULL;
        }
        cr_result res = cr_game_result(g->game);
        if (!r || res == CR_RESULT_NONE) {
            continue;
        }
        bool short_game = cr_game_ply_count(g->game) < 2;
        const char *s = cr_result_string(res);
        if (short_game && res != CR_RESULT_DRAW) {
            s = res == CR_RESULT_WHITE ? "+--" : "--+"; /* a default (FIDE 6.7) */
        }
        snprintf(r->result, sizeof r->result, "%s", s);
        r->unrated = short_game && res == CR_RESULT_DRAW;
        r->confirmed = find_confirmed(rr, g->id) >= 0;
    }
    return nboards;
}

static void log_once(cr_round_results *rr, const char *text)
{
    if (strcmp(rr->last_error, text) != 0) {
        snprintf(rr->last_error, sizeof rr->last_error, "%s", text);
        if (text[0]) {
            cr_log(CR_LOG_WARN, "results: %s", text);
        }
    }
}

static bool same_results(const cr_round_result *a, const cr_round_result *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i].table != b[i].table || strcmp(a[i].result, b[i].result) != 0 ||
            a[i].confirmed != b[i].confirmed || a[i].unrated != b[i].unrated) {
            return false;
        }
    }
    return true;
}

static bool complete_round(const cr_round_result *res, int n)
{
    for (int i = 0; i < n; i++) {
        if (!res[i].confirmed || strcmp(res[i].result, "*") == 0) {
            return false;
        }
    }
    return n > 0;
}

int cr_round_results_make(cr_round_results *rr, const cr_pairings_link *pl, const cr_store *live,
                          cr_buf **trf)
{
    const cr_pairings *p = cr_pairings_link_current(pl);
    int rnd = cr_pairings_link_round(pl);
    size_t len = 0;
    const char *text = cr_pairings_link_text(pl, &len);
    *trf = NULL;
    if (!rr || !p || !text || rnd < 1 || cr_pairings_source(p) != CR_PAIRINGS_TRF) {
        return 0;
    }
    int nboards = 0;
    const cr_pairing *boards = cr_pairings_boards(p, rnd, &nboards);
    cr_round_result *res = calloc((size_t)nboards + 1, sizeof *res);
    if (!res) {
        return 0;
    }
    int n = gather(rr, pl, live, boards, nboards, rnd, res);
    uint64_t h = cr_fnv1a(text, len);
    if (rr->trf && rr->text_hash == h && rr->len == len && rr->round == rnd && rr->nlast == n &&
        same_results(rr->last, res, n)) {
        free(res); /* nothing changed since the last one */
    } else {
        cr_error err;
        size_t out_len = 0;
        char *out = cr_pairings_trf_results(p, text, len, rnd, res, n, &out_len, &err);
        log_once(rr, out ? "" : err.text);
        cr_buf_unref(rr->trf);
        rr->trf = out ? cr_buf_take_str(out) : NULL;
        free(rr->last);
        rr->last = res;
        rr->nlast = n;
        rr->text_hash = h;
        rr->len = len;
        rr->round = rnd;
        rr->complete = complete_round(res, n);
    }
    *trf = cr_buf_ref(rr->trf);
    return rr->trf && rr->complete ? rnd : 0;
}
