/* chessrelay core, private: what the PGN writer shares with other writers of
 * PGN text in src/ (the pairings' tag-only games). */
#ifndef CR_PGN_PRIVATE_H
#define CR_PGN_PRIVATE_H

#include "strbuf.h"

/* Appends `[Name "value"]` and a newline: '"' and '\\' escaped, control
 * characters (line breaks, tabs) in value written as spaces. A name that is
 * not a PGN tag name (cr_pgn_tag_name_ok) is not written at all. */
void cr_pgn_put_tag(cr_sb *b, const char *name, const char *value);

#endif
