/* chessrelay relay: the tournament file (JSON), read with jansson.
 *
 *   {
 *     "event": "Club Championship", "site": "Oslo", "date": "2026.11.29",
 *     "rounds": 9, "time_control": "40/5400:1800+30",
 *                                              or per round, "*" for the others:
 *     "time_control": {"1": "5400+30", "9": "900+10", "*": "5400+30"},
 *     "delay_minutes": 15,                     public delay (0 by default)
 *     "listen": "127.0.0.1:8080",
 *     "tls": {"cert": "cert.pem", "key": "key.pem"},
 *     "tokens": [{"name": "chief arbiter", "role": "arbiter", "token": "..."}],
 *     "origins": ["https://example.org"],      allowed WebSocket Origins (all if absent)
 *     "trusted_proxies": ["127.0.0.1", "10.0.0.0/8"],
 *                                              reverse proxies (addresses, CIDR ranges) whose
 *                                              X-Forwarded-For names the client (util/addr.h)
 *     "state_dir": "state",                    journals (default: next to the file)
 *     "web_root": "web/dist",
 *     "fsync_ms": 100,
 *     "feeds": ["round1.feed"],                feed files played in real time as sources
 *     "push": [{"round": "1", "url": "https://lichess.org/api/broadcast/round/<id>/push",
 *               "token": "lip_..."}],          push each round's public PGN (push.h, docs/venue.md)
 *     "export_dir": "export",                  round-<n>/game-<t>.pgn, games.pgn (cr/export.h)
 *     "pgn": {"marks": false},                 bare PGN everywhere (/live.pgn, /game/N.pgn,
 *                                              exports, pushes): no {reconstructed},
 *                                              {ambiguous: also ...} comments (cr/pgn.h
 *                                              CR_PGN_BARE); marks are on by default
 *     "pairings": "oslo-open.trf",             pairings file (FIDE TRF or tags-only PGN), watched
 *                                              for changes (pairings_link.h, docs/venue.md); or
 *     "pairings": {"file": "oslo-open.trf", "round": 5, "format": "trf"},
 *                                              "round": the round played (default: the last
 *                                              round with a board without a result),
 *                                              "format": "trf", "pgn" or "auto" (default)
 *     "incidents": {"press-without-move": true, "move-without-press": true,
 *                   "time-added": true},
 *                                              the arbiters' incidents the board and the
 *                                              clock reveal, each off by default (cr/arbiter.h)
 *     "devices": ["/dev/ttyUSB0"],             live DGT boards on serial ttys
 *     "usb": true,                             live DGT boards on USB (hotplug)
 *     "livechess": {"listen": "127.0.0.1:1982"},  the DGT LiveChess local API (net/livechess.h,
 *                                              docs/protocol.md); true: that address; off by
 *                                              default; a port alone stays on 127.0.0.1
 *     "engine": {"path": "stockfish", "processes": 2, "threads": 1, "hash_mb": 16,
 *                "movetime_ms": 1000 (or "depth": 18), "multipv": 1,
 *                "pgn": ["http", "export", "push"],   which PGNs carry [%eval] (all by default)
 *                "alerts": {"mistake_cp": 150, "blunder_cp": 300}, "live": false},
 *                                              engine evaluations (engine/evals.h); "alerts":
 *                                              true for those thresholds, false: none (default);
 *                                              "live": with a delay, arbiters get evals of live
 *                                              positions (analysed before they are public)
 *     "streams": [{"url": "https://www.youtube.com/watch?v=ID", "round": "*", "delay_s": 0}],
 *                                              a video beside the boards per round (YouTube,
 *                                              Twitch or HLS; core/config_media.h)
 *     "players": [{"name": "Carlsen, Magnus", "photo": "photos/carlsen.jpg",
 *                  "credit": "Photo: ...", "fide_id": 1503014}],
 *                                              players' cards: a photo URL or file and its credit
 *     "boards": [{"board": "DGT23164", "table": 1, "round": "1", "game": 1,
 *                 "white": "Carlsen, Magnus", "black": "Nepomniachtchi, Ian",
 *                 "white_elo": 2830, "black_elo": 2795, "white_title": "GM",
 *                 "black_title": "GM", "white_fed": "NOR", "black_fed": "FIDE"}]
 *   }
 *
 * A board entry names the board by its serial ("board") or table number
 * ("table", which matches a board whose id is that number); several entries
 * for one board are its games in order (round after round). Relative paths
 * are relative to the file's folder. Unknown keys are errors (typos must
 * not pass silently). Errors name the file and the field:
 * "tournament.json: boards[3].white: expected a string". */
#ifndef CR_RELAY_CONFIG_H
#define CR_RELAY_CONFIG_H

#include "cr/common.h"
#include "cr/feed.h"
#include "util/addr.h"

typedef struct cr_config_board {
    char board[CR_BOARD_ID_MAX + 1]; /* "" when given by table only */
    int table;                       /* 0 when not given */
    char round[16];
    int game;
    char white[128], black[128];
    int white_elo, black_elo;
    char white_title[8], black_title[8];
    char white_fed[8], black_fed[8];
} cr_config_board;

