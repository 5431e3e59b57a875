/* chessrelay replay FEED... : runs recorded feeds through the move inference
 * (one engine per board id) and prints every game as PGN. RAW lines are
 * decoded with the DGT board codec of drivers/ exactly like a live board;
 * a board with RAW lines is replayed from them alone (its decoded lines say
 * the same, but a board's event log replays many changes from one RAW
 * line, which its decoded lines repeat after it). After the inference the
 * games go the served relay's way: store events into a store, judged by
 * the arbiters' result rules (core/verdicts.h), written from the store. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "util/grow.h"
#include "util/opts.h"
#include "cr/board.h"
#include "cr/feed.h"
#include "cr/infer.h"
#include "core/board_games.h"
#include "core/board_infer.h"
#include "core/store.h"
#include "core/verdicts.h"

typedef struct replay_board replay_board;

/* A store game as replay names it: its number on its engine (for its
 * gaps), and when the inference began it (games are listed in that order,
 * whenever the store opened them). */
typedef struct game_name {
    bool set;
    int number;
    unsigned began;
} game_name;

/* After the inference, the served relay's back half: each board's store
 * events (core/board_games) into a store, and the result rules of the
 * arbiters' monitors (core/verdicts: flag falls, automatic draws) over it,
 * their store events applied after. One store per feed: a finished feed's
 * games never change again, and a large corpus need not be held. */
typedef struct replay {
    replay_board **boards;
    size_t nboards, capboards;
    FILE *events;          /* --events: where event lines go, or NULL */
    cr_infer_config cfg;
    int64_t *delays;       /* MOVE latencies (ms) */
    size_t ndelays, capdelays;
    bool oom;
    cr_config *tournament; /* no tournament file: the defaults, as `replay --serve` */
    cr_board_games_config games_cfg;
    cr_store *store;       /* the current feed's games */
    cr_verdicts *verdicts;
    int next_game;         /* store ids, across feeds */
    int64_t seq, t;        /* the last store event's seq; the feed time now */
    game_name *names;      /* per store id */
    size_t capnames;
    unsigned began;        /* inference games begun so far */
} replay;

struct replay_board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_board_infer *infer;
    cr_board_games *games;
    int game_number;       /* of the engine's current game */
    unsigned began;        /* when it began, in the replay's count */
    replay *rp;
};

/* A store event: seq and ts, applied, and the verdicts told (unless they
 * made it). Takes ev. */
static void apply_event(replay *rp, cr_store_event *ev, bool tell)
{
    if (!ev) {
        rp->oom = true;
        return;
    }
    ev->seq = ++rp->seq;
    ev->ts = rp->t * 1000;
    cr_error err;
    if (cr_store_apply(rp->store, ev, &err)) {
        fprintf(stderr, "chessrelay replay: store: %s\n", err.text);
    } else if (tell && cr_verdicts_on_store_event(rp->verdicts, ev, rp->t)) {
        rp->oom = true;
    }
    cr_store_event_free(ev);
}

static void games_emit(void *data, cr_store_event *ev)
{
    apply_event(data, ev, true);
}

static int new_game_id(void *data)
{
    replay *rp = data;
    return ++rp->next_game;
}

/* The board's source is at the feed's time: the games the rules ended
 * there (a flag on the clock's evidence, an automatic draw) are told to
 * the store, as the served relay's arbiter link tells it. */
static void judge(replay *rp, const char *board)
{
    if (cr_verdicts_source_time(rp->verdicts, board, rp->t)) {
        rp->oom = true;
    }
    cr_store_event *ev;
    while ((ev = cr_verdicts_take_event(rp->verdicts)) != NULL) {
        apply_event(rp, ev, false);
    }
}

/* The store game id is the board's game now: named when it is new. */
static void name_game(replay *rp, const replay_board *b, int id)
{
    size_t had = rp->capnames;
    if (id <= 0 || ((size_t)id < had && rp->names[id].set)) {
        return;
    }
    game_name *n = cr_grow(rp->names, &rp->capnames, (size_t)id + 1, sizeof *n, 64);
    if (!n) {
        rp->oom = true;
        return;
    }
    memset(n + had, 0, (rp->capnames - had) * sizeof *n);
    rp->names = n;
    rp->names[id] = (game_name){.set = true, .number = b->game_number, .began = b->began};
}

