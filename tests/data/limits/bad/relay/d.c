/* check-limits fixture: one of six .c files directly in relay/. */
int relay_d(void) { return 0; }