#define CR_TOKEN_AGENTS_MAX 16
#define CR_TOKEN_BOARDS_MAX 64

/* "tokens": [{"name": "venue A", "role": "agent", "token": "...",
 *             "agents": ["venue-a"], "boards": ["DGT23164", ...]}]: an agent's
 * token names the agent ids it may use and (optionally) the boards it may
 * feed; without "agents" it may use any id (one venue per relay). */
typedef struct cr_config_token {
    char name[64];
    char role[16]; /* "arbiter" or "agent" */
    char token[256];
    int agent_count; /* 0: any agent id */
    char agents[CR_TOKEN_AGENTS_MAX][CR_BOARD_ID_MAX + 1];
    int board_count; /* 0: any board */
    char boards[CR_TOKEN_BOARDS_MAX][CR_BOARD_ID_MAX + 1];
} cr_config_token;

/* "push": [{"round": "1", "url": "https://lichess.org/api/broadcast/round/<id>/push",
 *            "token": "lip_..."}]: where each round's public PGN is pushed
 * (push.h, docs/venue.md). The URL is checked with cr_pusher_check_url. */
typedef struct cr_config_push {
    char round[16];
    char url[1024];
    char token[256]; /* "" when not given */
} cr_config_push;

/* One round's time control ("time_control" as an object). */
typedef struct cr_config_round_tc {
    char round[16]; /* "*": any round not listed */
    char time_control[64];
} cr_config_round_tc;

/* "engine": UCI engines evaluating every public position (engine/evals.h). */
typedef struct cr_config_engine {
    char *path;             /* NULL: no engine; a name without '/' is looked up in $PATH */
    int processes;          /* 1 */
    int threads, hash_mb;   /* 1, 16 */
    int movetime_ms, depth; /* 1000 and 0 (depth given: movetime 0) */
    int multipv;            /* 1; 1..5: the engine's best lines kept ("lines" of an eval) */
    bool pgn_http, pgn_export, pgn_push; /* "pgn": which PGNs carry the evals (all) */
    int mistake_cp, blunder_cp;          /* "alerts": 0: none (the default) */
    bool live; /* "live": with a delay, analyse live positions too, for the arbiters (false) */
    bool idle; /* "idle": SCHED_IDLE engines, besides niced (true); false: niced only */
} cr_config_engine;

/* "streams": a video beside the boards, per round or for every round
 * (core/config_media.h reads them and says what is accepted). */
typedef struct cr_config_stream {
    char round[16]; /* "*": every round without an entry of its own */
    char url[1024];
    char kind[8];    /* "youtube", "twitch" or "hls" */
    char title[128]; /* "" when not given */
    int delay_s;     /* how far the stream runs behind the venue (0) */
} cr_config_stream;

/* "players": what a player's card shows besides the pairings' data. */
typedef struct cr_config_player {
    char name[128];
    char photo_url[1024]; /* "" unless the photo is a URL */
    char *photo_file;     /* NULL unless a file: served at /media/photo/<index> */
    char credit[256];     /* the photo's credit, "" when not given */
    char fide_id[16];     /* "" when not given */
} cr_config_player;

/* The defaults above, path kept. */
void cr_config_engine_defaults(cr_config_engine *e);

typedef struct cr_config {
    char event[128], site[128], date[16];
    int rounds;
    char time_control[64]; /* every round's ("time_control" as a string), "" if none */
    cr_config_round_tc *round_tcs; /* "time_control" as an object */
    int round_tc_count;
    int delay_s;
    char listen_host[128];
    int listen_port;
    char *tls_cert, *tls_key; /* NULL: plain HTTP */
    cr_config_token *tokens;
    int token_count;
    char **origins;
    int origin_count;
    cr_addr_range *trusted_proxies; /* "trusted_proxies" */
    int trusted_proxy_count;
    char *state_dir;
    char *web_root; /* NULL: the default search */
    int fsync_ms;
    /* "limits": {"connections": N, "per_address": N, "idle_s": N,
     * "token_checks": N}: caps on the server's connections, the idle
     * timeout, the token checks of a throttled address per minute (0: the
     * defaults of net/limits.h) */
    int max_connections, max_connections_per_address, idle_s, token_checks;
    char **feeds;
    int feed_count;
    char **devices; /* live boards on these ttys ("devices") */
    int device_count;
    bool usb;       /* live USB boards ("usb") */
    cr_config_board *boards;
    int board_count;
    cr_config_push *pushes; /* "push" */
    int push_count;
    char *export_dir; /* "export_dir": the export folder (cr/export.h), NULL: none */
    char *push_ca_file; /* "push_ca_file": PEM CAs the https pushes trust instead of the system's */
    bool pgn_bare;    /* "pgn": {"marks": false}: no words of uncertainty in any PGN */
    bool press_without_move; /* "incidents": {"press-without-move": true}: watched for */
    bool move_without_press; /* "incidents": {"move-without-press": true}: watched for */
    bool time_added;         /* "incidents": {"time-added": true}: watched for */
    char *pairings;   /* "pairings": the pairings file, NULL: none */
    int pairings_round;   /* its "round": the round played, 0: chosen from the file */
    int pairings_format;  /* its "format": a cr_pairings_format (CR_PAIRINGS_AUTO = 0) */
    cr_config_engine engine; /* "engine" (engine.path NULL: none) */
    /* "livechess": the DGT LiveChess local API (net/livechess.h), off by default */
    bool livechess;
    char livechess_host[128];
    int livechess_port;
    cr_config_stream *streams; /* "streams" (config_media.h) */
    int stream_count;
    cr_config_player *players; /* "players" (config_media.h) */
    int player_count;
} cr_config;

