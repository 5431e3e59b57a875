/* libFuzzer target: arbitrary bytes as an incident journal line
 * (cr_incident_parse). A line that parses must format (cr_incident_format)
 * and parse back to the same incident, and format again to the same line;
 * a rejected line must come with CR_EFEED (or CR_EINVAL), a message and a
 * column inside the line. The same bytes are also used as the fields and
 * text of an incident built directly, which must survive format -> parse
 * unchanged (the writer's escapes against the reader). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/arbiter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const cr_incident *a, const cr_incident *b)
{
    return a->seq == b->seq && a->kind == b->kind && a->urgency == b->urgency &&
           a->ply == b->ply && a->color == b->color && a->white_ms == b->white_ms &&
           a->black_ms == b->black_ms && a->t == b->t && a->wall == b->wall &&
           strcmp(a->text, b->text) == 0;
}

/* format -> parse -> equal -> format -> identical line. */
static void round_trip(const cr_incident *inc)
{
    char line[CR_INCIDENT_LINE_MAX], line2[CR_INCIDENT_LINE_MAX];
    int n = cr_incident_format(inc, line, sizeof line);
    if (n < 0 || (size_t)n >= sizeof line || strlen(line) != (size_t)n) {
        abort();
    }
    cr_incident back;
    cr_error err;
    cr_error_clear(&err);
    if (cr_incident_parse(line, (size_t)n, &back, &err) != 0 || !same(inc, &back)) {
        abort();
    }
    int n2 = cr_incident_format(&back, line2, sizeof line2);
    if (n2 != n || memcmp(line, line2, (size_t)n) != 0) {
        abort();
    }
    /* The journal writes the line with its newline: that must read too. */
    line[n] = '\n';
    if (cr_incident_parse(line, (size_t)n + 1, &back, &err) != 0 || !same(inc, &back)) {
        abort();
    }
}

static uint64_t take(const uint8_t **p, size_t *left, size_t bytes)
{
    uint64_t v = 0;
    for (size_t i = 0; i < bytes && *left; i++, (*left)--) {
        v = v << 8 | *(*p)++;
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 1. The bytes as a line (heap copy, no NUL: the parser takes a length). */
    char *line = malloc(size ? size : 1);
    if (!line) {
        return 0;
    }
    if (size) {
        memcpy(line, data, size);
    }
    cr_incident inc;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_incident_parse(line, size, &inc, &err);
    if (rc == 0) {
        if ((int)inc.kind < 0 || inc.kind >= CR_INC_KIND_NB || (int)inc.urgency < 0 ||
            inc.urgency > CR_URGENCY_CRITICAL || inc.color < -1 || inc.color > 1 ||
            strlen(inc.text) >= sizeof inc.text) {
            abort();
        }
        round_trip(&inc);
    } else if (rc != CR_EFEED || err.code != CR_EFEED || err.text[0] == '\0' || err.column < 1 ||
               (size_t)err.column > size + 1) {
        abort();
    }
    free(line);

    /* 2. The bytes as an incident's fields and text. */
    const uint8_t *p = data;
    size_t left = size;
    cr_incident made;
    memset(&made, 0, sizeof made);
    made.seq = 1 + (int)(take(&p, &left, 2) & 0x7FFF);
    made.kind = (cr_incident_kind)(take(&p, &left, 1) % CR_INC_KIND_NB);
    made.urgency = (cr_urgency)(take(&p, &left, 1) % 4);
    made.ply = (int)(take(&p, &left, 2) % 100001);
    made.color = (int)(take(&p, &left, 1) % 3) - 1;
    made.white_ms = (int32_t)(take(&p, &left, 4) & 0x7FFFFFFF) - 1;
    made.black_ms = (int32_t)(take(&p, &left, 4) & 0x7FFFFFFF) - 1;
    made.t = (int64_t)(take(&p, &left, 8) % ((uint64_t)INT64_MAX / 2 + 2)) - 1;
    made.wall = (int64_t)(take(&p, &left, 8) % ((uint64_t)INT64_MAX / 2 + 2)) - 1;
    size_t tl = 0;
    while (left && tl + 1 < sizeof made.text) {
        uint8_t c = (uint8_t)take(&p, &left, 1);
        if (c) {
            made.text[tl++] = (char)c;
        }
    }
    made.text[tl] = '\0';
    round_trip(&made);
    return 0;
}
