/* Incidents of the arbiter's log: names, the one-line text form (written
 * and read back) and their order (see cr/arbiter.h). */
#include "cr/arbiter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_private.h"
#include "strbuf.h"

/* ---------------------------------------------------------------- names */

static const char *const kind_names[CR_INC_KIND_NB] = {
    "two-minutes",   "flag",         "threefold",
    "fivefold",      "fifty-moves",  "seventy-five-moves",
    "dead-position", "illegal-move", "board-offline",
    "board-online",  "claim",        "decision",
    "result",        "correction",   "draw-offer",
    "flag-check",    "press-without-move", "move-without-press",
    "time-added",
};

static const char *const urgency_names[] = {"info", "notice", "warning", "critical"};

const char *cr_incident_kind_name(cr_incident_kind kind)
{
    return ((int)kind >= 0 && kind < CR_INC_KIND_NB) ? kind_names[kind] : "?";
}

int cr_incident_kind_parse(const char *name)
{
    for (int i = 0; i < CR_INC_KIND_NB; i++) {
        if (name && strcmp(name, kind_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *cr_decision_name(cr_decision d)
{
    switch (d) {
    case CR_DECISION_DRAW:
        return "draw";
    case CR_DECISION_REJECTED:
        return "rejected";
    case CR_DECISION_POSTPONED:
        return "postponed";
    default:
        return "pending";
    }
}

/* ---------------------------------------------------------------- line form */

void cr_arb_escape(cr_sb *o, const char *text, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)text;
         *p && p < (const unsigned char *)text + max && !o->failed; p++) {
        if (*p == '\\') {
            cr_sb_str(o, "\\\\");
        } else if (*p == '\t') {
            cr_sb_str(o, "\\t");
        } else if (*p == '\n') {
            cr_sb_str(o, "\\n");
        } else if (*p == '\r') {
            cr_sb_str(o, "\\r");
        } else if (*p < 0x20 || *p == 0x7f) {
            char esc[4] = {'\\', 'x', hex[*p >> 4], hex[*p & 15]};
            cr_sb_add(o, esc, sizeof esc);
        } else {
            cr_sb_char(o, (char)*p);
        }
    }
}

int cr_incident_format(const cr_incident *inc, char *buf, size_t size)
{
    if (!inc || !buf || (int)inc->kind < 0 || inc->kind >= CR_INC_KIND_NB ||
        (int)inc->urgency < 0 || inc->urgency > CR_URGENCY_CRITICAL) {
        return CR_EINVAL;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    cr_sb_fmt(&o, "%d\t%s\t%s\t%d\t%s\t%" PRId32 "\t%" PRId32 "\t%" PRId64 "\t%" PRId64 "\t",
              inc->seq, kind_names[inc->kind], urgency_names[inc->urgency], inc->ply,
              inc->color == CR_WHITE   ? "w"
              : inc->color == CR_BLACK ? "b"
                                       : "-",
              inc->white_ms, inc->black_ms, inc->t, inc->wall);
    cr_arb_escape(&o, inc->text, sizeof inc->text);
    return o.failed ? CR_ENOSPC : (int)o.len;
}

/* Parses a decimal integer field [s, e) in [lo, hi]. */
static bool parse_int(const char *s, const char *e, int64_t lo, int64_t hi, int64_t *out)
{
    bool neg = false;
    if (s < e && *s == '-') {
        neg = true;
        s++;
    }
    if (s == e) {
        return false;
    }
    int64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10) {
            return false;
        }
        v = v * 10 + (*s - '0');
    }
    v = neg ? -v : v;
    if (v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

const char *cr_arb_unescape(const char *s, const char *e, char *out, size_t size, const char **why)
{
    size_t o = 0;
    for (; s < e; s++) {
        const char *at = s;
        char c = *s;
        if (c == '\\') {
            if (s + 1 >= e) {
                *why = "text ends in a backslash";
                return at;
            }
            char x = *++s;
            if (x == '\\') {
                c = '\\';
            } else if (x == 't') {
                c = '\t';
            } else if (x == 'n') {
                c = '\n';
            } else if (x == 'r') {
                c = '\r';
            } else if (x == 'x' && s + 2 < e && hexval(s[1]) >= 0 && hexval(s[2]) >= 0 &&
                       (hexval(s[1]) << 4 | hexval(s[2])) != 0) {
                c = (char)(hexval(s[1]) << 4 | hexval(s[2]));
                s += 2;
            } else {
                *why = "bad escape in text";
                return at;
            }
        } else if ((unsigned char)c < 0x20) {
            *why = "control character in text";
            return at;
        }
        if (o + 1 >= size) {
            *why = "text longer than the field";
            return at;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    return NULL;
}

int cr_incident_parse(const char *line, size_t len, cr_incident *inc, cr_error *err)
{
    static const char *const field_names[10] = {"seq",      "kind",     "urgency", "ply",  "color",
                                                "white_ms", "black_ms", "t",       "wall", "text"};
    if (!line || !inc) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "incident: no line");
    }
    if (len && line[len - 1] == '\n') {
        len--;
    }
    if (len && line[len - 1] == '\r') {
        len--;
    }
    memset(inc, 0, sizeof *inc);
    const char *f[10], *fe[10];
    int nf = 0;
    const char *p = line, *end = line + len;
    f[0] = p;
    for (; p < end; p++) {
        if (*p == '\0') {
            return cr_error_set(err, CR_EFEED, 0, (int)(p - line) + 1, "incident: NUL byte");
        }
        if (*p == '\t') {
            if (nf == 9) {
                return cr_error_set(err, CR_EFEED, 0, (int)(p - line) + 1,
                                    "incident: more than 10 fields");
            }
            fe[nf++] = p;
            f[nf] = p + 1;
        }
    }
    fe[nf++] = end;
    if (nf != 10) {
        return cr_error_set(err, CR_EFEED, 0, (int)len + 1,
                            "incident: %d fields, 10 expected (seq kind urgency ply color "
                            "white_ms black_ms t wall text)",
                            nf);
    }
    int64_t v[10] = {0};
    static const int64_t lo[10] = {1, 0, 0, 0, 0, -1, -1, -1, -1, 0};
    static const int64_t hi[10] = {
        INT32_MAX, 0, 0, 100000, 0, INT32_MAX, INT32_MAX, INT64_MAX / 2, INT64_MAX / 2, 0};
    for (int i = 0; i < 9; i++) {
        int col = (int)(f[i] - line) + 1;
        size_t n = (size_t)(fe[i] - f[i]);
        if (i == 1) {
            char tmp[24];
            if (n == 0 || n >= sizeof tmp) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: bad kind");
            }
            memcpy(tmp, f[i], n);
            tmp[n] = '\0';
            int k = cr_incident_kind_parse(tmp);
            if (k < 0) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: unknown kind \"%s\"", tmp);
            }
            inc->kind = (cr_incident_kind)k;
        } else if (i == 2) {
            int u = -1;
            for (int j = 0; j < 4; j++) {
                if (n == strlen(urgency_names[j]) && memcmp(f[i], urgency_names[j], n) == 0) {
                    u = j;
                }
            }
            if (u < 0) {
                return cr_error_set(err, CR_EFEED, 0, col,
                                    "incident: urgency must be info, notice, warning or critical");
            }
            inc->urgency = (cr_urgency)u;
        } else if (i == 4) {
            if (n != 1 || (f[i][0] != 'w' && f[i][0] != 'b' && f[i][0] != '-')) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: color must be w, b or -");
            }
            inc->color = f[i][0] == 'w' ? CR_WHITE : f[i][0] == 'b' ? CR_BLACK : -1;
        } else if (!parse_int(f[i], fe[i], lo[i], hi[i], &v[i])) {
            return cr_error_set(err, CR_EFEED, 0, col, "incident: bad %s \"%.*s\"", field_names[i],
                                (int)(n > 20 ? 20 : n), f[i]);
        }
    }
    inc->seq = (int)v[0];
    inc->ply = (int)v[3];
    inc->white_ms = (int32_t)v[5];
    inc->black_ms = (int32_t)v[6];
    inc->t = v[7];
    inc->wall = v[8];
    const char *why = "";
    const char *bad = cr_arb_unescape(f[9], fe[9], inc->text, sizeof inc->text, &why);
    if (bad) {
        return cr_error_set(err, CR_EFEED, 0, (int)(bad - line) + 1,
                            "incident: %s (at most %d bytes)", why, CR_INCIDENT_TEXT_MAX - 1);
    }
    return 0;
}

int cr_incident_compare(const void *a, const void *b)
{
    const cr_incident *x = a, *y = b;
    if (x->urgency != y->urgency) {
        return x->urgency > y->urgency ? -1 : 1;
    }
    return (x->seq > y->seq) ? -1 : (x->seq < y->seq);
}
