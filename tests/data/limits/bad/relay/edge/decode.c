/* check-limits fixture: a folder the include rules do not name. */
#include "core/store.h"
