/* Tests of the tournament file reader: values, defaults, errors naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "cr/pairings.h"

static const char *good =
    "{\"event\":\"Club Championship\",\"site\":\"Oslo\",\"rounds\":9,\"delay_minutes\":15,"
    "\"listen\":\"0.0.0.0:9000\",\"fsync_ms\":50,"
    "\"tokens\":[{\"name\":\"chief\",\"role\":\"arbiter\",\"token\":\"s3cret-token\"},"
    "            {\"role\":\"agent\",\"token\":\"agent-token-1\"}],"
    "\"origins\":[\"https://example.org\"],\"state_dir\":\"state\",\"feeds\":[\"r1.feed\",\"/abs.feed\"],"
    "\"tls\":{\"cert\":\"c.pem\",\"key\":\"k.pem\"},"
    "\"boards\":[{\"board\":\"DGT23164\",\"table\":1,\"round\":\"1\",\"game\":1,"
    "             \"white\":\"Carlsen, Magnus\",\"black\":\"Nepomniachtchi, Ian\","
    "             \"white_elo\":2830,\"black_elo\":2795,\"white_title\":\"GM\",\"white_fed\":\"NOR\"},"
    "            {\"table\":2,\"round\":1,\"white\":\"A\",\"black\":\"B\"},"
    "            {\"board\":\"DGT23164\",\"round\":\"2\",\"white\":\"C\",\"black\":\"D\"}]}";

static void test_good(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse(good, "t.json", "/etc/cr", &err);
    if (!cfg) {
        fail_msg("%s", err.text);
    }
    assert_string_equal(cfg->event, "Club Championship");
    assert_int_equal(cfg->rounds, 9);
    assert_int_equal(cfg->delay_s, 900);
    assert_string_equal(cfg->listen_host, "0.0.0.0");
    assert_int_equal(cfg->listen_port, 9000);
    assert_int_equal(cfg->fsync_ms, 50);
    assert_int_equal(cfg->token_count, 2);
    assert_string_equal(cfg->state_dir, "/etc/cr/state");
    assert_string_equal(cfg->feeds[0], "/etc/cr/r1.feed");
    assert_string_equal(cfg->feeds[1], "/abs.feed");
    assert_string_equal(cfg->tls_key, "/etc/cr/k.pem");
    assert_int_equal(cfg->board_count, 3);
    assert_string_equal(cfg->boards[1].round, "1");

    const cr_config_board *b = cr_config_board_for(cfg, "DGT23164", 0);
    assert_non_null(b);
    assert_string_equal(b->white, "Carlsen, Magnus");
    assert_int_equal(b->white_elo, 2830);
    b = cr_config_board_for(cfg, "DGT23164", 1);
    assert_non_null(b);
    assert_string_equal(b->round, "2");
    assert_null(cr_config_board_for(cfg, "DGT23164", 2));
    b = cr_config_board_for(cfg, "2", 0);
    assert_non_null(b);
    assert_string_equal(b->white, "A");
    assert_null(cr_config_board_for(cfg, "3", 0));

    assert_string_equal(cr_config_check_token(cfg, "s3cret-token"), "arbiter");
    assert_string_equal(cr_config_check_token(cfg, "agent-token-1"), "agent");
    assert_null(cr_config_check_token(cfg, "s3cret-tokem"));
    assert_null(cr_config_check_token(cfg, "s3cret"));
    assert_null(cr_config_check_token(cfg, ""));
    cr_config_free(cfg);
}

static void expect_error(const char *text, const char *message)
{
    cr_error err;
    cr_config *cfg = cr_config_parse(text, "tournament.json", NULL, &err);
    assert_null(cfg);
    if (!strstr(err.text, message)) {
        fail_msg("expected '%s' in '%s'", message, err.text);
    }
}

static void test_errors_name_the_field(void **state)
{
    (void)state;
    expect_error("{\"boards\":[{\"board\":\"a\"},{\"board\":\"b\"},{\"board\":\"c\"},"
                 "{\"board\":\"d\",\"white\":5}]}",
                 "tournament.json: boards[3].white: expected a string");
    expect_error("{\"rounds\":\"9\"}", "tournament.json: rounds: expected an integer");
    expect_error("{\"rounds\":0}", "tournament.json: rounds: 0 is out of range");
    expect_error("{\"evnt\":\"x\"}", "tournament.json: evnt: unknown field");
    expect_error("{\"listen\":\"localhost:http\"}", "tournament.json: listen: expected \"HOST:PORT\"");
    expect_error("{\"tokens\":[{\"token\":\"short\"}]}", "tournament.json: tokens[0].token: too short");
    expect_error("{\"tokens\":[{\"role\":\"king\",\"token\":\"longenough\"}]}",
                 "tokens[0].role: expected \"arbiter\" or \"agent\"");
    expect_error("{\"tls\":{\"cert\":\"c.pem\"}}", "tournament.json: tls.key: missing");
    expect_error("{\"boards\":[{\"white\":\"x\"}]}", "boards[0]: needs \"board\"");
    expect_error("{\"boards\":[{\"board\":\"a b\"}]}", "boards[0].board: a board id has only");
    expect_error("{\"feeds\":[1]}", "tournament.json: feeds[0]: expected a string");
    expect_error("[1,2]", "tournament.json: tournament: expected an object");
    expect_error("{\"event\":", "tournament.json:1:");
    expect_error("{\"event\":\"a\",\"event\":\"b\"}", "duplicate");
    expect_error("{\"tokens\":[{\"role\":\"agent\",\"token\":\"longenough\",\"agents\":[]}]}",
                 "tokens[0].agents: expected an array of 1 to 16 ids");
    expect_error("{\"tokens\":[{\"role\":\"agent\",\"token\":\"longenough\",\"boards\":[\"a b\"]}]}",
                 "tokens[0].boards: expected ids");
}

/* Issue 30: streams beside the boards and the players' cards. */
static void test_streams_and_players(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr-config-media-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char photo[128];
    snprintf(photo, sizeof photo, "%s/carlsen.jpg", dir);
    FILE *f = fopen(photo, "w");
    assert_non_null(f);
    fputs("jpeg", f);
    fclose(f);
    const char *text =
        "{\"event\":\"Oslo Open\",\"delay_minutes\":15,"
        "\"streams\":[{\"url\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\",\"delay_s\":30,"
        "              \"title\":\"Commentary\"},"
        "             {\"round\":2,\"url\":\"https://www.twitch.tv/chessclub\"},"
        "             {\"round\":\"3\",\"url\":\"http://10.0.0.5/live/hall.m3u8?x=1\"}],"
        "\"players\":[{\"name\":\"Carlsen, Magnus\",\"photo\":\"carlsen.jpg\",\"credit\":\"Photo: L. Ootes\","
        "              \"fide_id\":1503014},"
        "             {\"name\":\"Nepomniachtchi, Ian\",\"photo\":\"https://example.org/ian.png\"}]}";
    cr_error err;
    cr_config *cfg = cr_config_parse(text, "t.json", dir, &err);
    if (!cfg) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cfg->stream_count, 3);
    assert_string_equal(cfg->streams[0].round, "*");
    assert_string_equal(cfg->streams[0].kind, "youtube");
    assert_int_equal(cfg->streams[0].delay_s, 30);
    assert_string_equal(cfg->streams[1].round, "2");
    assert_string_equal(cfg->streams[1].kind, "twitch");
    assert_string_equal(cfg->streams[2].kind, "hls");
    assert_int_equal(cfg->player_count, 2);
    assert_string_equal(cfg->players[0].photo_file, photo);
    assert_string_equal(cfg->players[0].fide_id, "1503014");
    assert_null(cfg->players[1].photo_file);
    assert_string_equal(cfg->players[1].photo_url, "https://example.org/ian.png");
    char *json = cr_config_viewer_json(cfg);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"event\":\"Oslo Open\""));
    assert_non_null(strstr(json, "\"delay_s\":900"));
    assert_non_null(strstr(json, "\"photo\":\"/media/photo/0\""));
    assert_non_null(strstr(json, "\"credit\":\"Photo: L. Ootes\""));
    assert_non_null(strstr(json, "\"kind\":\"twitch\""));
    assert_null(strstr(json, dir)); /* the relay's paths stay on the relay */
    free(json);
    cr_config_free(cfg);

    expect_error("{\"streams\":{}}", "tournament.json: streams: expected an array");
    expect_error("{\"streams\":[{\"round\":\"1\"}]}", "tournament.json: streams[0].url: missing");
    expect_error("{\"streams\":[{\"url\":\"ftp://x.org/a.m3u8\"}]}", "streams[0].url: expected an http(s) URL");
    expect_error("{\"streams\":[{\"url\":\"https://example.org/video.mp4\"}]}",
                 "streams[0].url: not a YouTube or Twitch URL nor an HLS playlist");
    expect_error("{\"streams\":[{\"url\":\"https://www.youtube.com/channel/x\"}]}",
                 "streams[0].url: a YouTube URL must name the video");
    expect_error("{\"streams\":[{\"url\":\"http://www.twitch.tv/x\"}]}", "streams[0].url: a Twitch URL must be https");
    expect_error("{\"streams\":[{\"url\":\"https://twitch.tv/\"}]}", "streams[0].url: a Twitch URL must name the channel");
    expect_error("{\"streams\":[{\"url\":\"https://a.org/x y.m3u8\"}]}", "streams[0].url: a URL may not hold spaces");
    expect_error("{\"streams\":[{\"url\":\"https://a.org/h.m3u8\",\"delay_s\":-1}]}",
                 "streams[0].delay_s: expected whole seconds");
    expect_error("{\"streams\":[{\"url\":\"https://a.org/h.m3u8\",\"fps\":1}]}", "streams[0].fps: unknown field");
    expect_error("{\"streams\":[{\"url\":\"https://a.org/h.m3u8\"},{\"round\":\"*\",\"url\":\"https://a.org/i.m3u8\"}]}",
                 "streams[1].round: this round already has a stream");
    expect_error("{\"streams\":[\"https://a.org/h.m3u8\"]}", "streams[0]: expected an object");
    expect_error("{\"players\":[{\"photo\":\"https://a.org/p.jpg\"}]}", "tournament.json: players[0].name: missing");
    expect_error("{\"players\":[{\"name\":\"A\",\"photo\":\"a.gif\"}]}", "players[0].photo: expected a .jpg");
    expect_error("{\"players\":[{\"name\":\"A\",\"photo\":\"/nonexistent/a.jpg\"}]}",
                 "players[0].photo: no such file: /nonexistent/a.jpg");
    expect_error("{\"players\":[{\"name\":\"A\",\"photo\":\"data://x.jpg\"}]}", "players[0].photo: expected an http(s) URL or a file");
    expect_error("{\"players\":[{\"name\":\"A\",\"fide_id\":\"x\"}]}", "players[0].fide_id: expected a FIDE id");
    unlink(photo);
    rmdir(dir);
}

