/* chessrelay: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

static int cmd_help(int argc, char **argv);

static const struct cr_command commands[] = {
    {"help", cmd_help, "[COMMAND]", "list the commands, or show one command's usage"},
    {"perft", cr_cmd_perft, "[--divide] FEN|startpos DEPTH", "count the leaf nodes of the legal move tree"},
    {"replay", cr_cmd_replay, "FEED... [--pgn FILE] [--keep-going] [--events] [--stats] [--settle MS] | FEED... --serve [--config FILE] [--listen ADDR:PORT] [--speed X] [--delay MINUTES] [--arbiter-token T] [--state DIR] [--publish nats://HOST:PORT] [--engine PATH] [--livechess [ADDR:PORT]]", "infer the games of recorded feeds and print them as PGN"},
    {"boards", cr_cmd_boards, "[--serial DEV]... [--usb] [--timeout MS] [--kind K]", "list the boards reachable now (transport, board id, DGT version or kind)"},
    {"record", cr_cmd_record, "[--serial DEV]... [--usb] [--out FILE] [--time-scale X] [--clock-white S] [--no-raw] [--kind K] [--calibration FILE] [--state DIR] [--clock FILE]", "record live boards into a feed (raw and decoded lines) until SIGINT/SIGTERM"},
    {"emulate", cr_cmd_emulate, "FEED --pty [--link PATH] [--board ID] [--speed X] [--max-gap MS] [--faults garbage,drop,disconnect] [--seed N] [--kind dgt|millennium|certabo] [--occupancy] [--calibration-out FILE] [--clock FILE]", "play one board of a feed as a DGT, Millennium or Certabo board on a pseudo-terminal"},
    {"check-boards", cr_cmd_check_boards, "FEED... [--config FILE [--round N]] [--control TC] [--sensors] [--json]", "check the boards set up before the round from their recorded feed: connected, start position, sensors, clock, battery; \"Ready R/N\""},
    {"calibrate", cr_cmd_calibrate, "--serial DEV [--state DIR | --out FILE] [--timeout MS]", "learn a Certabo board's pieces from the start position with spare queens on d3 and d6"},
    {"serve", cr_cmd_serve, "[--config FILE] [--listen ADDR:PORT] [--state DIR] [--signing-key FILE] [--serial DEV]... [--usb] [--kind K] [--pairings FILE [--round N]] [--arbiter-token T] [--agent-token T[:agents=ID,..][:boards=ID,..]] [--delay MINUTES] [--publish nats://HOST:PORT] [--engine PATH] [--livechess [ADDR:PORT]]", "run the relay for a tournament: live games over HTTP and WebSocket"},
    {"demo", cr_cmd_demo, "[--listen ADDR:PORT] [--speed X] [--delay MINUTES]", "serve famous games as a live demo at http://127.0.0.1:8080"},
    {"edge", cr_cmd_edge, "--from nats://HOST:PORT[,...] [--tournament T] [--listen ADDR:PORT] [--state DIR] [--config FILE] [--delay MINUTES]", "serve viewers from the events a venue relay publishes to NATS JetStream"},
    {"agent", cr_cmd_agent, "--to ws://HOST:PORT/agent --token T [--id ID] [--usb | --serial DEV... | --feed FILE... [--speed X]] [--state DIR] [--insecure] [--exit-at-end]", "forward the boards of a venue to a central relay over a WebSocket, losing nothing across cuts"},
    {"pairings", cr_cmd_pairings, "FILE [--round N] [--format trf|pgn] [--pgn OUT|-] [--boards]", "print the pairings of a TRF (Swiss-Manager...) or tags-only PGN per round and table"},
    {"journal", cr_cmd_journal, "verify DIR [--pubkey FILE] | export DIR --game N | keygen FILE", "check the seals of a state folder's journals and incidents.log, or of an agent's events.feed (the first bad file and line), and with --pubkey its signatures (no secret needed); print one game's journal lines as evidence; make a signing key"},
    {"notation", cr_cmd_notation, "[--lang L] [--style S] [--from-lang L] [FILE]",
     "read a game in any algebraic notation and print it as PGN"},
    {"reconcile", cr_cmd_reconcile, "RECORD.pgn SCORESHEET [--game N | --board ID] [--lang L] [--pgn OUT]",
     "compare a player's scoresheet with the board's record: each difference, gaps filled from the sheet"},
};

static const size_t command_count = sizeof commands / sizeof commands[0];

static const struct cr_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            return &commands[i];
        }
    }
    return NULL;
}

static int cmd_help(int argc, char **argv)
{
    if (argc > 1) {
        const struct cr_command *c = find_command(argv[1]);
        if (!c) {
            fprintf(stderr, "chessrelay: unknown command '%s'\n", argv[1]);
            return 2;
        }
        printf("usage: chessrelay %s %s\n  %s\n", c->name, c->usage, c->help);
        return 0;
    }
    printf("usage: chessrelay COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < command_count; i++) {
        printf("  %-10s %s\n", commands[i].name, commands[i].help);
    }
    printf("\n'chessrelay help COMMAND' shows a command's arguments.\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cmd_help(1, argv);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        return cmd_help(1, argv);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("chessrelay %s\n", CR_VERSION);
        return 0;
    }
    const struct cr_command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "chessrelay: unknown command '%s' (try 'chessrelay help')\n", argv[1]);
        return 2;
    }
    return c->run(argc - 1, argv + 1);
}
