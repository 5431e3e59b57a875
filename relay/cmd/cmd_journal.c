/* chessrelay journal verify DIR: checks every seal of a state folder's
 * journals, its incidents.log, and of an agent's state folder (its
 * events.feed) (docs/feed-format.md, "Seals") without changing any file;
 * names the first bad file and line. Exit 0 when sound, 1 when not (or the folder
 * cannot be read), 2 on a usage error.
 *
 * chessrelay journal export DIR --game N: the arbiter's evidence for an
 * appeal: every journal line of game N as written (file:line first): the
 * board's raw events and clock readings from the game's start on its board
 * ("# game N board B" lines) up to the next game there, agents' comments
 * with them, and every result and tag set for it ("# cmd", with who and
 * when); then its incidents.log lines (incidents, claims and decisions,
 * acknowledgements). Read-only; the seals are checked and a problem
 * reported. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "core/journal.h"
#include "core/journal_lines.h"
#include "util/seal_head.h"
#include "util/seal_key.h"
#include "util/sealed_file.h"
#include "util/sign.h"

static int verify(const char *dir, bool pub);

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay journal verify DIR [--pubkey FILE] | export DIR --game N | "
                    "keygen FILE\n");
    return 2;
}

/* The signatures of DIR with the public key at pub_path (util/sign.h):
 * no secret needed. Returns 0 when every checkpoint holds and every file is
 * signed, 1 otherwise (printed). */
static int verify_signatures(const char *dir, const char *pub_path)
{
    unsigned char pub[CR_SIGN_PUB_BYTES];
    cr_error err;
    if (cr_sign_pub_load(pub_path, pub, &err)) {
        fprintf(stderr, "chessrelay journal verify: --pubkey: %s\n", err.text);
        return 1;
    }
    long problems;
    int unsigned_files;
    if (cr_sign_verify(dir, pub, stdout, &problems, &unsigned_files) == CR_EEOF) {
        printf("NOT SIGNED: %s/%s: none (the relay ran without --signing-key)\n", dir,
               CR_SIGN_FILE);
        return 1;
    }
    if (problems) {
        printf("SIGNATURES DO NOT HOLD: %ld problem(s)\n", problems);
        return 1;
    }
    if (unsigned_files) {
        printf("NOT SIGNED: %d file(s) without a checkpoint\n", unsigned_files);
        return 1;
    }
    printf("signed: every file matches its checkpoints (Ed25519, %s)\n", pub_path);
    return 0;
}

/* journal verify DIR --pubkey FILE: the signatures, and the seals when the
 * folder's seal.key is there (a third party has only the public key). */
static int verify_pub(const char *dir, const char *pub_path)
{
    char key[PATH_MAX];
    struct stat sb;
    snprintf(key, sizeof key, "%s/%s", dir, CR_SEAL_KEY_FILE);
    int rc = 0;
    if (stat(key, &sb) == 0) {
        rc = verify(dir, true);
    } else {
        printf("seals not checked: no %s here (its HMACs need it; the signatures vouch)\n",
               CR_SEAL_KEY_FILE);
    }
    return verify_signatures(dir, pub_path) || rc;
}

static int keygen(const char *path)
{
    cr_error err;
    if (cr_sign_keygen(path, &err)) {
        fprintf(stderr, "chessrelay journal keygen: %s\n", err.text);
        return 1;
    }
    printf("%s: the signing key (secret: keep it outside the state folder)\n%s.pub: its public "
           "key (publish it)\n", path, path);
    return 0;
}

/* The files beside the journals with sealed records of their own:
 * the relay's incidents.log, an agent's events.feed (its state folder). */
static const char *const side_files[] = {"incidents.log", "events.feed"};

/* The head of the seals against the chains: a cut tail, a deleted last
 * journal file or a file resealed from scratch no longer holds the head's
 * seal. Returns the problems found (printed). */
