/* chessrelay relay: where the program's data (the web app, the demo feed)
 * is, found from the binary's own location so that a relocated install or
 * a build tree works without any path compiled in:
 *   installed:   <prefix>/bin/chessrelay  -> <prefix>/share/chessrelay/NAME
 *   build tree:  build/chessrelay         -> build/share/chessrelay/NAME
 *                (CMake links build/share/chessrelay to web/dist and data/). */
#ifndef CR_RELAY_DATADIR_H
#define CR_RELAY_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the real path of share/chessrelay/NAME (a file or a folder) into
 * out: $ENV_VAR when it is set and non-empty (env_var may be NULL), else the
 * first of the places above that exists. Returns false when none does (out
 * then holds the last place tried, for the error message). */
bool cr_datadir_find(const char *name, const char *env_var, char *out, size_t size);

#endif
