/* check-limits fixture: one of six .c files directly in relay/. */
int relay_a(void) { return 0; }
