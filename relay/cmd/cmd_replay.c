/* chessrelay replay FEED... : runs recorded feeds through the move inference
 * (one engine per board id) and prints every game as PGN. RAW lines are
 * decoded with the DGT board codec of drivers/ exactly like a live board;
 * a board with RAW lines is replayed from them alone (its decoded lines say
 * the same, but a board's event log replays many changes from one RAW
 * line, which its decoded lines repeat after it). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "util/grow.h"
#include "util/opts.h"
#include "cr/board.h"
#include "cr/clock.h"
#include "cr/feed.h"
#include "cr/infer.h"
#include "cr/pgn.h"
#include "core/board_infer.h"

typedef struct saved_game {
    unsigned engine;       /* which engine (a board of one feed) played it */
    int number;
    cr_game *game;
    cr_result flag;        /* a flag fell on evidence while the game was open, or NONE */
} saved_game;

typedef struct replay_board replay_board;

typedef struct replay {
    replay_board **boards;
    size_t nboards, capboards;
    saved_game *games;
    size_t ngames, capgames;
    FILE *events;          /* --events: where event lines go, or NULL */
    cr_infer_config cfg;
    unsigned engines;      /* engines made so far */
    int64_t *delays;       /* MOVE latencies (ms) */
    size_t ndelays, capdelays;
    bool oom;
} replay;

struct replay_board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_board_infer *infer;
    int game_number;       /* of the engine's current game */
    unsigned serial;       /* engines are numbered across all feeds */
    /* The clock model of the current game, as the served relay's monitor
     * keeps it: a flag that falls on evidence (the clock's own 0:00, or a
     * sure run-down up to the feed's time) ends an open game (6.9). */
    cr_clock *clock;
    int flag_game;         /* game number whose flag fell (0: none) */
    cr_result flag;
    replay *rp;
};

/* An automatic draw (fivefold, 75 moves) ends the game where it stood, as
 * the served relay's monitor ends it: it wins over any later result. */
static cr_game *clone_judged(const cr_game *g)
{
    cr_game *c = cr_game_clone(g);
    if (c && cr_game_automatic_draw(c, NULL) >= 0) {
        cr_game_set_result(c, CR_RESULT_DRAW);
    }
    return c;
}

/* The flag's result stands unless the game had ended before it fell. */
static void apply_flag(saved_game *s)
{
    if (s->flag != CR_RESULT_NONE && cr_game_result(s->game) == CR_RESULT_NONE) {
        cr_game_set_result(s->game, s->flag);
    }
}

static void save_game(replay *rp, unsigned engine, int number, const cr_game *g, cr_result flag)
{
    if (!g) {
        return;
    }
    for (size_t i = 0; i < rp->ngames; i++) {
        if (rp->games[i].number == number && rp->games[i].engine == engine) {
            cr_game *c = clone_judged(g);
            if (!c) {
                rp->oom = true;
                return;
            }
            cr_game_free(rp->games[i].game);
            rp->games[i].game = c;
            if (flag != CR_RESULT_NONE && rp->games[i].flag == CR_RESULT_NONE &&
                cr_game_result(c) == CR_RESULT_NONE) {
                rp->games[i].flag = flag;
            }
            apply_flag(&rp->games[i]);
            return;
        }
    }
    saved_game *n = cr_grow(rp->games, &rp->capgames, rp->ngames + 1, sizeof *n, 16);
    if (!n) {
        rp->oom = true;
        return;
    }
    rp->games = n;
    saved_game *s = &rp->games[rp->ngames];
    s->engine = engine;
    s->number = number;
    s->game = clone_judged(g);
    s->flag = CR_RESULT_NONE;
    if (!s->game) {
        rp->oom = true;
        return;
    }
    s->flag = cr_game_result(s->game) == CR_RESULT_NONE ? flag : CR_RESULT_NONE;
    apply_flag(s);
    rp->ngames++;
}

/* A new game: a new clock model, with the game's TimeControl if it has one
 * (the served relay's monitor takes it the same way). */
static void new_clock(replay_board *b, const cr_game *g)
{
    cr_clock_free(b->clock);
    const char *text = g ? cr_game_tag(g, "TimeControl") : NULL;
    cr_time_control tc;
    bool have = text && text[0] && cr_time_control_parse(text, &tc, NULL) == 0;
    b->clock = cr_clock_new(have ? &tc : NULL, NULL);
    if (!b->clock) {
        b->rp->oom = true;
    }
}

/* Feed time t has come for board b: a flag that fell by then, on the
 * clock's evidence, ends the current game if it is still open. */
