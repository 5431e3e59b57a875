/* check-limits fixture: relay/ may include what it needs. */
#include <unistd.h>

int main(void)
{
    return 0;
}
