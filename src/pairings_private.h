/* chessrelay core, private: what the pairings' shared part (pairings.c),
 * the TRF reader (pairings_trf.c) and the PGN reader and writer
 * (pairings_pgn.c) share. */
#ifndef CR_PAIRINGS_PRIVATE_H
#define CR_PAIRINGS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "cr/pairings.h"

#define MAX_ROUNDS 99       /* no Swiss or round robin comes near; bounds work on bad input */
#define MAX_START_RANK 9999 /* TRF columns 5-8 */
#define MAX_TABLE 9999
#define INFO_MAX 256

typedef struct round_set {
    cr_pairing *boards;
    int board_count, board_cap;
    cr_pairing_bye *byes;
    int bye_count, bye_cap;
    char date[11]; /* "YYYY-MM-DD" from TRF 132, or "" */
} round_set;

struct cr_pairings {
    cr_pairings_format source;
    char info[CR_PF_NB][INFO_MAX];
    cr_pairing_player *players;
    int player_count, player_cap;
    round_set rounds[MAX_ROUNDS]; /* index round - 1 */
    int round_count;
};

/* The readers: fill p (made by cr_pairings_parse) from text, or fail with err. */
int cr_pairings_parse_trf(cr_pairings *p, const char *text, size_t len, cr_error *err);
int cr_pairings_parse_pgn(cr_pairings *p, const char *text, size_t len, cr_error *err);

/* Grows an array of elem-byte items to hold need of them (doubling *cap).
 * Returns the array, or NULL (ptr left as it was) when out of memory. */
void *cr_pairings_grow(void *ptr, int *cap, int need, size_t elem);
/* Append a copy; 0 or CR_ENOMEM. */
int cr_pairings_add_player(cr_pairings *p, const cr_pairing_player *pl);
int cr_pairings_add_board(round_set *rs, const cr_pairing *b);
int cr_pairings_add_bye(round_set *rs, const cr_pairing_bye *b);

static inline bool is_space(int c)
{
    return c == ' ' || c == '\t';
}

static inline bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static inline int lower_ascii(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static inline int upper_ascii(int c)
{
    return (c >= 'a' && c <= 'z') ? c - 32 : c;
}

/* Copies s (n bytes) into dst (size bytes), cutting at a UTF-8 character
 * boundary when it does not fit. */
void cr_pairings_copy_utf8(char *dst, size_t size, const char *s, size_t n);
/* An unsigned decimal of n bytes (already trimmed); -1 if not a number or above max. */
long long cr_pairings_parse_uint(const char *s, size_t n, long long max);
/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
int cr_pairings_utf8_len(const unsigned char *s, size_t n);
/* Copies n bytes of s into dst as UTF-8: as is when they are valid UTF-8,
 * else read as Windows-1252. */
void cr_pairings_to_utf8(char *dst, size_t size, const char *s, size_t n);

/* A FIDE title as written (TRF "g", "wm", PGN "gm"...) in its usual form
 * ("GM", "WIM"); other text upper-cased, at most 3 ASCII letters. */
void cr_pairings_normalise_title(const char *raw, char out[4]);

/* The columns of a TRF 001 line (s, n bytes, no line end) as the reader
 * takes them: starts[] (n + 1 entries) gets each column's byte offset and
 * one past the last. Returns the number of columns, or -1 when the reader
 * refuses the line. */
int cr_pairings_trf_line_columns(const char *s, size_t n, size_t *starts);

/* The points a TRF result code (upper-cased) gives its player by default:
 * 1 for 1 + W F U, 0.5 for = D H, else 0. */
double cr_pairings_trf_points(char code);

/* Lines of a text: \n, \r\n or \r ends one; a UTF-8 BOM is skipped. */
typedef struct line_iter {
    const char *text;
    size_t len, pos;
    int number;
} line_iter;
void cr_pairings_init_lines(line_iter *it, const char *text, size_t len);
/* Hands out the next line without its end; false at the end of the text. */
bool cr_pairings_next_line(line_iter *it, const char **line, size_t *n);

#endif
