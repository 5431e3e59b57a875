/* check-limits fixture: a header relay/core/io.c alone may include. */
int queue_push(void);