/* Issue 24: reverse proxies whose X-Forwarded-For is believed. */
static void test_trusted_proxies(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse("{\"trusted_proxies\":[\"127.0.0.1\",\"10.0.0.0/8\",\"fd00::/8\"]}",
                                     "t.json", NULL, &err);
    if (!cfg) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cfg->trusted_proxy_count, 3);
    unsigned char a[16];
    assert_true(cr_addr_parse("10.20.30.40", a));
    assert_true(cr_addr_in_ranges(a, cfg->trusted_proxies, cfg->trusted_proxy_count));
    assert_true(cr_addr_parse("127.0.0.2", a));
    assert_false(cr_addr_in_ranges(a, cfg->trusted_proxies, cfg->trusted_proxy_count));
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"event\":\"x\"}", "t.json", NULL, &err);
    assert_non_null(cfg);
    assert_int_equal(cfg->trusted_proxy_count, 0); /* none: every header is ignored */
    cr_config_free(cfg);
    expect_error("{\"trusted_proxies\":\"127.0.0.1\"}",
                 "tournament.json: trusted_proxies: expected an array of addresses");
    expect_error("{\"trusted_proxies\":[\"127.0.0.1\",\"10.0.0.0/33\"]}",
                 "tournament.json: trusted_proxies[1]: expected an IP address or a CIDR range");
    expect_error("{\"trusted_proxies\":[\"10.1.0.0/8\"]}", "trusted_proxies[0]: expected");
    expect_error("{\"trusted_proxies\":[\"proxy.local\"]}", "trusted_proxies[0]: expected");
    expect_error("{\"trusted_proxies\":[8]}", "trusted_proxies[0]: expected");
}

