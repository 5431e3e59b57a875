/* check-limits fixture: one of six .c files directly in relay/. */
int relay_c(void) { return 0; }
