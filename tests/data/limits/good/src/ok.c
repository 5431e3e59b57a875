/* check-limits fixture: a tree within the limits. */
#include <stdio.h>

int ok_core(int x)
{
    return x;
}