/* Issue 16 finding 2: an agent's token names its ids and boards. */
static void test_agent_token_scope(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse(
        "{\"tokens\":[{\"role\":\"agent\",\"token\":\"venue-a-tok\",\"agents\":[\"venue-a\"],"
        "\"boards\":[\"B1\"]},{\"role\":\"agent\",\"token\":\"venue-any-tok\"}]}",
        "t.json", NULL, &err);
    assert_non_null(cfg);
    const cr_config_token *a = cr_config_find_token(cfg, "venue-a-tok");
    const cr_config_token *any = cr_config_find_token(cfg, "venue-any-tok");
    assert_non_null(a);
    assert_non_null(any);
    assert_null(cr_config_find_token(cfg, "venue-b-tok"));
    assert_true(cr_config_token_allows_agent(a, "venue-a"));
    assert_false(cr_config_token_allows_agent(a, "venue-b"));
    assert_true(cr_config_token_allows_board(a, "B1"));
    assert_false(cr_config_token_allows_board(a, "B2"));
    assert_true(cr_config_token_allows_agent(any, "venue-b"));
    assert_true(cr_config_token_allows_board(any, "B2"));
    assert_true(cr_config_token_allows_agent(NULL, "x"));
    /* issue 27: a token without boards= may not feed the boards the file
     * reserves for another token; a scoped one only its own */
    assert_true(cr_config_board_allowed(cfg, a, "B1"));
    assert_false(cr_config_board_allowed(cfg, a, "B2"));
    assert_false(cr_config_board_allowed(cfg, any, "B1"));
    assert_true(cr_config_board_allowed(cfg, any, "B2"));
    assert_false(cr_config_board_allowed(cfg, NULL, "B1"));
    cr_config_free(cfg);
}

