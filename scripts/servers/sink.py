#!/usr/bin/env python3
"""An upload sink for Courier's tests: counts the body bytes of every request and answers
{"bytes": N, "content_length": "...", "content_type": "...", "chunked": bool, "sha256": "hex"}.

Reads Content-Length and chunked bodies in 1 MiB pieces without keeping them. A request with an
`X-Probe: ID` header is also remembered, complete or not (a client that cuts its body short gets no
answer, but the sink saw it): `GET /report/ID` answers {"bytes": N, "complete": bool, "chunked": bool}
for it, 404 until that request has ended. Listens on
127.0.0.1 on a free port, prints "Listening at: http://127.0.0.1:PORT", and exits by itself after
--lifetime seconds (default 1800)."""
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler

from common import lifetime_parser, serve

CHUNK = 1 << 20
REPORTS = {}
REPORTS_LOCK = threading.Lock()


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _count_body(self, digest):
        """(bytes read, whether the body arrived whole)."""
        total = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                line = self.rfile.readline()
                if not line:
                    return total, False
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while True:
                        trailer = self.rfile.readline()
                        if trailer in (b"\r\n", b"\n"):
                            return total, True
                        if trailer == b"":
                            return total, False
                remaining = size
                while remaining:
                    piece = self.rfile.read(min(CHUNK, remaining))
                    if not piece:
                        return total, False
                    digest.update(piece)
                    total += len(piece)
                    remaining -= len(piece)
                self.rfile.readline()
        remaining = int(self.headers.get("Content-Length", "0"))
        while remaining:
            piece = self.rfile.read(min(CHUNK, remaining))
            if not piece:
                return total, False
            digest.update(piece)
            total += len(piece)
            remaining -= len(piece)
        return total, True

    def _report(self):
        with REPORTS_LOCK:
            report = REPORTS.get(self.path[len("/report/"):])
        body = json.dumps(report).encode() if report is not None else b"{}"
        self.send_response(200 if report is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self):
        if self.path.startswith("/report/"):
            return self._report()
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        digest = hashlib.sha256()
        chunked = self.headers.get("Transfer-Encoding", "").lower() == "chunked"
        try:
            count, complete = self._count_body(digest)
        except (OSError, ValueError):
            count, complete = -1, False
        probe = self.headers.get("X-Probe")
        if probe:
            with REPORTS_LOCK:
                REPORTS[probe] = {"bytes": count, "complete": complete, "chunked": chunked}
        if not complete:
            self.close_connection = True
            return
        body = json.dumps({
            "bytes": count,
            "content_length": self.headers.get("Content-Length"),
            "content_type": self.headers.get("Content-Type"),
            "chunked": chunked,
            "sha256": digest.hexdigest(),
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_PUT = do_GET = _answer


def main():
    serve(Sink, lifetime_parser("Courier's upload sink").parse_args().lifetime)


if __name__ == "__main__":
    main()