static long check_head(const char *dir, long keyed, char *info, size_t size)
{
    info[0] = '\0';
    cr_seal_head_entry e[CR_SEAL_HEAD_KINDS];
    int n;
    cr_error err;
    int rc = cr_seal_head_read(dir, e, CR_SEAL_HEAD_KINDS, &n, &err);
    if (rc == CR_EEOF) {
        if (keyed) {
            printf("%s/%s: missing although the records are keyed (deleted? or a crash in the "
                   "first second): a cut tail cannot be checked\n",
                   dir, CR_SEAL_HEAD_FILE);
            return 1;
        }
        snprintf(info, size, "not checked: no head of seals (an unkeyed folder): a cut tail would "
                             "not show\n");
        return 0;
    }
    if (rc) {
        printf("%s\n", err.text);
        return 1;
    }
    long problems = 0;
    for (int i = 0; i < n; i++) {
        long records, at = cr_seal_head_find(dir, e[i].name, &e[i].seal, &records);
        if (at < 0) {
            printf("%s/%s: cut after record %ld, or rewritten: the head's last seal is not among "
                   "its records\n",
                   dir, e[i].name, records);
            problems++;
        } else if (at < records && strlen(info) < size / 2) {
            size_t used = strlen(info);
            snprintf(info + used, size - used, "%s: %ld record(s) after the head (written in its "
                     "last second)\n", e[i].name, records - at);
        }
    }
    return problems;
}

static int verify(const char *dir, bool pub)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "chessrelay journal verify: %s: not a folder\n", dir);
        return 1;
    }
    cr_journal_stats st;
    cr_error err;
    /* The folder's own key checks its keyed seals (none: they are reported). */
    if (cr_seal_key_setup(dir, false, NULL, &err)) {
        fprintf(stderr, "chessrelay journal verify: %s\n", err.text);
        return 1;
    }
    if (cr_journal_verify(dir, &st, &err)) {
        fprintf(stderr, "chessrelay journal verify: %s\n", err.text);
        return 1;
    }
    int files = st.files, unsealed = st.unsealed;
    long lines = st.lines, bad = st.bad, keyed = st.keyed, unkeyed = st.unkeyed;
    bool torn = st.torn;
    if (st.bad) {
        printf("%s/%s:%d: %s\n", dir, st.bad_file, st.bad_line, st.bad_why);
    }
    for (size_t i = 0; i < sizeof side_files / sizeof side_files[0]; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, side_files[i]);
        if (stat(path, &sb) != 0) {
            continue;
        }
        cr_sealed_stats ss;
        if (cr_sealed_read(path, false, NULL, NULL, NULL, &ss, &err)) {
            fprintf(stderr, "chessrelay journal verify: %s\n", err.text);
            return 1;
        }
        files++;
        lines += ss.lines;
        keyed += ss.keyed;
        unkeyed += ss.unkeyed;
        unsealed += ss.unsealed;
        torn |= ss.torn;
        bad += ss.bad;
        if (ss.bad) {
            printf("%s:%d: %s\n", path, ss.bad_line, ss.bad_why);
        }
    }
    if (!files) {
        fprintf(stderr, "chessrelay journal verify: %s: no journal files\n", dir);
        return 1;
    }
    char info[512];
    bad += check_head(dir, keyed, info, sizeof info);
    if (bad) {
        printf("NOT SOUND: %ld problem(s) in %d file(s), %ld lines\n", bad, files, lines);
        return 1;
    }
    if (unsealed) {
        printf("NOT SEALED: %d file(s) written before seals; %ld lines\n", unsealed, lines);
        return 1;
    }
    /* Plain seals are only a checksum: whoever can write the folder can
     * recompute them, so say which kind vouches for the lines. */
    const char *kind = !unkeyed ? "keyed"
                       : keyed  ? "keyed, with older unkeyed records first"
                                : "unkeyed (older format: a checksum, not a seal)";
    printf("sound: %d file(s), %ld lines, %s%s\n", files, lines, kind,
           torn ? ", a torn tail (a crash mid-write: cut at the next start)" : "");
    if (unkeyed) {
        printf("unkeyed (older format): %ld of %ld records\n", unkeyed, keyed + unkeyed);
    }
    printf("%s", info);
    char sigs[PATH_MAX];
    snprintf(sigs, sizeof sigs, "%s/%s", dir, CR_SIGN_FILE);
    if (!pub && stat(sigs, &sb) == 0) {
        printf("signed checkpoints in %s: not checked here (add --pubkey FILE)\n", CR_SIGN_FILE);
    }
    return 0;
}

