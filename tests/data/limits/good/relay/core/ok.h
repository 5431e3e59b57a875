/* check-limits fixture: relay/core/'s own header. */
int ok_relay(void);