/* Issue 27: one token, one role; a bad time control is refused at start
 * with its field named, also as one string for every round. */
static void test_loose_config_refused(void **state)
{
    (void)state;
    expect_error("{\"time_control\":\"banana\"}",
                 "tournament.json: time_control: \"banana\" is not a time control");
    expect_error("{\"time_control\":{\"3\":\"banana\"}}",
                 "tournament.json: time_control.3: \"banana\" is not a time control");
    expect_error("{\"tokens\":[{\"role\":\"arbiter\",\"token\":\"same-token-1\"},"
                 "{\"role\":\"agent\",\"token\":\"other-token\"},"
                 "{\"role\":\"agent\",\"token\":\"same-token-1\"}]}",
                 "tournament.json: tokens[2].token: the same token as tokens[0]");
    cr_config *cfg = cr_config_new();
    assert_int_equal(cr_config_add_token(cfg, "command line", "arbiter", "arbiter-tok"), 0);
    assert_int_equal(cr_config_add_token(cfg, "again", "arbiter", "arbiter-tok"), CR_ECONFIG);
    cr_config_token t;
    char why[160];
    assert_int_equal(cr_config_parse_agent_token("arbiter-tok:agents=v", &t, why, sizeof why), 0);
    assert_int_equal(cr_config_add_token_entry(cfg, &t), CR_ECONFIG);
    assert_int_equal(cr_config_parse_agent_token("venue-tok:agents=v", &t, why, sizeof why), 0);
    assert_int_equal(cr_config_add_token_entry(cfg, &t), 0);
    const cr_config_token *got = cr_config_find_token(cfg, "venue-tok");
    assert_non_null(got);
    assert_string_equal(got->role, "agent");
    assert_true(cr_config_token_allows_agent(got, "v"));
    assert_false(cr_config_token_allows_agent(got, "w"));
    cr_config_free(cfg);
}

/* --agent-token TOKEN[:agents=..][:boards=..]: the same scope from the
 * command line, and clear errors. */
