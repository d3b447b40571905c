#!/usr/bin/env python3
"""An HTTPS server on a free 127.0.0.1 port, for the TLS rows of the transport tests.

    tls.py --cert cert.pem --key key.pem [--client-ca ca.pem] [--tls-version 1.2|1.3]
           [--lifetime SECONDS]

GET /status/N answers status N with a JSON body and an `X-Origin: tls` header (what a proxy must
not hide); GET /headers echoes the request's headers as JSON ({"headers": {name: value}}), so a test
can see what reached the origin; GET /peer answers {"port": P, "client": CN}: the client's port (a
new one means a new connection) and the common name of its certificate, if it showed one; every
other GET answers 200 with the body "secure". GET or POST /challenge (its body read) answers
`407 Proxy Authentication Required` with `Proxy-Authenticate: Basic` (an origin posing as a proxy);
GET /challenges answers {"posts": N}, how many requests /challenge got, so a test can tell one was
sent twice.
The tests generate the certificates and start this
server themselves; it stops by itself after --lifetime seconds.

With --client-ca, mutual TLS: a client must show a certificate signed by that CA, or the handshake
fails (with TLS 1.3 the refusal reaches the client as an alert after the handshake). With
--tls-version, that version only.
"""
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import lifetime_parser, limit_lifetime


challenged_posts = 0
challenge_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.challenge()

    def challenge(self):
        global challenged_posts
        with challenge_lock:
            challenged_posts += 1
        body = b"the origin wants proxy credentials"
        self.send_response(407)
        self.send_header("Proxy-Authenticate", 'Basic realm="origin"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        status, content_type, body = 200, "text/plain", b"secure"
        if self.path == "/challenge":
            return self.challenge()
        if self.path == "/headers":
            content_type = "application/json"
            body = json.dumps({"headers": {name: value for name, value in self.headers.items()}}).encode()
        elif self.path == "/challenges":
            content_type = "application/json"
            with challenge_lock:
                body = json.dumps({"posts": challenged_posts}).encode()
        elif self.path == "/peer":
            content_type = "application/json"
            certificate = self.connection.getpeercert() or {}
            names = [value for field in certificate.get("subject", ()) for key, value in field if key == "commonName"]
            body = json.dumps({"port": self.client_address[1], "client": names[0] if names else None}).encode()
        elif self.path.startswith("/status/") and self.path[8:].isdigit():
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
    parser.add_argument("--client-ca", help="require a client certificate signed by this CA (PEM)")
    parser.add_argument("--tls-version", choices=["1.2", "1.3"], help="speak this TLS version only")
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.cert, arguments.key)
    if arguments.client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(arguments.client_ca)
    if arguments.tls_version:
        version = ssl.TLSVersion.TLSv1_2 if arguments.tls_version == "1.2" else ssl.TLSVersion.TLSv1_3
        context.minimum_version = context.maximum_version = version
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # The handshake happens in each request's own thread, so a refused one never blocks the others.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(f"Listening at: https://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
