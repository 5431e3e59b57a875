/* check-limits fixture: a tree within the limits. */
int ok_driver(void)
{
    return 0;
}
