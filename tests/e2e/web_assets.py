"""The web build (web/dist: hashed names, .gz and .br copies) served by the
relay (relay/net/static_files.c): python3 web_assets.py BINARY.

Runs the relay on a copy of web/dist (CR_WEB_ROOT) and checks, for br, gzip
and identity, the headers and that each decoded body is the original file;
immutable caching of /assets/, no-cache + ETag + 304 elsewhere (client
routes too), q-values, a stale copy never sent, 406."""
import gzip
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_ws import Relay, check, fail, sample_feed  # noqa: E402

SRC = os.environ.get("CR_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DIST = os.path.join(SRC, "web", "dist")
BROWSER = "gzip, deflate, br, zstd"
IMMUTABLE = "public, max-age=31536000, immutable"


class Unbrotli:
    """Brotli through node's zlib (the web build's own tool): Python's
    standard library has none. One node process decodes every body (length-
    prefixed on its pipes): a node started per body could take longer, on a
    loaded machine, than the relay keeps an idle keep-alive connection open."""
    SCRIPT = r"""
const zlib = require('zlib'); let buf = Buffer.alloc(0);
process.stdin.on('data', d => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const n = buf.readUInt32BE(0); let out;
    try { out = zlib.brotliDecompressSync(buf.subarray(4, 4 + n)); } catch (e) { out = null; }
    buf = buf.subarray(4 + n);
    const h = Buffer.alloc(5); h.writeUInt8(out ? 0 : 1, 0); h.writeUInt32BE(out ? out.length : 0, 1);
    process.stdout.write(out ? Buffer.concat([h, out]) : h);
  }
});"""

    def __init__(self):
        self.p = None

    def __call__(self, data):
        if self.p is None:
            self.p = subprocess.Popen(["node", "-e", self.SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.p.stdin.write(len(data).to_bytes(4, "big") + data)
        self.p.stdin.flush()
        head = self.p.stdout.read(5)
        check(len(head) == 5, "node's brotli decoder ended")
        check(head[0] == 0, "node could not decode a br body")
        return self.p.stdout.read(int.from_bytes(head[1:], "big"))

    def close(self):
        if self.p is not None:
            self.p.stdin.close()
            self.p.wait(timeout=30)


unbrotli = Unbrotli()


class Client:
    """One keep-alive connection: every request goes over the same socket,
    so a 304 that broke the connection would fail the next request."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def get(self, path, accept=None, headers=None):
        self.conn.putrequest("GET", path, skip_accept_encoding=True)
        if accept is not None:
            self.conn.putheader("Accept-Encoding", accept)
        for k, v in (headers or {}).items():
            self.conn.putheader(k, v)
        self.conn.endheaders()
        r = self.conn.getresponse()
        body = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def decoded(hdr, body):
    enc = hdr.get("content-encoding")
    if enc == "br":
        return unbrotli(body)
    if enc == "gzip":
        return gzip.decompress(body)
    check(enc is None, "unexpected Content-Encoding %r" % enc)
    return body


def expect_file(c, path, original, accept, want_enc, cache):
    """GET path with accept: want_enc (None: identity), the right headers,
    and the decoded body equals the original. Returns the headers."""
    st, hdr, body = c.get(path, accept)
    what = "%s (Accept-Encoding: %r)" % (path, accept)
    check(st == 200, "%s: status %d" % (what, st))
    check(hdr.get("content-encoding") == want_enc,
          "%s: Content-Encoding %r, expected %r" % (what, hdr.get("content-encoding"), want_enc))
    check(hdr.get("content-length") == str(len(body)),
          "%s: Content-Length %r for %d bytes" % (what, hdr.get("content-length"), len(body)))
    check(hdr.get("vary", "").lower() == "accept-encoding", "%s: Vary %r" % (what, hdr.get("vary")))
    check(hdr.get("cache-control") == cache, "%s: Cache-Control %r, expected %r" % (what, hdr.get("cache-control"), cache))
    check(hdr.get("etag", "").startswith('"'), "%s: no ETag" % what)
    check(decoded(hdr, body) == original, "%s: the decoded body is not the file" % what)
    if want_enc:
        check(len(body) < len(original), "%s: %s body of %d bytes, original %d" % (what, want_enc, len(body), len(original)))
    return hdr


def main(binary):
    if not os.path.isfile(os.path.join(DIST, "assets.json")):
        fail("no web build in %s (web/build.sh; the CMake target `web` makes it)" % DIST)
    tmp = tempfile.mkdtemp(prefix="cr_web_assets_")
    try:
        root = os.path.join(tmp, "web")
        shutil.copytree(DIST, root)  # copy2: the copies keep their mtimes
        assets = json.load(open(os.path.join(root, "assets.json")))
        os.environ["CR_WEB_ROOT"] = root
        r = Relay(binary, ["replay", sample_feed("p01.feed"), "--serve", "--speed", "1"])
        try:
            run(r, root, assets)
        finally:
            r.stop()
        h2(binary, tmp, root)
    finally:
        unbrotli.close()
        shutil.rmtree(tmp, ignore_errors=True)


def run(r, root, assets):
    c = Client(r.port)
    index = open(os.path.join(root, "index.html"), "rb").read()
    js_path = assets["app.js"]
    check(js_path.startswith("/assets/app-") and js_path.endswith(".js"), "assets.json app.js: %r" % js_path)
    check(js_path.encode() in index and assets["app.css"].encode() in index, "index.html does not load the hashed files")
    js = open(os.path.join(root, js_path[1:]), "rb").read()
    flag = open(os.path.join(root, "flags", "no.svg"), "rb").read()

    # Every coding, for the page, the bundle and a flag.
    for accept, enc in ((BROWSER, "br"), ("gzip", "gzip"), ("GZIP;q=1.0, br;q=0.5", "gzip"),
                        (None, None), ("identity", None), ("gzip;q=0, br;q=0", None), ("deflate", None)):
        expect_file(c, "/", index, accept, enc, "no-cache")
        expect_file(c, js_path, js, accept, enc, IMMUTABLE)
        expect_file(c, "/flags/no.svg", flag, accept, enc, "no-cache")
    st, hdr, _ = c.get(assets["app.css"], BROWSER)
    check(st == 200 and hdr.get("content-type") == "text/css" and hdr.get("cache-control") == IMMUTABLE,
          "app.css: %d %s" % (st, hdr))
    check(c.get("/flags/no.svg", BROWSER)[1].get("content-type") == "image/svg+xml", "flag Content-Type")

    # 304 for the same representation, a full answer for another one.
    hdr = expect_file(c, "/", index, BROWSER, "br", "no-cache")
    etag = hdr["etag"]
    st, h304, body = c.get("/", BROWSER, {"If-None-Match": etag})
    check(st == 304 and body == b"", "If-None-Match on /: %d, %d bytes" % (st, len(body)))
    check(h304.get("etag") == etag and h304.get("cache-control") == "no-cache" and
          h304.get("vary", "").lower() == "accept-encoding", "304's headers: %s" % h304)
    check(c.get("/", BROWSER, {"If-None-Match": 'W/"x", ' + etag})[0] == 304, "a list with the ETag: expected 304")
    st, _, body = c.get("/", "gzip", {"If-None-Match": etag})
    check(st == 200 and gzip.decompress(body) == index, "br's ETag with gzip accepted: %d" % st)
    check(c.get("/", BROWSER, {"If-None-Match": '"other"'})[0] == 200, "another ETag: expected 200")
    gid_etag = expect_file(c, "/flags/no.svg", flag, None, None, "no-cache")["etag"]
    check(c.get("/flags/no.svg", None, {"If-None-Match": gid_etag})[0] == 304, "flag: expected 304")

    # Client routes are the page, with the page's caching, under /assets/ too.
    for route in ("/game/7", "/overlay/round/1", "/embed/game/3", "/assets/nothing"):
        hdr = expect_file(c, route, index, BROWSER, "br", "no-cache")
        check(hdr["etag"] == etag, "%s: ETag %s, / has %s" % (route, hdr["etag"], etag))
        check(c.get(route, BROWSER, {"If-None-Match": etag})[0] == 304, "%s: expected 304" % route)
    check(c.get("/assets/nothing.js", BROWSER)[0] == 404, "a missing asset: expected 404")

    # A copy asked for by its own name is that file, not the page's bytes
    # under another coding.
    st, hdr, body = c.get(js_path + ".gz", BROWSER)
    check(st == 200 and "content-encoding" not in hdr and hdr.get("content-type") == "application/gzip" and
          gzip.decompress(body) == js, "%s.gz: %d %s" % (js_path, st, hdr))

    # Nothing acceptable: 406.
    for accept in ("*;q=0", "identity;q=0"):
        st, _, _ = c.get("/", accept)
        check(st == 406, "Accept-Encoding %r: expected 406, got %d" % (accept, st))
    check(c.get("/", "br, identity;q=0")[0] == 200, "br with identity refused: expected 200")

    # Nothing outside the web root: no path up, and no copy that is a link
    # to a file outside (even a fresh one).
    # (libwebsockets folds "..", "." and "//" first: /etc/passwd has no
    # extension, a client route, so the page.)
    for path in ("/../etc/passwd", "//etc/passwd", "/assets/../../etc/passwd", "/.hidden", "/../../etc/hosts"):
        st, hdr, body = c.get(path, BROWSER)
        check(st == 404 or (st == 200 and decoded(hdr, body) == index), "%s: %d %r" % (path, st, body[:80]))
    outside = os.path.join(os.path.dirname(root), "outside.br")
    with open(outside, "wb") as f:
        f.write(b"not the flag")
    link = os.path.join(root, "flags", "no.svg.br")
    os.rename(link, link + ".real")
    os.symlink(outside, link)
    expect_file(c, "/flags/no.svg", flag, BROWSER, "gzip", "no-cache")
    os.remove(link)
    os.rename(link + ".real", link)
    expect_file(c, "/flags/no.svg", flag, BROWSER, "br", "no-cache")

    # A copy older than its file (a build that left it) is never sent.
    page = os.path.join(root, "index.html")
    st_page, st_copy = os.stat(page), os.stat(page + ".br")
    os.utime(page, ns=(st_copy.st_atime_ns, st_copy.st_mtime_ns + 1_000_000_000))
    expect_file(c, "/", index, BROWSER, None, "no-cache")
    os.utime(page, ns=(st_page.st_atime_ns, st_page.st_mtime_ns))
    expect_file(c, "/", index, BROWSER, "br", "no-cache")
    print("ok: br, gzip and identity decode to the files; immutable /assets/, 304, routes, 406, "
          "nothing outside the root, stale copies")


def curl_h2(r, cert, path, *headers):
    """One HTTP/2 request by curl (Python has no h2 client): status line,
    headers (lower-case names, a list per name), body, seconds taken."""
    out = subprocess.run(["curl", "-sS", "--http2", "--cacert", cert, "--max-time", "10", "-D", "-",
                          "-o", "/dev/stderr", "-w", "%{http_version} %{time_total}"] +
                         [a for h in headers for a in ("-H", h)] +
                         ["https://127.0.0.1:%d%s" % (r.port, path)], capture_output=True, timeout=30)
    check(out.returncode == 0, "curl --http2 %s: %s" % (path, out.stderr[-300:]))
    text = out.stdout.decode()
    head, _, tail = text.rpartition("\r\n\r\n")
    version, took = tail.split()
    check(version == "2", "%s: HTTP version %s, expected 2" % (path, version))
    lines = head.split("\r\n")
    hdr = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdr.setdefault(k.strip().lower(), []).append(v.strip())
    return lines[0], hdr, out.stderr, float(took)


def h2(binary, tmp, root):
    """Over TLS the browser speaks HTTP/2: the headers go HPACK-encoded. One
    Cache-Control (libwebsockets adds its own `no-store` when it does not see
    ours), and a 304 ends its stream at once."""
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cfg = os.path.join(tmp, "tournament.json")
    with open(cfg, "w") as f:
        json.dump({"event": "h2", "tls": {"cert": "cert.pem", "key": "key.pem"},
                   "feeds": [sample_feed("p01.feed")]}, f)
    r = Relay(binary, ["serve", "--config", cfg, "--state", os.path.join(tmp, "state")], ca=cert)
    try:
        index = open(os.path.join(root, "index.html"), "rb").read()
        status, hdr, body, _ = curl_h2(r, cert, "/", "Accept-Encoding: br")
        check(status.startswith("HTTP/2 200"), "h2 /: %s" % status)
        check(hdr.get("cache-control") == ["no-cache"], "h2 /: Cache-Control %s" % hdr.get("cache-control"))
        check(hdr.get("content-encoding") == ["br"] and unbrotli(body) == index, "h2 /: not the br copy")
        status, hdr304, body, took = curl_h2(r, cert, "/", "Accept-Encoding: br", "If-None-Match: " + hdr["etag"][0])
        check(status.startswith("HTTP/2 304") and body == b"", "h2 If-None-Match: %s" % status)
        check(took < 2, "h2 304 took %.1f s: its stream did not end" % took)
        check(hdr304.get("cache-control") == ["no-cache"], "h2 304: Cache-Control %s" % hdr304.get("cache-control"))
        flag = open(os.path.join(root, "flags", "no.svg"), "rb").read()
        status, hdr, body, _ = curl_h2(r, cert, "/flags/no.svg", "Accept-Encoding: gzip")
        check(hdr.get("cache-control") == ["no-cache"] and gzip.decompress(body) == flag, "h2 flag: %s" % hdr)
    finally:
        r.stop()
    print("ok: HTTP/2: one Cache-Control, 304 ends its stream")


if __name__ == "__main__":
    main(sys.argv[1])
