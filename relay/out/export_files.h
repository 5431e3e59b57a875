/* chessrelay relay: the file work of the export folder (cr/export.h), which
 * the core leaves to its caller.
 *
 * cr_export_files_io() is the cr_export_io that cr_exporter_new gets: files
 * are replaced through a hidden temporary ".<name>.XXXXXX" in the same
 * folder (so watchers of "*.pgn" never see it), fsync'ed, chmod'ed 0644 and
 * renamed over the target, then the folder is fsync'ed: a reader sees the
 * old file or the new one, never a part. Missing folders are created with
 * their parents. */
#ifndef CR_RELAY_EXPORT_FILES_H
#define CR_RELAY_EXPORT_FILES_H

#include <stddef.h>

#include "cr/export.h"

/* A static io (data unused); never NULL. */
const cr_export_io *cr_export_files_io(void);

#endif
