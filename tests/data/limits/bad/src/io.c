/* check-limits fixture: the includes a pure core must not have. */
#include <stdio.h>
#include <unistd.h>
#  include <fcntl.h>
#include <dirent.h>
#include <sys/stat.h>

int io_fixture(int x)
{
    return x + 1;
}
