"""The relay behind nginx (python3 relay_proxy.py BINARY TMPDIR, from
relay_proxy.sh): nginx terminates TLS with a certificate made now and
proxies to a relay on 127.0.0.1 with "trusted_proxies": ["127.0.0.1"],
using the nginx block of docs/deploy.md. Through it: a viewer gets every
move over wss://, an arbiter logs in with its token and acts, a static file
and live PGN come whole; the throttle and the per-address cap see the
clients X-Forwarded-For names, not the proxy."""
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import WS, Games, Relay, WSClosed, check, fail, final_state, popen, sample_feed, unallocated_port, wait_until  # noqa: E402
from relay_e2e import collect  # noqa: E402

FEED = sample_feed("p03.feed")
TOKEN = "proxy-arbiter-token-1"
SRC = os.environ.get("CR_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))


def nginx_block(relay_port, port, cert, key):
    """The ```nginx block of docs/deploy.md, on our ports and certificate."""
    doc = open(os.path.join(SRC, "docs/deploy.md")).read()
    m = re.search(r"## Behind a reverse proxy.*?```nginx\n(.*?)```", doc, re.S)
    check(m, "docs/deploy.md: no ```nginx block under 'Behind a reverse proxy'")
    conf = m.group(1)
    for pat, rep in [(r"listen 443 ssl http2;", "listen 127.0.0.1:%d ssl http2;" % port),
                     (r"ssl_certificate +\S+;", "ssl_certificate %s;" % cert),
                     (r"ssl_certificate_key +\S+;", "ssl_certificate_key %s;" % key),
                     (r"server 127\.0\.0\.1:8080;", "server 127.0.0.1:%d;" % relay_port)]:
        conf, n = re.subn(pat, rep, conf)
        check(n == 1, "docs/deploy.md's nginx block: %r found %d times" % (pat, n))
    return conf


def start_nginx(tmp, relay_port, cert, key):
    port = unallocated_port()
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off;
master_process off;
pid %(t)s/nginx.pid;
error_log %(t)s/error.log info;
events { worker_connections 256; }
http {
    access_log %(t)s/access.log;
    client_body_temp_path %(t)s/body;
    proxy_temp_path %(t)s/proxy;
    fastcgi_temp_path %(t)s/fastcgi;
    uwsgi_temp_path %(t)s/uwsgi;
    scgi_temp_path %(t)s/scgi;
%(block)s
}
""" % {"t": tmp, "block": nginx_block(relay_port, port, cert, key)})
    p = popen(["nginx", "-e", os.path.join(tmp, "error.log"), "-p", tmp, "-c", conf],
              stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "nginx.err"), "wb"))
    deadline = time.time() + 20
    while time.time() < deadline:
        if p.poll() is not None:
            fail("nginx exited %d: %s%s" % (p.returncode, open(os.path.join(tmp, "nginx.err")).read(),
                                            open(os.path.join(tmp, "error.log")).read()[-2000:]))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, port
        except OSError:
            time.sleep(0.05)
    fail("nginx did not listen on %d" % port)


def curl(url, *args):
    """(exit status, HTTP status, body bytes) of curl -sk."""
    out = url.replace("/", "_")[-40:]
    path = "/tmp/cr_e2e_proxy_curl_%d_%s" % (os.getpid(), out)
    try:
        p = subprocess.run(["curl", "-sk", "-o", path, "-w", "%{http_code}"] + list(args) + [url],
                           stdout=subprocess.PIPE, timeout=60)
        return p.returncode, int(p.stdout or 0), open(path, "rb").read()
    finally:
        if os.path.exists(path):
            os.unlink(path)


def main(binary, tmp):
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    www = os.path.join(tmp, "www")
    os.mkdir(www)
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write("<!doctype html><title>proxy</title>\n")
    with open(os.path.join(www, "big.js"), "w") as f:
        f.write("".join("// line %07d of a file through the proxy\n" % i for i in range(40000)))
    cfg = os.path.join(tmp, "tournament.json")
    with open(cfg, "w") as f:
        json.dump({"event": "Proxy", "web_root": www, "trusted_proxies": ["127.0.0.1"],
                   "limits": {"per_address": 3, "token_checks": 20}, "tokens": [{"name": "chief", "token": TOKEN}],
                   "feeds": [FEED]}, f)
    r = Relay(binary, ["serve", "--config", cfg, "--state", os.path.join(tmp, "state"), "--speed", "1000"])
    ng, port = start_nginx(tmp, r.port, cert, key)
    ctx = ssl.create_default_context(cafile=cert)
    base = "https://127.0.0.1:%d" % port
    try:
        # A viewer over wss:// through the proxy gets every move.
        ws = WS(port, tls=ctx)
        ws.send({"op": "subscribe", "round": "1"})
        live = Games()
        collect(ws, live)
        check(not live.errors, "viewer through the proxy: %s" % live.errors[:5])
        final = final_state(r)
        check(live.summary() == final.summary(), "viewer through the proxy: games differ from the relay's")
        plies = sum(len(g[0]) for g in final.summary().values())
        check(plies > 20, "only %d plies" % plies)
        gid = sorted(final.summary())[0]
        # Static file and live PGN whole, over HTTP/2 to nginx.
        big = open(os.path.join(www, "big.js"), "rb").read()
        rc, st, body = curl(base + "/big.js", "--http2")
        check(rc == 0 and st == 200 and body == big, "big.js through the proxy: exit %d, %d, %d of %d bytes"
              % (rc, st, len(body), len(big)))
        direct = r.http("/live.pgn")[2].encode()
        rc, st, body = curl(base + "/live.pgn", "--http2")
        check(rc == 0 and st == 200 and body == direct, "live.pgn through the proxy: %d bytes, %d direct"
              % (len(body), len(direct)))
        # An arbiter: token auth through the proxy, the dashboard, an action.
        arb = WS(port, {"Authorization": "Bearer " + TOKEN}, tls=ctx)
        arb.send({"op": "arbiter"})
        end = time.time() + 10
        while True:
            m = arb.recv(timeout=max(0.1, end - time.time()))
            if m.get("type") == "arbiter":
                break
            check(m.get("type") != "error", "arbiter through the proxy: %s" % m)
        arb.send({"op": "arbiter-action", "game": gid, "action": "players", "white": "Proxy, White",
                  "black": "Proxy, Black"})
        wait_until(lambda: '[White "Proxy, White"]' in r.http("/game/%d.pgn" % gid)[2],
                   "the arbiter's players action in the game's PGN")
        rc, st, body = curl(base + "/arbiter/incidents.json", "-H", "Authorization: Bearer " + TOKEN)
        check(rc == 0 and st == 200 and body.startswith(b"{"), "incidents.json through the proxy: %d" % st)
        arb.close()
        ws.close()
        print("ok: through nginx: viewer %d plies, big.js %d bytes, live.pgn, arbiter action" % (plies, len(big)))

        # The throttle: client A mistypes 10 times; B's right token still
        # works, and so do the proxy's own requests (no header of ours).
        a = ["-H", "X-Forwarded-For: 203.0.113.5"]
        b = ["-H", "X-Forwarded-For: 198.51.100.7"]
        wrong = ["-H", "Authorization: Bearer wrong-token-456"]
        right = ["-H", "Authorization: Bearer " + TOKEN]
        codes = [curl(base + "/live.pgn", *(a + wrong))[1] for _ in range(11)]
        check(codes == [401] * 10 + [429], "client A's wrong tokens: %s" % codes)
        check(curl(base + "/live.pgn", *(a + right))[1] == 200, "client A's right token locked out")
        check(curl(base + "/live.pgn", *(a + wrong))[1] == 429, "client A's wrong token after its right one")
        check(curl(base + "/live.pgn", *(b + right))[1] == 200, "client B's right token: refused with A's throttle")
        check(curl(base + "/live.pgn", *right)[1] == 200, "a client without a header: the proxy was throttled")
        # A client's spoofed header is left of its real address: no escape.
        check(curl(base + "/live.pgn", "-H", "X-Forwarded-For: 192.0.2.99, 203.0.113.5", *wrong)[1] == 429,
              "client A escaped its throttle by a header of its own")
        # A's budget of checks (20 here, 14 used): within it A's right token
        # passes; beyond it none of A's tokens is checked; B is untouched.
        codes = [curl(base + "/live.pgn", *(a + wrong))[1] for _ in range(5)]
        check(codes == [429] * 5, "client A's wrong tokens within its budget: %s" % codes)
        check(curl(base + "/live.pgn", *(a + right))[1] == 200, "client A's last check within its budget")
        check(curl(base + "/live.pgn", *(a + right))[1] == 429, "client A's right token beyond its budget: checked")
        check(curl(base + "/live.pgn", *(b + right))[1] == 200, "client B's right token: refused with A's budget")
        log = open(r.log.name).read()
        check("203.0.113.5: 10 wrong tokens" in log, "the log does not name client A")
        print("ok: the throttle sees the forwarded clients: A 10 x 401 then 429 (its right token 200 "
              "within its budget of 20 checks, 429 beyond), B and the proxy 200")

        # Per-address cap 3: A's fourth viewer is refused (1013), B's three
        # and the proxy's own connections are not.
        held = [WS(port, {"X-Forwarded-For": "203.0.113.5"}, tls=ctx) for _ in range(3)]
        for w in held:
            w.send({"op": "ping"})
            check(w.recv().get("type") == "pong", "client A's viewer within the cap")
        fourth = WS(port, {"X-Forwarded-For": "203.0.113.5"}, tls=ctx)
        try:
            fourth.send({"op": "ping"})
            m = fourth.recv()
            fail("client A's fourth viewer was served: %s" % m)
        except (WSClosed, OSError):
            pass
        for i in range(3):
            w = WS(port, {"X-Forwarded-For": "198.51.100.7"}, tls=ctx)
            w.send({"op": "ping"})
            check(w.recv().get("type") == "pong", "client B's viewer %d refused with A at its cap" % (i + 1))
            held.append(w)
        check(curl(base + "/healthz")[1] == 200, "the proxy's own request refused with 6 viewers through it")
        for w in held:
            w.close()
        print("ok: the per-address cap sees the forwarded clients (A's 4th refused, B's 3 and the proxy served)")
    finally:
        ng.terminate()
        ng.wait(timeout=10)
        r.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
