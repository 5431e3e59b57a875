/* chessrelay relay: the tournament file's streams and players' cards. */
#include "core/config_media.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int fail(cr_error *err, const char *file, const char *field, const char *what)
{
    return cr_error_set(err, CR_ECONFIG, 0, 0, "%s: %s: %s", file, field, what);
}

static int get_text(json_t *v, char *dst, size_t size, const char *file, const char *field,
                    cr_error *err)
{
    if (!json_is_string(v)) {
        return fail(err, file, field, "expected a string");
    }
    const char *s = json_string_value(v);
    if (strlen(s) >= size) {
        char what[64];
        snprintf(what, sizeof what, "longer than %zu bytes", size - 1);
        return fail(err, file, field, what);
    }
    memcpy(dst, s, strlen(s) + 1);
    return 0;
}

/* The host and path of an http(s) URL: host without port or user, path from
 * the first '/' (or ""). Returns false for another scheme or a bad host. */
static bool split_url(const char *url, bool *https, char *host, size_t host_size,
                      const char **path)
{
    const char *rest;
    if (strncasecmp(url, "https://", 8) == 0) {
        *https = true;
        rest = url + 8;
    } else if (strncasecmp(url, "http://", 7) == 0) {
        *https = false;
        rest = url + 7;
    } else {
        return false;
    }
    size_t n = strcspn(rest, "/?#");
    const char *at = memchr(rest, '@', n);
    if (at) {
        return false; /* credentials in a public page's URL */
    }
    size_t hn = strcspn(rest, ":/?#");
    if (hn == 0 || hn >= host_size) {
        return false;
    }
    for (size_t i = 0; i < hn; i++) {
        host[i] = (char)(rest[i] >= 'A' && rest[i] <= 'Z' ? rest[i] + 32 : rest[i]);
    }
    host[hn] = '\0';
    *path = rest + n;
    return true;
}

static bool host_is(const char *host, const char *domain)
{
    size_t h = strlen(host), d = strlen(domain);
    return strcmp(host, domain) == 0 || (h > d && host[h - d - 1] == '.' && strcmp(host + h - d, domain) == 0);
}

/* An id of letters, digits, '-' and '_' at p (up to a '/', '?', '&' or '#'). */
static size_t id_len(const char *p)
{
    size_t n = 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '-' || p[n] == '_') {
        n++;
    }
    return n;
}

static bool youtube_has_id(const char *host, const char *path)
{
    if (strcmp(host, "youtu.be") == 0) {
        return path[0] == '/' && id_len(path + 1) > 0;
    }
    const char *prefixes[] = {"/embed/", "/live/", "/shorts/", "/v/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) == 0 && id_len(path + n) > 0) {
            return true;
        }
    }
    const char *q = strncmp(path, "/watch?", 7) == 0 ? path + 6 : NULL;
    while (q && *q) { /* q at '?' or '&' */
        if (strncmp(q + 1, "v=", 2) == 0 && id_len(q + 3) > 0) {
            return true;
        }
        q = strchr(q + 1, '&');
    }
    return false;
}

const char *cr_stream_kind(const char *url, char *why, size_t why_size)
{
    for (const char *c = url; *c; c++) {
        if ((unsigned char)*c <= ' ' || *c == '"' || *c == '<' || *c == '>' || *c == '\\') {
            snprintf(why, why_size, "a URL may not hold spaces, control characters, quotes or <>");
            return NULL;
        }
    }
    bool https;
    char host[256];
    const char *path;
    if (!split_url(url, &https, host, sizeof host, &path)) {
        snprintf(why, why_size, "expected an http(s) URL of a YouTube or Twitch stream or an HLS playlist (.m3u8)");
        return NULL;
    }
    size_t plen = strcspn(path, "?#");
    if (plen >= 5 && strncasecmp(path + plen - 5, ".m3u8", 5) == 0) {
        return "hls";
    }
    bool yt = host_is(host, "youtube.com") || strcmp(host, "youtu.be") == 0 ||
              host_is(host, "youtube-nocookie.com");
    bool tw = host_is(host, "twitch.tv");
    if ((yt || tw) && !https) {
        snprintf(why, why_size, "a %s URL must be https", yt ? "YouTube" : "Twitch");
        return NULL;
    }
    if (yt) {
        if (!youtube_has_id(host, path)) {
            snprintf(why, why_size, "a YouTube URL must name the video or live stream "
                                    "(watch?v=ID, youtu.be/ID, /live/ID or /embed/ID)");
            return NULL;
        }
        return "youtube";
    }
    if (tw) {
        size_t n = path[0] == '/' ? id_len(path + 1) : 0;
        bool video = strncmp(path, "/videos/", 8) == 0 && id_len(path + 8) > 0;
        if (!video && (n == 0 || (path[1 + n] && path[1 + n] != '?' && path[1 + n] != '/'))) {
            snprintf(why, why_size, "a Twitch URL must name the channel (twitch.tv/NAME) or a video "
                                    "(twitch.tv/videos/ID)");
            return NULL;
        }
        return "twitch";
    }
    snprintf(why, why_size, "not a YouTube or Twitch URL nor an HLS playlist (a path ending in .m3u8)");
    return NULL;
}

