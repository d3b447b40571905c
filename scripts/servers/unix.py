#!/usr/bin/env python3
"""An HTTP/1.1 server on a Unix domain socket, for the tests of `http+unix://` URLs: the same
handler also listens on a free 127.0.0.1 port (announced as usual), so that a test can redirect
from the socket to the network and back.

    unix.py --socket PATH [--name NAME] [--lifetime SECONDS]

Routes (on both listeners):
- anything else: like httpbin's /anything, JSON with the request line and headers, plus
  "server" (--name), "listener" ("unix" or "tcp"), "connection" (a number per accepted connection,
  counted from 1 across both listeners) and "requestOnConnection" (1 for a connection's first).
- `/redirect-to?url=U&status_code=N`: a redirect to U (302 unless N).
- `/delay/S`: the /anything answer after S seconds.
- `/stats`: {"unix": N, "tcp": M}, the connections each listener accepted so far.

Keep-alive is on (HTTP/1.1). It removes the socket file when it starts (a stale one) and stops by
itself after --lifetime seconds.
"""
import json
import os
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from common import lifetime_parser, limit_lifetime

connections = 0
# Connections accepted per listener ("unix", "tcp").
accepted = {"unix": 0, "tcp": 0}
lock = threading.Lock()
name = "unix"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        global connections
        super().setup()
        with lock:
            connections += 1
            self.connection_number = connections
            accepted["unix" if isinstance(self.server, UnixServer) else "tcp"] += 1
        self.requests_on_connection = 0

    def log_message(self, *args):
        pass

    def address_string(self):
        return "unix"

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        self.requests_on_connection += 1
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path == "/stats":
            with lock:
                counts = dict(accepted)
            return self.answer(200, json.dumps(counts).encode(), [("Content-Type", "application/json")])
        if parts.path == "/redirect-to":
            status = int(query.get("status_code", ["302"])[0])
            return self.answer(status, b"", [("Location", query["url"][0])])
        if parts.path.startswith("/delay/"):
            time.sleep(float(parts.path.split("/")[2]))
        listener = "unix" if isinstance(self.server, UnixServer) else "tcp"
        echo = {
            "method": self.command,
            "path": parts.path,
            "query": parts.query,
            "headers": {key: value for key, value in self.headers.items()},
            "bodyLength": len(body),
            "server": name,
            "listener": listener,
            "connection": self.connection_number,
            "requestOnConnection": self.requests_on_connection,
        }
        self.answer(200, json.dumps(echo).encode(), [("Content-Type", "application/json")])

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        request, _ = super().get_request()
        # BaseHTTPRequestHandler wants a client address; a Unix peer has none.
        return request, ("unix", 0)


def main():
    global name
    parser = lifetime_parser(__doc__)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--name", default="unix")
    arguments = parser.parse_args()
    name = arguments.name
    limit_lifetime(arguments.lifetime)
    if os.path.exists(arguments.socket):
        os.unlink(arguments.socket)
    unix = UnixServer(arguments.socket, Handler)
    threading.Thread(target=unix.serve_forever, daemon=True).start()
    tcp = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tcp.daemon_threads = True
    print(f"Listening at: http://127.0.0.1:{tcp.server_address[1]} and unix:{arguments.socket}", flush=True)
    tcp.serve_forever()


if __name__ == "__main__":
    main()
