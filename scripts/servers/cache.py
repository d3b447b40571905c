#!/usr/bin/env python3
"""An HTTP cache test server for Courier's end-to-end cache tests (RFC 9111, RFC 5861).

Every resource is named by the last path segment, so each test uses its own names:
  GET  /etag/NAME       ETag "vN" (N: the resource's revision), Cache-Control from ?cc= (no-cache);
                        a matching If-None-Match gets a 304 carrying Cache-Control: max-age=60,
                        X-Revalidated: yes, a Set-Cookie, and Connection: X-Hop with X-Hop.
  GET  /lastmod/NAME    Last-Modified of the revision, Cache-Control: no-cache; a matching
                        If-Modified-Since gets a 304.
  GET  /swr/NAME        "vK" (K: requests so far), Cache-Control from ?cc= (max-age=1,
                        stale-while-revalidate=60), ETag "vK"; always a new 200 (the content moves on);
                        ?age=N gives the first one an Age of N.
  POST /etag/NAME, /lastmod/NAME   a new revision; answers 204 (an unsafe method: caches forget).
  GET  /count/NAME      {"requests": R, "conditional": C} for that name.
  GET, POST /encoding/NAME   a body with Content-Encoding: x-courier-unknown, sent as is.
  GET /corrupt-gzip/NAME     Content-Encoding: gzip over a body that is not gzip.
Listens on 127.0.0.1 on a free port, prints "Listening at: http://127.0.0.1:PORT", and exits by
itself after --lifetime seconds (default 1800), on SIGTERM, or when its parent ends."""
import json
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from common import lifetime_parser, serve

_lock = threading.Lock()
_revisions = {}
_counts = {}

# A fixed past instant per revision, so Last-Modified stays the same until a POST.
_EPOCH = 1_600_000_000


def _count(name, conditional):
    with _lock:
        entry = _counts.setdefault(name, {"requests": 0, "conditional": 0})
        entry["requests"] += 1
        if conditional:
            entry["conditional"] += 1
        return entry["requests"]


class CacheServer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _send(self, status, headers, body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def _unknown_encoding(self):
        """A body in a coding nobody knows; /count/NAME counts the requests for /encoding/NAME."""
        _count(urlsplit(self.path).path.rsplit("/", 1)[-1], False)
        body = b"\x00\x01not-any-known-coding\xff"
        self._send(200, [("Content-Type", "application/octet-stream"),
                         ("Content-Encoding", "x-courier-unknown")], body)

    def _corrupt_gzip(self):
        """Content-Encoding: gzip over a body that is not gzip; /count/NAME counts the requests."""
        _count(urlsplit(self.path).path.rsplit("/", 1)[-1], False)
        self._send(200, [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                   b'{"plain":"not gzip"}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        if length:
            self.rfile.read(length)
        if urlsplit(self.path).path.startswith("/encoding/"):
            return self._unknown_encoding()
        name = urlsplit(self.path).path.rsplit("/", 1)[-1]
        with _lock:
            _revisions[name] = _revisions.get(name, 1) + 1
        self._send(204, [])

    def do_GET(self):
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        query = parse_qs(url.query)
        kind, name = (parts[0], parts[-1]) if len(parts) >= 2 else (parts[0], "")
        with _lock:
            revision = _revisions.get(name, 1)
        text = [("Content-Type", "text/plain; charset=utf-8")]
        if kind == "count":
            with _lock:
                counts = dict(_counts.get(name, {"requests": 0, "conditional": 0}))
            return self._send(200, [("Content-Type", "application/json")], json.dumps(counts).encode())
        if kind == "encoding":
            return self._unknown_encoding()
        if kind == "corrupt-gzip":
            return self._corrupt_gzip()
        if kind == "etag":
            tag = f'"v{revision}"'
            conditional = self.headers.get("If-None-Match") is not None
            _count(name, conditional)
            if self.headers.get("If-None-Match") == tag:
                return self._send(304, [("ETag", tag), ("Cache-Control", "max-age=60"),
                                        ("X-Revalidated", "yes"), ("Set-Cookie", "session=SENTINEL-304"),
                                        ("Connection", "X-Hop"), ("X-Hop", "SENTINEL-hop")])
            control = query.get("cc", ["no-cache"])[0]
            return self._send(200, text + [("ETag", tag), ("Cache-Control", control)], f"rev {revision}".encode())
        if kind == "lastmod":
            stamp = formatdate(_EPOCH + revision * 3600, usegmt=True)
            conditional = self.headers.get("If-Modified-Since") is not None
            _count(name, conditional)
            if self.headers.get("If-Modified-Since") == stamp:
                return self._send(304, [("Last-Modified", stamp), ("Cache-Control", "no-cache")])
            return self._send(200, text + [("Last-Modified", stamp), ("Cache-Control", "no-cache")],
                              f"rev {revision}".encode())
        if kind == "swr":
            conditional = self.headers.get("If-None-Match") is not None
            number = _count(name, conditional)
            control = query.get("cc", ["max-age=1, stale-while-revalidate=60"])[0]
            # ?age=N: the first response arrives N seconds old (stale on arrival, no clock to move).
            aged = [("Age", query["age"][0])] if number == 1 and "age" in query else []
            return self._send(200, text + aged + [("ETag", f'"v{number}"'), ("Cache-Control", control)],
                              f"v{number}".encode())
        self._send(404, text, b"no such route")


def main():
    serve(CacheServer, lifetime_parser("Courier's HTTP cache test server").parse_args().lifetime)


if __name__ == "__main__":
    main()
