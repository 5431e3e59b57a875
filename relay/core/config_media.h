/* chessrelay relay: what the tournament file gives the viewers besides the
 * games: video streams beside the boards and the players' cards.
 *
 *   "streams": [{"url": "https://www.youtube.com/watch?v=ID", "round": "*",
 *                "delay_s": 0, "title": "Commentary"}],
 *              one entry per round ("round": a round's name, "*" or absent:
 *              every round without its own entry); "url" a YouTube video or
 *              live (watch?v=, youtu.be/, /live/, /embed/), a Twitch
 *              channel or video, or an HLS playlist (.m3u8; http or https);
 *              "delay_s": how far the stream itself runs behind the venue
 *              (the viewer compares it with the public delay)
 *   "players": [{"name": "Carlsen, Magnus", "photo": "photos/carlsen.jpg",
 *                "credit": "Photo: Lennart Ootes", "fide_id": 1503014}],
 *              "photo" an http(s) URL or a file (.jpg, .jpeg, .png, .webp,
 *              relative to the tournament file) the relay serves at
 *              /media/photo/<index>
 *
 * config.c calls the readers for those two keys; the types are in
 * core/config.h (the server thread reads them through the config). */
#ifndef CR_CORE_CONFIG_MEDIA_H
#define CR_CORE_CONFIG_MEDIA_H

#include "core/config.h"

struct json_t;

/* Reads "streams" (an array) into cfg->streams. file: the tournament file's
 * name for error texts. Returns 0, or CR_ECONFIG/CR_ENOMEM with err naming
 * the field ("t.json: streams[1].url: ..."). */
int cr_config_read_streams(struct json_t *v, cr_config *cfg, const char *file, cr_error *err);

/* Reads "players" into cfg->players; base: the folder photo files are
 * relative to (NULL or "": as given). A photo file must be readable now. */
int cr_config_read_players(struct json_t *v, cr_config *cfg, const char *file, const char *base,
                           cr_error *err);

/* The reader of `key` of the tournament file's root: "streams" or
 * "players"; any other key is refused as an unknown field. */
int cr_config_read_media(const char *key, struct json_t *v, cr_config *cfg, const char *file,
                         const char *base, cr_error *err);

/* The kind of a stream URL ("youtube", "twitch", "hls"), or NULL with why
 * filled (a sentence naming what is wrong). */
const char *cr_stream_kind(const char *url, char *why, size_t why_size);

/* Frees what the readers allocated (cfg's streams and players). */
void cr_config_media_free(cr_config *cfg);

#endif
