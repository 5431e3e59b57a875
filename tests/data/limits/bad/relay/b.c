/* check-limits fixture: one of six .c files directly in relay/. */
int relay_b(void) { return 0; }
