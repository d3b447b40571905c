#!/usr/bin/env python3
"""An HTTPS server on a free 127.0.0.1 port, for the TLS rows of the transport tests.

    tls.py --cert cert.pem --key key.pem [--lifetime SECONDS]

GET /status/N answers status N with a JSON body and an `X-Origin: tls` header (what a proxy must
not hide); every other GET answers 200 with the body "secure". The tests generate the certificate (self-signed,
for IP 127.0.0.1) and start this server themselves; it stops by itself after --lifetime seconds.
"""
import json
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import lifetime_parser, limit_lifetime


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        status, content_type, body = 200, "text/plain", b"secure"
        if self.path.startswith("/status/") and self.path[8:].isdigit():
            status, content_type = int(self.path[8:]), "application/json"
            body = json.dumps({"message": f"origin status {status}"}).encode()
        self.send_response(status)
        self.send_header("X-Origin", "tls")
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def main():
    parser = lifetime_parser("An HTTPS server for the TLS tests.")
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.cert, arguments.key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # The handshake happens in each request's own thread, so a refused one never blocks the others.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(f"Listening at: https://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
