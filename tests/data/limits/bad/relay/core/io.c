/* check-limits fixture: relay/ may do I/O. */
#include <unistd.h>
#include <sys/stat.h>
