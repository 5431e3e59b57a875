/* chessrelay subcommands. Each lives in relay/cmd_<name>.c and is listed in
 * the table of relay/cmd/main.c. A command gets argv with argv[0] = its name and
 * returns the process exit status (0 ok, 1 failure, 2 usage error). */
#ifndef CR_RELAY_COMMANDS_H
#define CR_RELAY_COMMANDS_H

typedef int (*cr_command_fn)(int argc, char **argv);

struct cr_command {
    const char *name;
    cr_command_fn run;
    const char *usage; /* one line: arguments */
    const char *help;  /* one line: what it does */
};

int cr_cmd_perft(int argc, char **argv);
int cr_cmd_replay(int argc, char **argv);
int cr_cmd_boards(int argc, char **argv);
int cr_cmd_record(int argc, char **argv);
int cr_cmd_emulate(int argc, char **argv);
int cr_cmd_calibrate(int argc, char **argv); /* Certabo boards */
int cr_cmd_check_boards(int argc, char **argv);
int cr_cmd_notation(int argc, char **argv);
int cr_cmd_reconcile(int argc, char **argv);
int cr_cmd_serve(int argc, char **argv);
int cr_cmd_demo(int argc, char **argv);
int cr_cmd_edge(int argc, char **argv); /* NATS edge relay */
int cr_cmd_agent(int argc, char **argv);
int cr_cmd_pairings(int argc, char **argv);
int cr_cmd_journal(int argc, char **argv);
int cr_relay_wants_serve(int argc, char **argv);  /* replay --serve hook */
int cr_relay_replay_serve(int argc, char **argv); /* replay FEED... --serve */
int cr_relay_demo(int argc, char **argv, const char *feed);

#endif