#define CR_LIVECHESS_PORT 1982 /* DGT LiveChess's own port */

/* A config with the defaults (listen 127.0.0.1:8080, no delay, fsync 100
 * ms). Returns NULL when out of memory. Free with cr_config_free. */
cr_config *cr_config_new(void);
void cr_config_free(cr_config *cfg); /* accepts NULL */

/* Reads a tournament file. Returns a new config, or NULL with err filled
 * (text starts with the file name, then the field). */
cr_config *cr_config_load(const char *path, cr_error *err);

/* Same from a string; `name` is used in error texts, `base_dir` resolves
 * relative paths (may be NULL: paths are kept as given). */
cr_config *cr_config_parse(const char *text, const char *name, const char *base_dir,
                           cr_error *err);

/* What the viewers get of the tournament file at /tournament.json
 * (docs/protocol.md): event, site, date, rounds, the public delay, the
 * streams and the players' cards (a photo file as /media/photo/<index>).
 * Returns a new NUL-terminated string (free()), NULL when out of memory. */
char *cr_config_viewer_json(const cr_config *cfg);

/* "trf", "pgn" or "auto" as a cr_pairings_format. Returns 0 or CR_EINVAL. */
int cr_config_pairings_format(const char *name, int *format);

/* Parses "HOST:PORT" (or ":PORT", "PORT", "[v6]:PORT"). Returns 0 or CR_EINVAL. */
int cr_parse_listen(const char *s, char *host, size_t host_size, int *port);

/* The board entry for the n-th game (0-based) seen on board `board_id`:
 * matched by serial, else by table number. NULL if none. */
const cr_config_board *cr_config_board_for(const cr_config *cfg, const char *board_id, int n);

/* The time control of `round` (PGN TimeControl text, checked by
 * cr_time_control_parse when read): the round's own, else "*"'s, else
 * the event's; NULL when none is given. */
const char *cr_config_time_control(const cr_config *cfg, const char *round);

/* Tokens are 8 to 255 characters, from the command line as in the
 * tournament file: a short one is refused, a long one is never cut. */
enum { CR_TOKEN_MIN = 8 };

/* What is wrong with token as a token ("empty", "too short ...", "too long
 * ..."), or NULL when it will do. A static string. */
const char *cr_config_token_problem(const char *token);

/* Adds a token (a command line's --arbiter-token) to cfg. Returns 0,
 * CR_EINVAL (cr_config_token_problem says why), CR_ECONFIG (cfg has that
 * token already: a token has one role) or CR_ENOMEM. */
int cr_config_add_token(cr_config *cfg, const char *name, const char *role, const char *token);
/* The same for a whole entry (a command line's scoped --agent-token), so
 * that it works everywhere the file's tokens do. */
int cr_config_add_token_entry(cr_config *cfg, const cr_config_token *entry);

/* The command line's --agent-token: TOKEN, or TOKEN scoped like a
 * tournament token with ":agents=ID,ID..." and/or ":boards=ID,ID..." after
 * it (each at most once; the token ends at the first colon followed by
 * lower-case letters and "=", so a misspelt key is an error). Fills *out (name "--agent-token",
 * role "agent") and returns 0, or CR_EINVAL with why (size bytes) saying what is wrong. */
int cr_config_parse_agent_token(const char *arg, cr_config_token *out, char *why, size_t size);

/* The role of a token ("arbiter"/"agent") or NULL; compares in constant
 * time over every configured token. */
const char *cr_config_check_token(const cr_config *cfg, const char *token);

/* The configured token equal to token (constant time over all), or NULL. */
const cr_config_token *cr_config_find_token(const cr_config *cfg, const char *token);

/* Whether token t may use agent id `agent` / feed board `board` (a NULL t:
 * the command line's --agent-token, which may use any). */
bool cr_config_token_allows_agent(const cr_config_token *t, const char *agent);
bool cr_config_token_allows_board(const cr_config_token *t, const char *board);
/* Whether an agent with token t may feed `board`: a token with boards= only
 * those; one without, any board that no other agent token of cfg lists
 * (the file reserves those for their venues). */
bool cr_config_board_allowed(const cr_config *cfg, const cr_config_token *t, const char *board);

/* Constant-time comparison of two strings (time depends only on the length
 * of `secret`). */
bool cr_secret_equal(const char *given, const char *secret);

#endif
