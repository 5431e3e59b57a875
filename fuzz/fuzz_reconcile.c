/* libFuzzer target: a scoresheet of arbitrary text reconciled with a record
 * that has a gap (the Opera game, plies 10..15 not seen). Whatever the sheet
 * holds, the reconciled game keeps every ply of the record but the gap's,
 * and its items stay in ply order inside the game. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/pgn.h"
#include "cr/reconcile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_game *record(void)
{
    static const char *const opera =
        "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 "
        "8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 "
        "14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0";
    cr_game *truth = NULL, *g = cr_game_new(NULL);
    cr_error err;
    if (!g || cr_pgn_parse(opera, strlen(opera), -1, &truth, &err)) {
        abort();
    }
    for (int i = 0; i < cr_game_ply_count(truth); i++) {
        const cr_ply *p = cr_game_ply(truth, i);
        if (i == 15) {
            cr_game_push_illegal(g, &p->after, "--", CR_CLOCK_UNKNOWN, -1);
            cr_ply *q = cr_game_ply_mut(g, cr_game_ply_count(g) - 1);
            q->flags |= CR_PLY_MISSING;
            q->missing = 4;
        } else if (i < 10 || i > 15) {
            cr_game_push(g, p->move, CR_CLOCK_UNKNOWN, -1, 0);
        }
    }
    cr_game_free(truth);
    return g;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cr_game *rec;
    if (!rec) {
        rec = record();
    }
    if (size > 4096) {
        return 0;
    }
    cr_recon_result *r = NULL;
    cr_error err;
    if (cr_reconcile(rec, (const char *)data, size, -1, &r, &err)) {
        if (r) {
            abort();
        }
        return 0;
    }
    int plies = cr_game_ply_count(r->game), filled = 0, last = 0;
    for (int i = 0; i < r->count; i++) {
        const cr_recon_item *it = &r->items[i];
        if (it->ply < last || it->ply > plies) {
            abort();
        }
        last = it->ply;
        if (it->kind == CR_RECON_GAP_FILLED) {
            filled += it->count - 1;
        }
    }
    if (plies != cr_game_ply_count(rec) + filled) {
        abort();
    }
    cr_reconcile_free(r);
    return 0;
}