static void tick_clock(replay_board *b, int64_t t)
{
    if (!b->clock) {
        return;
    }
    int s;
    while ((s = cr_clock_tick(b->clock, t)) >= 0) {
        const cr_game *g = cr_infer_game(cr_board_infer_engine(b->infer));
        if (!g || b->flag_game == b->game_number || cr_game_result(g) != CR_RESULT_NONE) {
            continue;
        }
        int opp = s ^ 1;
        b->flag_game = b->game_number;
        b->flag = !cr_can_mate(cr_game_position(g), opp) ? CR_RESULT_DRAW
                  : opp == CR_WHITE                      ? CR_RESULT_WHITE
                                                         : CR_RESULT_BLACK;
        save_game(b->rp, b->serial, b->game_number, g, b->flag);
    }
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
    b->game_number = ev->game_number;
    if (ev->kind == CR_INFER_MOVE) {
        int64_t *n = cr_grow(rp->delays, &rp->capdelays, rp->ndelays + 1, sizeof *n, 256);
        if (n) {
            rp->delays = n;
            rp->delays[rp->ndelays++] = ev->t - ev->t_snapshot;
        }
    }
    /* A press after the end (mate) still times the last ply, as the served
     * relay's store takes it: the saved copy follows. */
    /* Saved when it starts too, so that games are listed in the order they
     * began, as the served relay numbers them (its /live.pgn). */
    if (ev->kind == CR_INFER_GAME_STARTED) {
        new_clock(b, ev->game);
    } else if (ev->kind == CR_INFER_CLOCK && b->clock) {
        cr_clock_feed(b->clock, ev->t, ev->white_ms, ev->black_ms, ev->running);
    }
    if (ev->game && (ev->kind == CR_INFER_GAME_STARTED || ev->kind == CR_INFER_GAME_ENDED ||
                     (ev->kind == CR_INFER_PLY_CLOCK && cr_game_result(ev->game) != CR_RESULT_NONE))) {
        save_game(rp, b->serial, ev->game_number, ev->game,
                  b->flag_game == ev->game_number ? b->flag : CR_RESULT_NONE);
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
    b->serial = ++rp->engines;
    b->infer = cr_board_infer_new(id, &rp->cfg, on_event, b);
    if (!b->infer) {
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
        const cr_game *g = cr_infer_game(inf);
        if (g) {
            /* replaces a copy saved when it ended */
            save_game(rp, b->serial, b->game_number, g,
                      b->flag_game == b->game_number ? b->flag : CR_RESULT_NONE);
        }
        cr_board_infer_free(b->infer);
        cr_clock_free(b->clock);
        free(b);
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
        if (cr_board_infer_feed(b->infer, &ev)) {
            fprintf(stderr, "chessrelay replay: out of memory\n");
            status = 1;
            break;
        }
        if (b->clock && (ev.kind == CR_FEED_CONNECT || ev.kind == CR_FEED_DISCONNECT)) {
            cr_clock_link(b->clock, ev.kind == CR_FEED_CONNECT, ev.t);
        }
        tick_clock(b, ev.t);
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
    }
    finish_boards(rp);
    cr_feed_reader_free(r);
    free(text);
    if (in != stdin) {
        fclose(in);
    }
    return status;
}

/* Writes the games saved so far and forgets them. Called after each feed:
 * a finished feed's games never change again (engines are numbered across
 * feeds), and a large corpus need not be held in memory. */
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
            fprintf(stderr, "chessrelay replay: board %s game %d: gap after ply %d: at least %u %s not seen\n",
                    board ? board : "?", number, i, (unsigned)p->missing, p->missing == 1 ? "ply" : "plies");
        } else {
            fprintf(stderr, "chessrelay replay: board %s game %d: gap after ply %d: plies not seen\n",
                    board ? board : "?", number, i);
        }
    }
}

static int write_games(replay *rp, FILE *out)
{
    int status = 0;
    for (size_t i = 0; i < rp->ngames; i++) {
        cr_game *g = rp->games[i].game;
        /* The round as the served relay names it (core/board_games.c), so
         * that the PGN of a feed is the same byte for byte either way. */
        const char *round = cr_game_tag(g, "Round");
        if (!round || !round[0] || strcmp(round, "?") == 0) {
            cr_game_set_tag(g, "Round", "1");
        }
        name_gaps(g, rp->games[i].number);
        if (cr_game_ply_count(g) > 0 && cr_pgn_write_file(g, NULL, out) != 0) {
            fprintf(stderr, "chessrelay replay: cannot write the PGN\n");
            status = 1;
        }
        cr_game_free(g);
    }
    rp->ngames = 0;
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
    free(rp.games);
    free(rp.boards);
    free(rp.delays);
    free(feeds);
    return status;
}
