/* check-limits fixture: one of six .c files directly in relay/. */
int relay_f(void) { return 0; }
