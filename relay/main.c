/* chessrelay: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static int cmd_help(int argc, char **argv);

static const struct cr_command commands[] = {
    {"help", cmd_help, "[COMMAND]", "list the commands, or show one command's usage"},
    {"perft", cr_cmd_perft, "[--divide] FEN|startpos DEPTH", "count the leaf nodes of the legal move tree"},
    {"notation", cr_cmd_notation, "[--lang L] [--style S] [--from-lang L] [FILE]",
     "read a game in any algebraic notation and print it as PGN"},
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
        printf("chessrelay 0.1.0\n");
        return 0;
    }
    const struct cr_command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "chessrelay: unknown command '%s' (try 'chessrelay help')\n", argv[1]);
        return 2;
    }
    return c->run(argc - 1, argv + 1);
}