static int read_stream(json_t *o, size_t index, cr_config *cfg, const char *file, cr_error *err)
{
    char base[32], f[64];
    snprintf(base, sizeof base, "streams[%zu]", index);
    if (!json_is_object(o)) {
        return fail(err, file, base, "expected an object with \"url\" (and \"round\", \"delay_s\", \"title\")");
    }
    cr_config_stream *s = &cfg->streams[index];
    memset(s, 0, sizeof *s);
    strcpy(s->round, "*");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        snprintf(f, sizeof f, "%s.%s", base, key);
        int rc = 0;
        if (strcmp(key, "round") == 0) {
            if (json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 10000) {
                snprintf(s->round, sizeof s->round, "%d", (int)json_integer_value(v));
            } else if (json_is_integer(v)) {
                rc = fail(err, file, f, "expected a round from 1 to 10000, a name or \"*\"");
            } else {
                rc = get_text(v, s->round, sizeof s->round, file, f, err);
                if (!rc && !s->round[0]) {
                    rc = fail(err, file, f, "empty (\"*\" for every round)");
                }
            }
        } else if (strcmp(key, "url") == 0) {
            char why[200];
            rc = get_text(v, s->url, sizeof s->url, file, f, err);
            const char *kind = rc ? NULL : cr_stream_kind(s->url, why, sizeof why);
            if (!rc && !kind) {
                rc = fail(err, file, f, why);
            } else if (kind) {
                snprintf(s->kind, sizeof s->kind, "%s", kind);
            }
        } else if (strcmp(key, "title") == 0) {
            rc = get_text(v, s->title, sizeof s->title, file, f, err);
        } else if (strcmp(key, "delay_s") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 24 * 3600) {
                rc = fail(err, file, f, "expected whole seconds from 0 to 86400");
            } else {
                s->delay_s = (int)json_integer_value(v);
            }
        } else {
            rc = fail(err, file, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!s->url[0]) {
        snprintf(f, sizeof f, "%s.url", base);
        return fail(err, file, f, "missing");
    }
    for (size_t i = 0; i < index; i++) {
        if (strcmp(cfg->streams[i].round, s->round) == 0) {
            snprintf(f, sizeof f, "%s.round", base);
            return fail(err, file, f, "this round already has a stream");
        }
    }
    return 0;
}

int cr_config_read_streams(json_t *v, cr_config *cfg, const char *file, cr_error *err)
{
    if (!json_is_array(v)) {
        return fail(err, file, "streams", "expected an array of {\"url\", \"round\", \"delay_s\", \"title\"}");
    }
    free(cfg->streams);
    cfg->stream_count = 0;
    cfg->streams = calloc(json_array_size(v) + 1, sizeof *cfg->streams);
    if (!cfg->streams) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        int rc = read_stream(json_array_get(v, i), i, cfg, file, err);
        if (rc) {
            return rc;
        }
        cfg->stream_count = (int)i + 1;
    }
    return 0;
}

static bool photo_ext_ok(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *ok[] = {".jpg", ".jpeg", ".png", ".webp"};
    for (size_t i = 0; dot && i < sizeof ok / sizeof ok[0]; i++) {
        if (strcasecmp(dot, ok[i]) == 0) {
            return true;
        }
    }
    return false;
}

static int read_photo(json_t *v, cr_config_player *p, const char *file, const char *f,
                      const char *base, cr_error *err)
{
    char path[1024];
    int rc = get_text(v, path, sizeof path, file, f, err);
    if (rc) {
        return rc;
    }
    bool https;
    char host[256];
    const char *rest;
    if (split_url(path, &https, host, sizeof host, &rest)) {
        if (strpbrk(path, " \"<>\\")) {
            return fail(err, file, f, "a URL may not hold spaces, quotes or <>");
        }
        memcpy(p->photo_url, path, strlen(path) + 1);
        return 0;
    }
    if (strstr(path, "://")) {
        return fail(err, file, f, "expected an http(s) URL or a file");
    }
    if (!photo_ext_ok(path)) {
        return fail(err, file, f, "expected a .jpg, .jpeg, .png or .webp file");
    }
    size_t n = strlen(path) + (base ? strlen(base) : 0) + 2;
    p->photo_file = malloc(n);
    if (!p->photo_file) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    if (path[0] == '/' || !base || !base[0]) {
        snprintf(p->photo_file, n, "%s", path);
    } else {
        snprintf(p->photo_file, n, "%s/%s", base, path);
    }
    struct stat st;
    if (stat(p->photo_file, &st) || !S_ISREG(st.st_mode)) {
        char what[1200];
        snprintf(what, sizeof what, "no such file: %s", p->photo_file);
        return fail(err, file, f, what);
    }
    return 0;
}

