/* fake_uci: a tiny UCI engine for the engine tests (tests/test_engine.c),
 * answering at once and deterministically, so unit tests never depend on a
 * real engine's timing.
 *
 * "uci" -> "id name fake_uci" + "uciok"; "isready" -> "readyok";
 * "position fen F" keeps F; "go ..." -> two info lines and "bestmove":
 *
 *   info depth 1 score cp 0 pv 0000            (a shallow line, replaced)
 *   info depth 7 seldepth 9 multipv 1 score cp S nodes 100 pv M1 M2
 *   info depth 7 multipv 2 score cp -999 pv 0000  (line 2: not kept)
 *   bestmove M1
 *
 * S is a hash of F's placement in -300..299 (the same position gives the
 * same score); M1 M2 come from $FAKE_UCI_PV (default "e2e4 e7e5").
 *
 * $FAKE_UCI_LINES ("pv2;pv3;..."): after line 1, lines 2, 3, ... with
 * these pvs and scores S-10, S-20, ..., each preceded by an upperbound
 * line of the same multipv (cp 5000: to be passed over), the whole set
 * twice (depth 6, then depth 7) as an engine's iterations interleave them.
 * $FAKE_UCI_960=1: lists "option name UCI_Chess960 type check".
 * $FAKE_UCI_TRANSCRIPT: every line received is appended to this file.
 *
 * $FAKE_UCI_MODE changes the behaviour:
 *   crash       exit(3) on every "go"
 *   crash-once  exit(3) on the first "go" of all runs that share the file
 *               $FAKE_UCI_STATE (created then), answer after that
 *   hang        never answer "go"
 *   mute        never answer "uci"
 *   mate        score mate -2 instead of cp
 *   log         append every "position fen" line to $FAKE_UCI_STATE
 *   slow        sleep $FAKE_UCI_SLEEP_MS (default 100) before answering go
 * Lines it does not know are ignored, as UCI wants. */
#define _GNU_SOURCE /* strtok_r */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int score_of(const char *fen)
{
    unsigned h = 2166136261u;
    for (const char *s = fen; *s && *s != ' '; s++) {
        h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return (int)(h % 600) - 300;
}

static const char *env(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? v : dflt;
}

int main(void)
{
    const char *mode = env("FAKE_UCI_MODE", "");
    const char *state = env("FAKE_UCI_STATE", "");
    const char *transcript = env("FAKE_UCI_TRANSCRIPT", "");
    char line[4096], fen[4096] = "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (transcript[0]) {
            FILE *f = fopen(transcript, "a");
            if (f) {
                fprintf(f, "%s\n", line);
                fclose(f);
            }
        }
        if (strcmp(line, "uci") == 0) {
            if (strcmp(mode, "mute") == 0) {
                continue;
            }
            printf("id name fake_uci\nid author chessrelay tests\n");
            if (strcmp(env("FAKE_UCI_960", ""), "1") == 0) {
                printf("option name UCI_Chess960 type check default false\n");
            }
            printf("uciok\n");
        } else if (strcmp(line, "isready") == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "position fen ", 13) == 0) {
            snprintf(fen, sizeof fen, "%s", line + 13);
            if (strcmp(mode, "log") == 0 && state[0]) {
                FILE *f = fopen(state, "a");
                if (f) {
                    fprintf(f, "%s\n", fen);
                    fclose(f);
                }
            }
        } else if (strncmp(line, "go", 2) == 0) {
            if (strcmp(mode, "crash") == 0) {
                exit(3);
            }
            if (strcmp(mode, "crash-once") == 0 && state[0]) {
                int fd = open(state, O_WRONLY | O_CREAT | O_EXCL, 0600);
                if (fd >= 0) {
                    close(fd);
                    exit(3);
                }
            }
            if (strcmp(mode, "hang") == 0) {
                continue;
            }
            if (strcmp(mode, "slow") == 0) {
                long ms = atol(env("FAKE_UCI_SLEEP_MS", "100"));
                struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
            char pv[256];
            snprintf(pv, sizeof pv, "%s", env("FAKE_UCI_PV", "e2e4 e7e5"));
            char first[16] = "";
            sscanf(pv, "%15s", first);
            printf("info depth 1 score cp 0 pv 0000\n");
            if (strcmp(mode, "mate") == 0) {
                printf("info depth 7 seldepth 9 multipv 1 score mate -2 nodes 100 pv %s\n", pv);
            } else {
                printf("info depth 7 seldepth 9 multipv 1 score cp %d nodes 100 pv %s\n",
                       score_of(fen), pv);
            }
            const char *lines = env("FAKE_UCI_LINES", "");
            if (lines[0]) {
                for (int depth = 6; depth <= 7; depth++) {
                    char copy[1024];
                    snprintf(copy, sizeof copy, "%s", lines);
                    int k = 2;
                    for (char *save = NULL, *l = strtok_r(copy, ";", &save); l;
                         l = strtok_r(NULL, ";", &save), k++) {
                        printf("info depth %d multipv %d score cp 5000 upperbound pv %s\n", depth,
                               k, l);
                        printf("info depth %d multipv %d score cp %d pv %s\n", depth, k,
                               score_of(fen) - 10 * (k - 1), l);
                    }
                }
            } else {
                printf("info depth 7 multipv 2 score cp -999 pv 0000\n");
            }
            printf("info string a comment\n");
            printf("bestmove %s\n", first);
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        }
    }
    return 0;
}
