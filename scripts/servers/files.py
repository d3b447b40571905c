#!/usr/bin/env python3
"""A file server for Courier's download tests: large bodies generated on the fly, Range support,
connections cut part way, a server that ignores Range, a gzip bomb, and suggested file names.

  (HEAD works on /bytes and /flaky: the same headers, no body, not counted.)
  GET /bytes/N                 N bytes (byte i is i % 251), ETag, Range and If-Range honoured
  GET /flaky/N?key=K&cut=M     the first request for K sends M of N bytes and drops the connection;
                               later ones behave like /bytes/N (with &norange=1 they ignore Range)
  GET /trickle/N?key=K&step=S&pace=P  honours Range, but sends only S bytes (1 by default) of each answer,
                               P seconds after the request (none by default), and drops the connection:
                               a download resumed forever unless bounded
  GET /requests?key=K          {"count": n, "ranges": [...]}: what the flaky path saw for K
  GET /chunked/N?pace=S&key=K  N bytes chunked, no Content-Length (a size the client learns only at the end),
                               S seconds before each 1 MiB piece (none by default); /requests?key=K
                               then says how many bytes went out ("sent")
  GET /gzip-bomb               Content-Encoding: gzip; 256 MiB of zeros in about 256 KB
  GET /named?filename=F        a small body with Content-Disposition: attachment; filename="F"
  GET /static/NAME             the file NAME of the --static folder (for courier-bench --quick)
  GET /peer                    {"port": P}: the client's port, which names the connection (keep-alive)

Listens on 127.0.0.1 on a free port, prints "Listening at: http://127.0.0.1:PORT", and exits by
itself after --lifetime seconds (default 1800)."""
import json
import os
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

from common import gzip_bomb, lifetime_parser, serve

PERIOD = 251
BLOCK = bytes(i % PERIOD for i in range(PERIOD * 4178 + PERIOD))  # ~1 MiB, plus one period to slice from
STATIC = None
seen = {}
seen_lock = threading.Lock()


class Files(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _json(self, value, status=200):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _write_pattern(self, start, end):
        offset = start
        while offset < end:
            phase = offset % PERIOD
            length = min(end - offset, len(BLOCK) - PERIOD)
            self.wfile.write(BLOCK[phase:phase + length])
            offset += length

    def _serve_bytes(self, size, honour_range=True, cut=None):
        etag = f'"bytes-{size}"'
        start, end, status = 0, size, 200
        requested = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", requested or "")
        if honour_range and match and (if_range is None or if_range == etag):
            start = int(match.group(1))
            if match.group(2):
                end = min(size, int(match.group(2)) + 1)
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes" if honour_range else "none")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut is not None:
            self._write_pattern(start, min(end, start + cut))
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self._write_pattern(start, end)

    def do_GET(self):
        url = urlparse(self.path)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        parts = url.path.strip("/").split("/")
        if parts == ["peer"]:
            return self._json({"port": self.client_address[1]})
        if parts[0] == "bytes" and len(parts) == 2:
            return self._serve_bytes(int(parts[1]))
        if parts[0] == "flaky" and len(parts) == 2 and self.command == "HEAD":
            return self._serve_bytes(int(parts[1]), honour_range=query.get("norange") != "1")
        if parts[0] == "flaky" and len(parts) == 2:
            key = query.get("key", "")
            with seen_lock:
                record = seen.setdefault(key, {"count": 0, "ranges": []})
                record["count"] += 1
                record["ranges"].append(self.headers.get("Range"))
                first = record["count"] == 1
            cut = int(query.get("cut", "0")) if first else None
            return self._serve_bytes(int(parts[1]), honour_range=query.get("norange") != "1", cut=cut)
        if parts[0] == "trickle" and len(parts) == 2:
            key = query.get("key", "")
            if self.command != "HEAD":
                with seen_lock:
                    record = seen.setdefault(key, {"count": 0, "ranges": []})
                    record["count"] += 1
            time.sleep(float(query.get("pace", "0")))
            return self._serve_bytes(int(parts[1]), cut=int(query.get("step", "1")))
        if parts[0] == "requests":
            with seen_lock:
                return self._json(seen.get(query.get("key", ""), {"count": 0, "ranges": []}))
        if parts[0] == "chunked" and len(parts) == 2:
            size = int(parts[1])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if self.command == "HEAD":
                return
            sent = 0
            pace = float(query.get("pace", "0"))
            try:
                while sent < size:
                    if pace:
                        time.sleep(pace)
                    piece = BLOCK[: min(1 << 20, size - sent)]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    sent += len(piece)
                    if "key" in query:
                        with seen_lock:
                            seen.setdefault(query["key"], {"count": 0, "ranges": []})["sent"] = sent
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            return
        if parts[0] == "gzip-bomb":
            body = gzip_bomb()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        if parts[0] == "static" and len(parts) == 2 and STATIC and "/" not in parts[1] and not parts[1].startswith("."):
            path = os.path.join(STATIC, parts[1])
            if os.path.isfile(path):
                with open(path, "rb") as handle:
                    body = handle.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json" if path.endswith(".json") else "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                return
        if parts[0] == "named":
            body = b"named file\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Disposition", f'attachment; filename="{query.get("filename", "")}"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        self._json({"error": "no such path"}, status=404)

    do_HEAD = do_GET


def main():
    parser = lifetime_parser("Courier's file server for download tests")
    parser.add_argument("--static", default=None)
    options = parser.parse_args()
    global STATIC
    STATIC = options.static
    serve(Files, options.lifetime)


if __name__ == "__main__":
    main()