static int read_player(json_t *o, size_t index, cr_config *cfg, const char *file, const char *base,
                       cr_error *err)
{
    char pre[32], f[64];
    snprintf(pre, sizeof pre, "players[%zu]", index);
    if (!json_is_object(o)) {
        return fail(err, file, pre, "expected an object with \"name\" (and \"photo\", \"credit\", \"fide_id\")");
    }
    cr_config_player *p = &cfg->players[index];
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        snprintf(f, sizeof f, "%s.%s", pre, key);
        int rc = 0;
        if (strcmp(key, "name") == 0) {
            rc = get_text(v, p->name, sizeof p->name, file, f, err);
        } else if (strcmp(key, "photo") == 0) {
            rc = read_photo(v, p, file, f, base, err);
        } else if (strcmp(key, "credit") == 0) {
            rc = get_text(v, p->credit, sizeof p->credit, file, f, err);
        } else if (strcmp(key, "fide_id") == 0) {
            if (json_is_integer(v) && json_integer_value(v) > 0) {
                snprintf(p->fide_id, sizeof p->fide_id, "%lld", (long long)json_integer_value(v));
            } else {
                rc = fail(err, file, f, "expected a FIDE id (a positive number)");
            }
        } else {
            rc = fail(err, file, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!p->name[0]) {
        snprintf(f, sizeof f, "%s.name", pre);
        return fail(err, file, f, "missing");
    }
    return 0;
}

int cr_config_read_players(json_t *v, cr_config *cfg, const char *file, const char *base,
                           cr_error *err)
{
    if (!json_is_array(v)) {
        return fail(err, file, "players", "expected an array of {\"name\", \"photo\", \"credit\"}");
    }
    for (int i = 0; i < cfg->player_count; i++) { /* "players" given twice is refused by jansson */
        free(cfg->players[i].photo_file);
    }
    free(cfg->players);
    cfg->player_count = 0;
    cfg->players = calloc(json_array_size(v) + 1, sizeof *cfg->players);
    if (!cfg->players) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        cfg->player_count = (int)i + 1; /* counted first: a failed entry's file is freed too */
        int rc = read_player(json_array_get(v, i), i, cfg, file, base, err);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

int cr_config_read_media(const char *key, json_t *v, cr_config *cfg, const char *file,
                         const char *base, cr_error *err)
{
    if (strcmp(key, "streams") == 0) {
        return cr_config_read_streams(v, cfg, file, err);
    }
    if (strcmp(key, "players") == 0) {
        return cr_config_read_players(v, cfg, file, base, err);
    }
    return fail(err, file, key, "unknown field");
}

void cr_config_media_free(cr_config *cfg)
{
    free(cfg->streams);
    cfg->streams = NULL;
    cfg->stream_count = 0;
    for (int i = 0; i < cfg->player_count; i++) {
        free(cfg->players[i].photo_file);
    }
    free(cfg->players);
    cfg->players = NULL;
    cfg->player_count = 0;
}

char *cr_config_viewer_json(const cr_config *cfg)
{
    json_t *streams = json_array(), *players = json_array();
    for (int i = 0; streams && i < cfg->stream_count; i++) {
        const cr_config_stream *s = &cfg->streams[i];
        json_array_append_new(streams, json_pack("{s:s,s:s,s:s,s:s,s:i}", "round", s->round, "url",
                                                 s->url, "kind", s->kind, "title", s->title,
                                                 "delay_s", s->delay_s));
    }
    for (int i = 0; players && i < cfg->player_count; i++) {
        const cr_config_player *p = &cfg->players[i];
        char photo[1100];
        if (p->photo_file) {
            snprintf(photo, sizeof photo, "/media/photo/%d", i);
        } else {
            snprintf(photo, sizeof photo, "%s", p->photo_url);
        }
        json_array_append_new(players, json_pack("{s:s,s:s,s:s,s:s}", "name", p->name, "photo", photo,
                                                 "credit", p->credit, "fideId", p->fide_id));
    }
    json_t *root = json_pack("{s:s,s:s,s:s,s:i,s:i,s:o*,s:o*}", "event", cfg->event, "site", cfg->site,
                             "date", cfg->date, "rounds", cfg->rounds, "delay_s", cfg->delay_s,
                             "streams", streams, "players", players);
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    return text;
}
