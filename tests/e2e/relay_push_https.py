"""End to end: the broadcast push over HTTPS with the certificate checked.
A receiver on 127.0.0.1 with a certificate made now (as a broadcast host
behind a private CA would have); the relay trusts it through the tournament
file's "push_ca_file" and the host gets the round; a relay without that file
(the system's trust store) refuses the host's certificate and sends nothing;
a push_ca_file that cannot be read is refused at start, naming the field.
python3 relay_push_https.py BINARY"""
import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, make_cert, sample_feed  # noqa: E402
import relay_push  # noqa: E402

FEED = sample_feed("p03.feed")
SPEED = "1000"
TOKEN = "lip_e2e-https-token"

class Receiver(relay_push.Receiver):
    fail_first = False  # a host that takes every push


def received():
    """(authorization, body) of every push the host got."""
    with relay_push.lock:
        return [(p[2], p[4]) for p in relay_push.pushes]


def config(tmp, name, url, ca):
    path = os.path.join(tmp, name)
    cfg = {"event": "HTTPS push", "feeds": [FEED],
           "push": [{"round": "1", "url": url, "token": TOKEN}]}
    if ca:
        cfg["push_ca_file"] = ca
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def metric(relay, name):
    _, _, text = relay.http("/metrics")
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def main(binary):
    tmp = tempfile.mkdtemp(prefix="cr_push_https_")
    srv = None
    try:
        cert, key = make_cert(tmp)
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = "https://127.0.0.1:%d/api/broadcast/round/e2eTls/push" % srv.server_address[1]

        # 1. trusted through push_ca_file: the host gets the final round
        relay = Relay(binary, ["serve", "--config", config(tmp, "trusted.json", url, cert),
                               "--speed", SPEED])
        try:
            end, prev, since = time.time() + 60, None, time.time()
            while time.time() < end:
                status, _, pgn = relay.http("/round/1.pgn")
                if pgn != prev:
                    prev, since = pgn, time.time()
                got = received()
                last = got[-1] if got else None
                if status == 200 and time.time() - since > 1.5 and last and last[1] == pgn:
                    break
                time.sleep(0.2)
            else:
                fail("the https host never got the final round (%d pushes)" % len(received()))
            check(last[0] == "Bearer " + TOKEN, "authorization %r" % (last[0],))
            check(metric(relay, 'chessrelay_push_requests_total{round="1",result="failed"}') == 0,
                  "no failed push with the CA trusted")
            check(relay.stop() == 0, "relay exit status (log %s)" % relay.log.name)
        finally:
            relay.stop()
        got = len(received())
        print("ok: %d pushes over https with push_ca_file" % got)

        # 2. without the CA: the certificate is refused, nothing reaches the host
        relay = Relay(binary, ["serve", "--config", config(tmp, "untrusted.json", url, None),
                               "--speed", SPEED])
        try:
            end = time.time() + 30
            while time.time() < end:
                if metric(relay, 'chessrelay_push_requests_total{round="1",result="failed"}') >= 1:
                    break
                time.sleep(0.2)
            else:
                fail("no failed push without the CA (log %s)" % relay.log.name)
            check(len(received()) == got, "a push reached the host with its certificate unchecked")
            log = open(relay.log.name).read()
            check("certificate" in log.lower(), "the log does not name the certificate:\n" + log[-2000:])
        finally:
            relay.stop()
        print("ok: without push_ca_file the host's certificate is refused")

        # 3. a push_ca_file that cannot be read: refused at start, naming the field
        bad = config(tmp, "bad.json", url, os.path.join(tmp, "missing.pem"))
        r = subprocess.run([binary, "serve", "--config", bad, "--listen", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        check(r.returncode != 0 and "push_ca_file" in r.stderr and "missing.pem" in r.stderr,
              "a missing push_ca_file: exit %d, %r" % (r.returncode, r.stderr[-500:]))
        print("ok: an unreadable push_ca_file is refused: " + r.stderr.strip().splitlines()[-1])
    finally:
        if srv:
            srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
