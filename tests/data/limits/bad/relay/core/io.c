/* check-limits fixture: relay/ may do I/O. */
#include <unistd.h>
#include <sys/stat.h>
#include "net/queue.h"  /* allowed to this file alone */
#include "net/server.h" /* allowed to no file of relay/core/ */
