/* check-limits fixture: one of six .c files directly in relay/. */
int relay_e(void) { return 0; }
