/* chessrelay relay: helpers for the Prometheus text format of /metrics,
 * shared by the modules that write their own figures into it.
 *
 * Pure functions; no state. */
#ifndef CR_RELAY_PROM_H
#define CR_RELAY_PROM_H

#include <stdio.h>

/* Writes s as a label value (what goes between the quotes): backslash,
 * double quote and newline escaped, as the format requires. */
void cr_prom_label(FILE *f, const char *s);

#endif