static const char *kind_name(cr_infer_kind k)
{
    static const char *const names[] = {"started", "move", "correction", "ended",
                                        "attention", "resynced", "clock", "meta",
                                        "ply-clock"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static void on_event(void *data, const cr_infer_event *ev)
{
    replay_board *b = data;
    replay *rp = b->rp;
    if (ev->game_number != b->game_number || !b->began) {
        b->began = ++rp->began;
    }
    b->game_number = ev->game_number;
    cr_board_games_on_infer(b->games, ev);
    name_game(rp, b, cr_board_games_game(b->games));
    if (ev->kind == CR_INFER_MOVE) {
        int64_t *n = cr_grow(rp->delays, &rp->capdelays, rp->ndelays + 1, sizeof *n, 256);
        if (n) {
            rp->delays = n;
            rp->delays[rp->ndelays++] = ev->t - ev->t_snapshot;
        }
    }
    if (!rp->events) {
        return;
    }
    FILE *f = rp->events;
    fprintf(f, "%" PRId64 " %s %s game=%d", ev->t, b->id, kind_name(ev->kind), ev->game_number);
    switch (ev->kind) {
    case CR_INFER_MOVE: {
        const cr_ply *p = cr_game_ply(ev->game, ev->ply);
        if (p) {
            char fen[CR_FEN_MAX];
            cr_position_to_fen(&p->after, fen, sizeof fen);
            fprintf(f, " ply=%d san=%s uci=%s delay=%" PRId64 " fits=%u%s%s%s", ev->ply + 1, p->san, p->uci,
                    ev->t - ev->t_snapshot, p->fits, p->flags & CR_PLY_RECONSTRUCTED ? " reconstructed" : "",
                    p->flags & CR_PLY_AMBIGUOUS ? " ambiguous" : "", p->flags & CR_PLY_ILLEGAL ? " illegal" : "");
            if (p->flags & CR_PLY_MISSING) {
                fprintf(f, " missing=%u", (unsigned)p->missing);
            }
            fprintf(f, " fen=%s", fen);
        }
        break;
    }
    case CR_INFER_CORRECTION:
        fprintf(f, " from_ply=%d retracted=%d reason=\"%s\"", ev->ply + 1, ev->retracted, ev->reason);
        break;
    case CR_INFER_PLY_CLOCK: {
        const cr_ply *p = cr_game_ply(ev->game, ev->ply);
        if (p) {
            fprintf(f, " ply=%d clock=%" PRId32 " emt=%" PRId32, ev->ply + 1, p->clock_ms, p->emt_ms);
        }
        break;
    }
    case CR_INFER_GAME_ENDED:
        fprintf(f, " result=%s reason=\"%s\"", cr_result_string(ev->result), ev->reason ? ev->reason : "");
        break;
    case CR_INFER_ATTENTION: {
        fprintf(f, " reason=\"%s\" squares=", ev->reason ? ev->reason : "");
        bool first = true;
        for (int sq = 0; sq < 64; sq++) {
            if (ev->squares & (1ull << sq)) {
                char nm[3];
                cr_square_name(sq, nm);
                fprintf(f, "%s%s", first ? "" : ",", nm);
                first = false;
            }
        }
        break;
    }
    case CR_INFER_CLOCK: {
        char w[24], bl[24];
        cr_feed_format_clock(ev->white_ms, w, sizeof w);
        cr_feed_format_clock(ev->black_ms, bl, sizeof bl);
        fprintf(f, " white=%s black=%s running=%c", w, bl,
                ev->running == CR_WHITE ? 'w' : ev->running == CR_BLACK ? 'b' : '-');
        break;
    }
    default:
        if (ev->reason) {
            fprintf(f, " reason=\"%s\"", ev->reason);
        }
        break;
    }
    fputc('\n', f);
}

static replay_board *get_board(replay *rp, const char *id)
{
    for (size_t i = 0; i < rp->nboards; i++) {
        /* the first letter at once: called for every line of a feed */
        if (rp->boards[i]->id[0] == id[0] && strcmp(rp->boards[i]->id, id) == 0) {
            return rp->boards[i];
        }
    }
    replay_board **n = cr_grow(rp->boards, &rp->capboards, rp->nboards + 1, sizeof *n, 8);
    if (!n) {
        return NULL;
    }
    rp->boards = n;
    replay_board *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    snprintf(b->id, sizeof b->id, "%s", id);
    b->rp = rp;
    b->infer = cr_board_infer_new(id, &rp->cfg, on_event, b);
    b->games = cr_board_games_new(&rp->games_cfg, id, (int)rp->nboards + 1);
    if (!b->infer || !b->games) {
        cr_board_infer_free(b->infer);
        cr_board_games_free(b->games);
        free(b);
        return NULL;
    }
    rp->boards[rp->nboards++] = b;
    return b;
}

static void finish_boards(replay *rp)
{
    for (size_t i = 0; i < rp->nboards; i++) {
        replay_board *b = rp->boards[i];
        cr_infer *inf = cr_board_infer_engine(b->infer);
        cr_infer_finish(inf, INT64_MAX / 4);
        cr_board_games_flush(b->games);
    }
    judge(rp, NULL);
    for (size_t i = 0; i < rp->nboards; i++) {
        cr_board_infer_free(rp->boards[i]->infer);
        cr_board_games_free(rp->boards[i]->games);
        free(rp->boards[i]);
    }
    rp->nboards = 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* A regular file's whole text, read at once, so that its lines are parsed
 * in place (a line copied out of a FILE for each of a corpus's lines cost
 * as much as parsing it). NULL for anything else (a pipe, a device, a file
 * over 256 MiB, an error), read line by line from the start then. */
static char *read_whole(FILE *in, size_t *len)
{
    struct stat st;
    if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (256 << 20)) {
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0; /* one more: the end is seen at once */
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, in);
        n += got;
        if (got == 0) {
            break;
        }
        if (n == cap) { /* it grew meanwhile */
            char *more = cap < (256u << 20) ? realloc(buf, cap * 2) : NULL;
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    if (!buf || ferror(in)) {
        free(buf);
        clearerr(in);
        rewind(in);
        return NULL;
    }
    *len = n;
    return buf;
}

static int run_feed(replay *rp, const char *path, bool keep_going, cr_infer_stats *total)
{
    if (!rp->store) {
        rp->store = cr_store_new();
        rp->verdicts = rp->store ? cr_verdicts_new(rp->store, rp->tournament->time_control) : NULL;
        rp->games_cfg.store = rp->store;
        if (!rp->verdicts) {
            fprintf(stderr, "chessrelay replay: out of memory\n");
            return 1;
        }
    }
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!in) {
        fprintf(stderr, "chessrelay replay: cannot open %s\n", path);
        return 1;
    }
    /* Large reads, before any: read line by line, through this buffer. */
    setvbuf(in, NULL, _IOFBF, 1 << 16);
    size_t text_len = 0;
    char *text = in == stdin ? NULL : read_whole(in, &text_len);
    cr_feed_reader *r = text ? cr_feed_reader_new_text(text, text_len, path) : cr_feed_reader_new(in, path);
    if (!r) {
        if (in != stdin) {
            fclose(in);
        }
        free(text);
        fprintf(stderr, "chessrelay replay: out of memory\n");
        return 1;
    }
    cr_feed_reader_set_keep_going(r, keep_going);
    int status = 0;
    for (;;) {
        cr_feed_event ev;
        cr_error err;
        int rc = cr_feed_reader_next(r, &ev, &err);
        if (rc == 0) {
            break;
        }
        if (rc < 0) {
            if (keep_going && rc == CR_EFEED) {
                fprintf(stderr, "chessrelay replay: warning: %s (line skipped)\n", err.text);
                continue;
            }
            fprintf(stderr, "chessrelay replay: %s\n", err.text);
            status = 1;
            break;
        }
        if (err.code != 0) {
            fprintf(stderr, "chessrelay replay: warning: %s\n", err.text);
        }
        replay_board *b = get_board(rp, ev.board);
        if (!b) {
            fprintf(stderr, "chessrelay replay: out of memory\n");
            status = 1;
            break;
        }
        rp->t = ev.t;
        bool link = ev.kind == CR_FEED_CONNECT || ev.kind == CR_FEED_DISCONNECT;
        if (link) {
            cr_board_games_set_online(b->games, ev.kind == CR_FEED_CONNECT);
        }
        if (cr_board_infer_feed(b->infer, &ev)) {
            fprintf(stderr, "chessrelay replay: out of memory\n");
            status = 1;
            break;
        }
        cr_board_games_flush(b->games);
        if (link) {
            cr_board_games_link_status(b->games);
        }
        judge(rp, b->id);
    }
    for (size_t i = 0; i < rp->nboards; i++) {
        cr_infer_stats st;
        cr_infer_get_stats(cr_board_infer_engine(rp->boards[i]->infer), &st);
        total->snapshots += st.snapshots;
        total->moves += st.moves;
        total->corrections += st.corrections;
        total->retracted += st.retracted;
        total->replaced += st.replaced;
        total->attentions += st.attentions;
        total->searches += st.searches;
        total->search_nodes += st.search_nodes;
        total->illegal += st.illegal;
        total->gave_up += st.gave_up;
        total->gaps_counted += st.gaps_counted;
    }
    finish_boards(rp);
    cr_feed_reader_free(r);
    free(text);
    if (in != stdin) {
        fclose(in);
    }
    return status;
}

/* Every stretch the board was not followed through, named: the game goes
 * on after it, and the moves in it are not invented. */
static void name_gaps(const cr_game *g, int number)
{
    const char *board = cr_game_tag(g, "Board");
    int n = cr_game_ply_count(g);
    for (int i = 0; i < n; i++) {
        const cr_ply *p = cr_game_ply(g, i);
        if (!(p->flags & CR_PLY_MISSING)) {
            continue;
        }
        if (p->missing > 0) {
            fprintf(stderr, "chessrelay replay: board %s game %d: gap after ply %d: %s%u %s not seen\n",
                    board ? board : "?", number, i, (p->flags & CR_PLY_COUNTED) ? "" : "at least ",
                    (unsigned)p->missing, p->missing == 1 ? "ply" : "plies");
        } else {
            fprintf(stderr, "chessrelay replay: board %s game %d: gap after ply %d: plies not seen\n",
                    board ? board : "?", number, i);
        }
    }
}

static const game_name *name_of(const replay *rp, int id)
{
    static const game_name none;
    return id > 0 && (size_t)id < rp->capnames ? &rp->names[id] : &none;
}

static const replay *sorting; /* qsort's comparison has no data pointer */

static int cmp_began(const void *a, const void *b)
{
    const cr_store_game *x = *(const cr_store_game *const *)a, *y = *(const cr_store_game *const *)b;
    unsigned p = name_of(sorting, x->id)->began, q = name_of(sorting, y->id)->began;
    return p != q ? (p < q ? -1 : 1) : (x->id > y->id) - (x->id < y->id);
}

/* Writes the feed's games with moves, in the order the inference began
 * them, and forgets them with their store. Called after each feed: a
 * finished feed's games never change again (store ids run on across feeds),
 * and a large corpus need not be held in memory. */
static int write_games(replay *rp, FILE *out)
{
    int status = 0, n = rp->store ? cr_store_game_count(rp->store) : 0;
    const cr_store_game **list = n > 0 ? malloc((size_t)n * sizeof *list) : NULL;
    if (n > 0 && !list) {
        rp->oom = true;
        n = 0;
    }
    for (int i = 0; i < n; i++) {
        list[i] = cr_store_game_at(rp->store, i);
    }
    sorting = rp;
    qsort(list, (size_t)n, sizeof *list, cmp_began);
    for (int i = 0; i < n; i++) {
        const cr_store_game *sg = list[i];
        if (cr_game_ply_count(sg->game) == 0) {
            continue; /* a board set up: no game yet */
        }
        name_gaps(sg->game, name_of(rp, sg->id)->number);
        char *text = cr_store_game_pgn_text(sg);
        if (!text || fputs(text, out) == EOF) {
            fprintf(stderr, "chessrelay replay: cannot write the PGN\n");
            status = 1;
        }
        free(text);
    }
    free(list);
    cr_verdicts_free(rp->verdicts);
    cr_store_free(rp->store);
    rp->verdicts = NULL;
    rp->store = NULL;
    return status;
}

static void usage(void)
{
    fprintf(stderr, "usage: chessrelay replay FEED... [--pgn FILE] [--keep-going] [--events] [--stats]\n"
                    "                         [--settle MS]\n");
}

int cr_cmd_replay(int argc, char **argv)
{
    /* --serve: broadcast instead of printing (relay/cmd/cmd_serve.c, the relay's owner). */
    if (cr_relay_wants_serve(argc, argv)) {
        return cr_relay_replay_serve(argc, argv);
    }
    replay rp;
    memset(&rp, 0, sizeof rp);
    cr_infer_config_default(&rp.cfg);
    rp.tournament = cr_config_new();
    if (!rp.tournament) {
        return 1;
    }
    rp.games_cfg = (cr_board_games_config){
        .tournament = rp.tournament, .new_game = new_game_id, .emit = games_emit, .data = &rp};
    const char *pgn_path = NULL;
    bool keep_going = false, events = false, stats = false;
    const char **feeds = calloc((size_t)argc + 1, sizeof *feeds);
    int nfeeds = 0;
    if (!feeds) {
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--pgn") == 0 && i + 1 < argc) {
            pgn_path = argv[++i];
        } else if (strcmp(a, "--keep-going") == 0 || strcmp(a, "-k") == 0) {
            keep_going = true;
        } else if (strcmp(a, "--events") == 0) {
            events = true;
        } else if (strcmp(a, "--stats") == 0) {
            stats = true;
        } else if (strcmp(a, "--settle") == 0 && i + 1 < argc) {
            long long v;
            if (!cr_opt_int("replay", a, argv[++i], 0, 600000, "milliseconds (0..600000)", &v)) {
                free(feeds);
                return 2;
            }
            rp.cfg.settle_ms = (int)v;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            free(feeds);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "chessrelay replay: unknown option '%s'\n", a);
            usage();
            free(feeds);
            return 2;
        } else {
            feeds[nfeeds++] = a;
        }
    }
    if (nfeeds == 0) {
        usage();
        free(feeds);
        return 2;
    }
    FILE *out = stdout;
    if (pgn_path) {
        out = fopen(pgn_path, "w");
        if (!out) {
            fprintf(stderr, "chessrelay replay: cannot write %s\n", pgn_path);
            free(feeds);
            return 1;
        }
    }
    /* Event lines go to stdout when the PGN goes to a file, else stderr. */
    rp.events = events ? (pgn_path ? stdout : stderr) : NULL;
    int status = 0;
    cr_infer_stats total;
    memset(&total, 0, sizeof total);
    for (int i = 0; i < nfeeds; i++) {
        if (run_feed(&rp, feeds[i], keep_going, &total) != 0) {
            status = 1;
        }
        if (write_games(&rp, out) != 0) {
            status = 1;
        }
    }
    if (rp.oom) {
        fprintf(stderr, "chessrelay replay: out of memory\n");
        status = 1;
    }
    if (stats) {
        int64_t med = 0, p99 = 0, worst = 0;
        if (rp.ndelays > 0) {
            qsort(rp.delays, rp.ndelays, sizeof *rp.delays, cmp_i64);
            med = rp.delays[rp.ndelays / 2];
            p99 = rp.delays[(rp.ndelays * 99) / 100 < rp.ndelays ? (rp.ndelays * 99) / 100 : rp.ndelays - 1];
            worst = rp.delays[rp.ndelays - 1];
        }
        fprintf(stderr,
                "replay stats: snapshots=%" PRIu64 " moves=%" PRIu64 " latency_ms median=%" PRId64 " p99=%" PRId64
                " max=%" PRId64 " corrections=%" PRIu64 " retracted=%" PRIu64 " replaced=%" PRIu64
                " attentions=%" PRIu64 " searches=%" PRIu64 " search_nodes=%" PRIu64 " illegal=%" PRIu64 "\n",
                total.snapshots, total.moves, med, p99, worst, total.corrections, total.retracted, total.replaced,
                total.attentions, total.searches, total.search_nodes, total.illegal);
    }
    if (pgn_path && fclose(out) != 0) {
        fprintf(stderr, "chessrelay replay: cannot write %s\n", pgn_path);
        status = 1;
    }
    cr_config_free(rp.tournament);
    free(rp.names);
    free(rp.boards);
    free(rp.delays);
    free(feeds);
    return status;
}
