/* chessrelay journal verify DIR: checks every seal of a state folder's
 * journals (docs/feed-format.md, "Seals") without changing any file; names
 * the first bad file and line. Exit 0 when sound, 1 when not (or the folder
 * cannot be read), 2 on a usage error. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "core/journal.h"

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay journal verify DIR\n");
    return 2;
}

static int verify(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "chessrelay journal verify: %s: not a folder\n", dir);
        return 1;
    }
    cr_journal_stats st;
    cr_error err;
    if (cr_journal_verify(dir, &st, &err)) {
        fprintf(stderr, "chessrelay journal verify: %s\n", err.text);
        return 1;
    }
    if (!st.files) {
        fprintf(stderr, "chessrelay journal verify: %s: no journal files\n", dir);
        return 1;
    }
    if (st.bad) {
        printf("%s/%s:%d: %s\n", dir, st.bad_file, st.bad_line, st.bad_why);
        printf("NOT SOUND: %ld problem(s) in %d file(s), %ld lines\n", st.bad, st.files, st.lines);
        return 1;
    }
    if (st.unsealed) {
        printf("NOT SEALED: %d file(s) written before seals; %ld lines\n", st.unsealed, st.lines);
        return 1;
    }
    printf("sound: %d file(s), %ld lines%s\n", st.files, st.lines,
           st.torn ? ", a torn tail (a crash mid-write: the relay cuts it at start)" : "");
    return 0;
}

int cr_cmd_journal(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "verify") == 0) {
        return verify(argv[2]);
    }
    return usage();
}
