/* check-limits fixture: a file in a folder of relay/, including what its
 * folder may (util/) and its own folder's header. */
#include "core/ok.h"
#include "util/log.h"

int ok_relay(void)
{
    return 0;
}