static void test_agent_token_option(void **state)
{
    (void)state;
    cr_config_token t;
    char why[160];
    assert_int_equal(cr_config_parse_agent_token("plain-token", &t, why, sizeof why), 0);
    assert_string_equal(t.token, "plain-token");
    assert_string_equal(t.role, "agent");
    assert_int_equal(t.agent_count, 0);
    assert_int_equal(t.board_count, 0);
    assert_true(cr_config_token_allows_agent(&t, "anyone"));
    /* a colon that starts no scope is part of the token */
    assert_int_equal(cr_config_parse_agent_token("a:b:C=x:1=y", &t, why, sizeof why), 0);
    assert_string_equal(t.token, "a:b:C=x:1=y");

    assert_int_equal(cr_config_parse_agent_token("s3cr3t-tok:agents=venue-a,hall_2:boards=B1,B2.x",
                                                 &t, why, sizeof why),
                     0);
    assert_string_equal(t.token, "s3cr3t-tok");
    assert_int_equal(t.agent_count, 2);
    assert_string_equal(t.agents[1], "hall_2");
    assert_int_equal(t.board_count, 2);
    assert_string_equal(t.boards[1], "B2.x");
    assert_true(cr_config_token_allows_agent(&t, "venue-a"));
    assert_false(cr_config_token_allows_agent(&t, "venue-b"));
    assert_true(cr_config_token_allows_board(&t, "B2.x"));
    assert_false(cr_config_token_allows_board(&t, "B3"));
    /* boards first, agents absent: any id, those boards */
    assert_int_equal(cr_config_parse_agent_token("s3cr3t-tok:boards=B7", &t, why, sizeof why), 0);
    assert_string_equal(t.token, "s3cr3t-tok");
    assert_int_equal(t.agent_count, 0);
    assert_int_equal(t.board_count, 1);

    static const struct {
        const char *arg, *why;
    } bad[] = {
        {"", "the token: empty"},
        {"short", "the token: too short"},
        {":agents=a", "the token: empty"},
        {"s3cr3t-tok:agents=", "agents=: \"\" is not an id"},
        {"s3cr3t-tok:agents=a,,b", "agents=: \"\" is not an id"},
        {"s3cr3t-tok:agents=a b", "agents=: \"a b\" is not an id"},
        {"s3cr3t-tok:boards=B1:boards=B2", "boards= given twice"},
        {"s3cr3t-tok:board=B1", "\"board=B1\": expected agents=ID,... or boards=ID,..."},
        {"s3cr3t-tok:agents=a:board=B1", "\"board=B1\": expected agents=ID,... or boards=ID,..."},
        {"s3cr3t-tok:agents=a:", "\"\": expected agents="},
        {"s3cr3t-tok:agents=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "agents=: more than 16 ids"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(cr_config_parse_agent_token(bad[i].arg, &t, why, sizeof why), CR_EINVAL);
        if (!strstr(why, bad[i].why)) {
            fail_msg("%s: \"%s\", want \"%s\"", bad[i].arg, why, bad[i].why);
        }
    }
}

static void test_pairings(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse("{\"pairings\":\"open.trf\"}", "t.json", "/etc/cr", &err);
    assert_non_null(cfg);
    assert_string_equal(cfg->pairings, "/etc/cr/open.trf");
    assert_int_equal(cfg->pairings_round, 0);
    assert_int_equal(cfg->pairings_format, CR_PAIRINGS_AUTO);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"pairings\":{\"file\":\"/p/r.pgn\",\"round\":3,\"format\":\"pgn\"}}",
                          "t.json", "/etc/cr", &err);
    assert_non_null(cfg);
    assert_string_equal(cfg->pairings, "/p/r.pgn");
    assert_int_equal(cfg->pairings_round, 3);
    assert_int_equal(cfg->pairings_format, CR_PAIRINGS_PGN);
    cr_config_free(cfg);
    expect_error("{\"pairings\":5}", "tournament.json: pairings: expected a file name");
    expect_error("{\"pairings\":{\"round\":2}}", "tournament.json: pairings.file: missing");
    expect_error("{\"pairings\":{\"file\":\"a\",\"round\":0}}", "pairings.round: 0 is out of range");
    expect_error("{\"pairings\":{\"file\":\"a\",\"format\":\"xls\"}}",
                 "pairings.format: expected \"trf\", \"pgn\" or \"auto\"");
    expect_error("{\"pairings\":{\"file\":\"a\",\"rund\":2}}", "pairings.rund: unknown field");
    expect_error("{\"pairings\":\"\"}", "pairings: empty path");
}

