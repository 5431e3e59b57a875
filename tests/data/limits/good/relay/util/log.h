/* check-limits fixture: a header relay/core/ may include. */
int log_line(void);