typedef struct export {
    int game;
    char board[CR_BOARD_ID_MAX + 1]; /* the game's board while it is on it, else "" */
    char agent[256];                 /* the last "# agent" comment, for its line */
    int agent_line;
    char agent_file[64];
    long printed;
    bool known; /* a "# game N" line was seen */
    char files[32][40]; /* the files quoted, for their signed checkpoints */
    int nfiles;
} export;

/* Prints a quoted line and notes its file. */
static void quote(export *x, const char *file, int lineno, const char *line, size_t len)
{
    printf("%s:%d: %.*s\n", file, lineno, (int)len, line);
    for (int i = 0; i < x->nfiles; i++) {
        if (strcmp(x->files[i], file) == 0) {
            return;
        }
    }
    if (x->nfiles < 32) {
        snprintf(x->files[x->nfiles++], sizeof x->files[0], "%s", file);
    }
}

/* The signed checkpoints that cover the quoted files (util/sign.h): with
 * the files and the public key, a committee checks the evidence offline
 * (`chessrelay journal verify DIR --pubkey FILE`). */
static void export_signatures(const char *dir, const export *x, bool incidents)
{
    char line[512];
    int lineno;
    if (!cr_sign_last_checkpoint(dir, "#", line, sizeof line, &lineno)) {
        fprintf(stderr, "chessrelay journal export: not signed: no %s (the relay ran without "
                        "--signing-key)\n", CR_SIGN_FILE);
        return;
    }
    printf("%s:%d: %s\n", CR_SIGN_FILE, lineno, line); /* its public key */
    for (int i = 0; i <= x->nfiles; i++) {
        const char *f = i < x->nfiles ? x->files[i] : incidents ? "incidents.log" : NULL;
        if (!f) {
            continue;
        }
        if (cr_sign_last_checkpoint(dir, f, line, sizeof line, &lineno)) {
            printf("%s:%d: %s\n", CR_SIGN_FILE, lineno, line);
        } else {
            fprintf(stderr, "chessrelay journal export: %s: not signed\n", f);
        }
    }
}

/* The board id of a feed line (its second word) equals board. */
static bool on_board(const char *line, size_t len, const char *board)
{
    const char *sp = memchr(line, ' ', len);
    size_t bl = strlen(board);
    return sp && (size_t)(line + len - (sp + 1)) >= bl && memcmp(sp + 1, board, bl) == 0 &&
           (sp + 1 + bl == line + len || sp[1 + bl] == ' ');
}

static int export_line(void *data, const char *line, size_t len, const char *file, int lineno)
{
    export *x = data;
    cr_jline jl;
    char why[160];
    if (cr_jline_parse(line, len, &jl, why, sizeof why)) {
        jl.kind = CR_JLINE_COMMENT; /* a record that cannot be read names no game */
    }
    bool agent = jl.kind == CR_JLINE_AGENT;
    if (jl.kind == CR_JLINE_GAME) {
        if (jl.u.game.game == x->game) {
            snprintf(x->board, sizeof x->board, "%s", jl.u.game.board);
            x->known = true;
            quote(x, file, lineno, line, len);
        } else if (strcmp(jl.u.game.board, x->board) == 0) {
            x->board[0] = '\0'; /* the board went on to another game */
        }
    } else if (jl.kind == CR_JLINE_CMD) {
        if (jl.u.cmd.game == x->game) {
            quote(x, file, lineno, line, len);
            x->printed++;
        }
    } else if (jl.kind == CR_JLINE_FEED && len && x->board[0] && on_board(line, len, x->board)) {
        if (x->agent_line && x->agent_line == lineno - 1 && strcmp(x->agent_file, file) == 0) {
            printf("%s:%d: %s\n", file, x->agent_line, x->agent);
        }
        quote(x, file, lineno, line, len);
        x->printed++;
    }
    if (agent) {
        snprintf(x->agent, sizeof x->agent, "%.*s", (int)(len < 255 ? len : 255), line);
        snprintf(x->agent_file, sizeof x->agent_file, "%s", file);
        x->agent_line = lineno;
    }
    return 0;
}