/* "pgn": {"marks": false} turns the words of uncertainty off (issue 15). */
static void test_pgn_marks(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse("{\"event\":\"x\"}", "t.json", NULL, &err);
    assert_non_null(cfg);
    assert_false(cfg->pgn_bare); /* marks by default */
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"pgn\":{\"marks\":false}}", "t.json", NULL, &err);
    assert_non_null(cfg);
    assert_true(cfg->pgn_bare);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"pgn\":{\"marks\":true}}", "t.json", NULL, &err);
    assert_non_null(cfg);
    assert_false(cfg->pgn_bare);
    cr_config_free(cfg);
    expect_error("{\"pgn\":false}", "tournament.json: pgn: expected an object");
    expect_error("{\"pgn\":{\"marks\":0}}", "tournament.json: pgn.marks: expected true or false");
    expect_error("{\"pgn\":{\"mark\":false}}", "tournament.json: pgn.mark: unknown field");
    /* "incidents": the board-and-clock incidents, off unless switched on (issue 29). */
    cfg = cr_config_parse("{\"event\":\"x\"}", "t.json", NULL, &err);
    assert_false(cfg->press_without_move);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"incidents\":{\"press-without-move\":true}}", "t.json", NULL, &err);
    assert_non_null(cfg);
    assert_true(cfg->press_without_move);
    assert_false(cfg->move_without_press);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"incidents\":{\"move-without-press\":true}}", "t.json", NULL, &err);
    assert_true(cfg && cfg->move_without_press && !cfg->press_without_move);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"incidents\":{\"time-added\":true}}", "t.json", NULL, &err);
    assert_true(cfg && cfg->time_added && !cfg->move_without_press && !cfg->press_without_move);
    cr_config_free(cfg);
    expect_error("{\"incidents\":{\"press-without-move\":1}}",
                 "tournament.json: incidents.press-without-move: expected true or false");
    expect_error("{\"incidents\":{\"moved-no-press\":true}}",
                 "tournament.json: incidents.moved-no-press: unknown incident");
}

/* "livechess": off by default; true is 127.0.0.1:1982; a port alone
 * stays on loopback, another address only when written. */
static void test_livechess(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse("{\"event\":\"x\"}", "t.json", NULL, &err);
    assert_false(cfg->livechess);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"livechess\":true}", "t.json", NULL, &err);
    assert_true(cfg->livechess);
    assert_string_equal(cfg->livechess_host, "127.0.0.1");
    assert_int_equal(cfg->livechess_port, 1982);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"livechess\":{\"listen\":\"2000\"}}", "t.json", NULL, &err);
    assert_true(cfg->livechess);
    assert_string_equal(cfg->livechess_host, "127.0.0.1");
    assert_int_equal(cfg->livechess_port, 2000);
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"livechess\":{\"listen\":\"192.168.1.5:1982\"}}", "t.json", NULL,
                          &err);
    assert_string_equal(cfg->livechess_host, "192.168.1.5");
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"livechess\":false}", "t.json", NULL, &err);
    assert_false(cfg->livechess);
    cr_config_free(cfg);
    expect_error("{\"livechess\":1}", "tournament.json: livechess: expected true, false or");
    expect_error("{\"livechess\":{\"listen\":\"host:port\"}}",
                 "tournament.json: livechess.listen: expected \"HOST:PORT\"");
    expect_error("{\"livechess\":{\"listen\":1982}}",
                 "tournament.json: livechess.listen: expected a string");
    expect_error("{\"livechess\":{\"port\":1982}}", "tournament.json: livechess.port: unknown field");
}

/* "time_control" per round: the round's own, "*" for the others; a
 * string is every round's; a bad one names its round. */
