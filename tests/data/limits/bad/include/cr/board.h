/* check-limits fixture: a public header. */
int cr_board(void);
