#!/usr/bin/env python3
"""An upload sink for Courier's tests: counts the body bytes of every request and answers
{"bytes": N, "content_length": "...", "content_type": "..."}.

Reads Content-Length and chunked bodies in 1 MiB pieces without keeping them. Listens on
127.0.0.1 on a free port, prints "Listening at: http://127.0.0.1:PORT", and exits by itself after
--lifetime seconds (default 1800)."""
import json
from http.server import BaseHTTPRequestHandler

from common import lifetime_parser, serve

CHUNK = 1 << 20


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _count_body(self):
        total = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return total
                remaining = size
                while remaining:
                    piece = self.rfile.read(min(CHUNK, remaining))
                    if not piece:
                        return total
                    total += len(piece)
                    remaining -= len(piece)
                self.rfile.readline()
        remaining = int(self.headers.get("Content-Length", "0"))
        while remaining:
            piece = self.rfile.read(min(CHUNK, remaining))
            if not piece:
                break
            total += len(piece)
            remaining -= len(piece)
        return total

    def _answer(self):
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        count = self._count_body()
        body = json.dumps({
            "bytes": count,
            "content_length": self.headers.get("Content-Length"),
            "content_type": self.headers.get("Content-Type"),
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