static void test_round_time_controls(void **state)
{
    (void)state;
    cr_error err;
    cr_config *cfg = cr_config_parse(
        "{\"time_control\":{\"1\":\"5400+30\",\"9\":\"900+10\",\"*\":\"3600\"}}", "t.json",
        "/etc/cr", &err);
    assert_non_null(cfg);
    assert_string_equal(cr_config_time_control(cfg, "1"), "5400+30");
    assert_string_equal(cr_config_time_control(cfg, "9"), "900+10");
    assert_string_equal(cr_config_time_control(cfg, "4"), "3600");
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"time_control\":{\"1\":\"5400+30\"}}", "t.json", "/etc/cr", &err);
    assert_non_null(cfg);
    assert_null(cr_config_time_control(cfg, "2"));
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"time_control\":\"180d2\"}", "t.json", "/etc/cr", &err);
    assert_non_null(cfg);
    assert_string_equal(cr_config_time_control(cfg, "7"), "180d2");
    cr_config_free(cfg);
    cfg = cr_config_parse("{\"time_control\":{\"2\":\"fast\"}}", "t.json", "/etc/cr", &err);
    assert_null(cfg);
    assert_non_null(strstr(err.text, "time_control.2"));
}

static void test_listen_and_load(void **state)
{
    (void)state;
    char host[64];
    int port = 0;
    assert_int_equal(cr_parse_listen("127.0.0.1:8080", host, sizeof host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 8080);
    assert_int_equal(cr_parse_listen("[::1]:9", host, sizeof host, &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(cr_parse_listen(":0", host, sizeof host, &port), 0);
    assert_int_equal(port, 0);
    assert_int_equal(cr_parse_listen("x:70000", host, sizeof host, &port), CR_EINVAL);
    assert_int_equal(cr_parse_listen("x:", host, sizeof host, &port), CR_EINVAL);

    char dir[] = "/tmp/cr_test_config_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/t.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"feeds\":[\"a.feed\"]}", f);
    fclose(f);
    cr_error err;
    cr_config *cfg = cr_config_load(path, &err);
    assert_non_null(cfg);
    char want[160];
    snprintf(want, sizeof want, "%s/a.feed", dir);
    assert_string_equal(cfg->feeds[0], want);
    assert_int_equal(cfg->listen_port, 8080);
    cr_config_free(cfg);
    unlink(path);
    rmdir(dir);
    assert_null(cr_config_load("/nonexistent/t.json", &err));
    assert_non_null(strstr(err.text, "/nonexistent/t.json"));
}

/* The command line's tokens obey the tournament file's rule: 8 to 255
 * characters, refused otherwise, never cut. */
static void test_command_line_tokens(void **state)
{
    (void)state;
    char longest[256], too_long[257];
    memset(longest, 'a', 255);
    longest[255] = '\0';
    memset(too_long, 'b', 256);
    too_long[256] = '\0';
    assert_string_equal(cr_config_token_problem(""), "empty");
    assert_non_null(strstr(cr_config_token_problem("1234567"), "too short"));
    assert_null(cr_config_token_problem("12345678"));
    assert_null(cr_config_token_problem(longest));
    assert_non_null(strstr(cr_config_token_problem(too_long), "too long"));
    cr_config *cfg = cr_config_new();
    assert_int_equal(cr_config_add_token(cfg, "command line", "arbiter", "short"), CR_EINVAL);
    assert_int_equal(cr_config_add_token(cfg, "command line", "arbiter", too_long), CR_EINVAL);
    assert_int_equal(cr_config_add_token(cfg, "command line", "arbiter", longest), 0);
    assert_non_null(cr_config_check_token(cfg, longest));
    longest[254] = '\0'; /* a prefix is not the token */
    assert_null(cr_config_check_token(cfg, longest));
    cr_config_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_errors_name_the_field),
        cmocka_unit_test(test_agent_token_scope),
        cmocka_unit_test(test_agent_token_option),
        cmocka_unit_test(test_loose_config_refused),
        cmocka_unit_test(test_pairings),
        cmocka_unit_test(test_round_time_controls),
        cmocka_unit_test(test_listen_and_load),
        cmocka_unit_test(test_command_line_tokens),
        cmocka_unit_test(test_pgn_marks),
        cmocka_unit_test(test_livechess),
        cmocka_unit_test(test_trusted_proxies),
        cmocka_unit_test(test_streams_and_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
