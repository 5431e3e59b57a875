/* check-limits fixture: a forbidden include in a header of src/. */
#include <sys/types.h>
#include "../relay/net/queue.h"
