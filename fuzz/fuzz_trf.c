/* libFuzzer target: arbitrary bytes through the TRF reader and the
 * pairings-PGN tag scanner, then every accessor and the diff of the two
 * results; a TRF's last round's results written back into it
 * (cr_pairings_trf_results) and read again. Must never crash, hang or leak. Run e.g.
 *   build-fuzz/fuzz/fuzz_trf -max_total_time=60 tests/data/pairings */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/pairings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every string handed out must be valid UTF-8 (it goes to JSON viewers). */
static size_t utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (u[i]) {
        int len = u[i] < 0x80             ? 1
                  : (u[i] & 0xE0) == 0xC0 ? 2
                  : (u[i] & 0xF0) == 0xE0 ? 3
                  : (u[i] & 0xF8) == 0xF0 ? 4
                                          : 0;
        if (len == 0) {
            __builtin_trap();
        }
        for (int k = 1; k < len; k++) {
            if ((u[i + k] & 0xC0) != 0x80) {
                __builtin_trap();
            }
        }
        i += (size_t)len;
    }
    return i;
}

/* Touches every field so that ASan sees any bad pointer or unterminated string. */
static size_t walk(const cr_pairings *p)
{
    size_t sum = 0;
    if (!p) {
        return 0;
    }
    for (int f = 0; f < CR_PF_NB; f++) {
        sum += utf8(cr_pairings_info(p, (cr_pairings_field)f));
    }
    for (int i = 0; i < cr_pairings_player_count(p); i++) {
        const cr_pairing_player *pl = cr_pairings_player(p, i);
        sum += utf8(pl->name) + utf8(pl->title) + utf8(pl->fed) + utf8(pl->birth);
    }
    for (int r = 0; r <= cr_pairings_round_count(p) + 1; r++) {
        int n = 0;
        const cr_pairing *b = cr_pairings_boards(p, r, &n);
        for (int i = 0; i < n; i++) {
            sum += utf8(b[i].white.name) + utf8(b[i].black.name) + utf8(b[i].result);
            if (cr_pairings_board(p, r, b[i].table) == NULL) {
                __builtin_trap(); /* every listed board must be found by its table */
            }
        }
        const cr_pairing_bye *y = cr_pairings_byes(p, r, &n);
        for (int i = 0; i < n; i++) {
            sum += utf8(y[i].player.name) + (size_t)(unsigned char)y[i].kind;
        }
    }
    return sum;
}

/* Results for every board of the last round (a result of each kind,
 * every other one confirmed) written into the text: the output reads back
 * with the confirmed ones in their boards. */
static void results_back(const cr_pairings *p, const char *text, size_t size)
{
    static const char *const kinds[] = {"1-0", "0-1", "1/2-1/2", "+--", "--+", "---", "*"};
    int round = cr_pairings_round_count(p), n = 0;
    const cr_pairing *b = cr_pairings_boards(p, round, &n);
    if (n <= 0 || n > 256) {
        return;
    }
    cr_round_result res[256];
    for (int i = 0; i < n; i++) {
        res[i] = (cr_round_result){.table = b[i].table, .confirmed = i % 2 == 0,
                                   .unrated = i % 5 == 4};
        strcpy(res[i].result, kinds[i % 7]);
    }
    cr_error err;
    size_t len = 0;
    char *out = cr_pairings_trf_results(p, text, size, round, res, n, &len, &err);
    if (!out) {
        if (err.code != CR_EINVAL && err.code != CR_ENOMEM) {
            __builtin_trap();
        }
        return;
    }
    cr_pairings *back = cr_pairings_parse(out, len, CR_PAIRINGS_TRF, &err);
    if (!back) {
        __builtin_trap(); /* what was written must read back */
    }
    for (int i = 0; i < n; i += 2) {
        const cr_pairing *w = cr_pairings_board(back, round, res[i].table);
        const char *want = res[i].unrated && strcmp(res[i].result, "1/2-1/2") == 0 ? "1/2-1/2"
                                                                                   : res[i].result;
        if (!w || strcmp(w->result, want) != 0) {
            __builtin_trap();
        }
    }
    cr_pairings_free(back);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_error err;
    const char *text = (const char *)data;
    cr_pairings *trf = cr_pairings_parse(text, size, CR_PAIRINGS_TRF, &err);
    if (!trf && (err.code >= 0 || strlen(err.text) >= sizeof err.text)) {
        __builtin_trap(); /* a failure must say why */
    }
    cr_pairings *pgn = cr_pairings_parse(text, size, CR_PAIRINGS_PGN, &err);
    if (!pgn && err.code >= 0) {
        __builtin_trap();
    }
    cr_pairings *any = cr_pairings_parse(text, size, CR_PAIRINGS_AUTO, &err);
    volatile size_t sink = walk(trf) + walk(pgn) + walk(any);
    (void)sink;
    if (trf && pgn) {
        cr_pairing_change *ch = NULL;
        int n = cr_pairings_diff(trf, pgn, &ch);
        for (int i = 0; i < n; i++) {
            if ((ch[i].old_board == NULL) != (ch[i].kind == CR_PAIRING_ADDED)) {
                __builtin_trap();
            }
        }
        cr_pairing_changes_free(ch);
    }
    if (trf) {
        /* A set against itself has no change. */
        cr_pairing_change *ch = NULL;
        if (cr_pairings_diff(trf, trf, &ch) != 0 || ch != NULL) {
            __builtin_trap();
        }
    }
    if (trf) {
        results_back(trf, text, size);
    }
    cr_pairings_free(trf);
    cr_pairings_free(pgn);
    cr_pairings_free(any);
    return 0;
}