/* incidents.log lines of the game: "<game>\t..." (incidents, claims and
 * their decisions, acknowledgements; docs/protocol.md). */
typedef struct export_log {
    char prefix[24];
    size_t plen;
    long printed;
} export_log;

static int export_log_line(void *data, const char *line, size_t len, int lineno)
{
    export_log *x = data;
    if (len > x->plen && memcmp(line, x->prefix, x->plen) == 0) {
        printf("incidents.log:%d: %.*s\n", lineno, (int)len, line); /* named as the journals are */
        x->printed++;
    }
    return 0;
}

/* The game's incidents.log lines after its journal lines. Returns the
 * records that do not match their seals (reported), or -1 when the file
 * cannot be read (an older folder may have none: 0). */
static long export_incidents(const char *dir, int game, long *printed)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/incidents.log", dir);
    export_log x = {.plen = 0};
    x.plen = (size_t)snprintf(x.prefix, sizeof x.prefix, "%d\t", game);
    cr_sealed_stats ss;
    cr_error err;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        return 0;
    }
    if (cr_sealed_read(path, false, export_log_line, &x, NULL, &ss, &err)) {
        fprintf(stderr, "chessrelay journal export: %s\n", err.text);
        return -1;
    }
    *printed += x.printed;
    if (ss.bad) {
        fprintf(stderr, "chessrelay journal export: NOT SOUND: %s:%d: %s\n", path, ss.bad_line,
                ss.bad_why);
    }
    return ss.bad;
}

static int export_game(const char *dir, const char *game_arg)
{
    char *end;
    long g = strtol(game_arg, &end, 10);
    if (*end || g < 1 || g > INT_MAX) {
        fprintf(stderr, "chessrelay journal export: --game: expected a game number, not '%s'\n",
                game_arg);
        return 2;
    }
    export x = {.game = (int)g};
    cr_journal_stats st;
    cr_error err;
    if (cr_seal_key_setup(dir, false, NULL, &err)) {
        fprintf(stderr, "chessrelay journal export: %s\n", err.text);
        return 1;
    }
    if (cr_journal_read(dir, export_line, &x, &st, &err)) {
        fprintf(stderr, "chessrelay journal export: %s\n", err.text);
        return 1;
    }
    if (st.bad) {
        fprintf(stderr, "chessrelay journal export: NOT SOUND: %s:%d: %s\n", st.bad_file,
                st.bad_line, st.bad_why);
    }
    long journal_printed = x.printed;
    long log_bad = export_incidents(dir, x.game, &x.printed);
    if (log_bad < 0) {
        return 1;
    }
    if (!x.known && !x.printed) {
        fprintf(stderr, "chessrelay journal export: %s: no game %ld in the journals\n", dir, g);
        return 1;
    }
    export_signatures(dir, &x, x.printed > journal_printed);
    return st.bad || log_bad ? 1 : 0;
}

int cr_cmd_journal(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "verify") == 0) {
        return verify(argv[2], false);
    }
    if (argc == 5 && strcmp(argv[1], "verify") == 0 && strcmp(argv[3], "--pubkey") == 0) {
        return verify_pub(argv[2], argv[4]);
    }
    if (argc == 3 && strcmp(argv[1], "keygen") == 0) {
        return keygen(argv[2]);
    }
    if (argc == 5 && strcmp(argv[1], "export") == 0 && strcmp(argv[3], "--game") == 0) {
        return export_game(argv[2], argv[4]);
    }
    return usage();
}
