/* chessrelay relay: logging to stderr with a UTC time stamp, from any
 * thread. Only relay/ logs; the library never prints. */
#ifndef CR_RELAY_LOG_H
#define CR_RELAY_LOG_H

#include <stdint.h>

#include "cr/common.h"

enum { CR_LOG_ERROR = 0, CR_LOG_WARN, CR_LOG_INFO, CR_LOG_DEBUG };

/* Messages above this level are dropped (default CR_LOG_INFO). */
void cr_log_set_level(int level);

void cr_log(int level, const char *fmt, ...) CR_PRINTF(2, 3);

/* Wall clock in microseconds since the epoch, and a monotonic clock. */
int64_t cr_now_us(void);
int64_t cr_mono_us(void);

#endif
