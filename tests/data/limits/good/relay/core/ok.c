/* check-limits fixture: a file in a folder of relay/. */
int ok_relay(void)
{
    return 0;
}
