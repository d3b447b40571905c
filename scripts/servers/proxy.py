#!/usr/bin/env python3
"""An HTTP proxy on a free 127.0.0.1 port that tunnels HTTPS with CONNECT, for the proxy rows of the
transport tests (a corporate proxy, as a user behind one meets it).

    proxy.py [--credentials USER:PASSWORD] [--tls CERT KEY] [--lifetime SECONDS]

`CONNECT host:port` to a 127.0.0.1 or localhost port answers `HTTP/1.1 200 Connection established`
with a proxy header of its own, then relays bytes both ways until either side closes. A plain-HTTP
request in absolute form (`GET http://127.0.0.1:PORT/path`) is forwarded to that loopback origin in
origin form, with `Proxy-Authorization` and `Proxy-Connection` removed (a proxy consumes them,
RFC 9110 §11.7.1) and `Connection: close`, and its answer relayed. Any other host is refused with
403: the proxy never reaches past loopback.

With --tls, an HTTPS proxy: clients speak TLS to the proxy itself (the certificate is CERT), and
CONNECT tunnels run inside that TLS.

With --credentials, a proxy that wants a user name and password, as corporate proxies do: a CONNECT
or an absolute-form request without `Proxy-Authorization: Basic base64(USER:PASSWORD)` is answered
`407 Proxy Authentication Required` with `Proxy-Authenticate: Basic realm="courier-test-proxy"`,
before anything else is looked at.

`GET /tunnels` (sent to the proxy as an origin, never refused) answers
{"tunnels": N, "refused": M, "forwarded": F}: the tunnels opened so far, so a test can tell a
reused tunnel from a new one, the requests answered 407, so a test can count how often a client
came back, and the plain-HTTP requests forwarded. It stops by itself after
--lifetime seconds.
"""
import base64
import json
import select
import socket
import ssl
import threading
from urllib.parse import urlsplit

from common import lifetime_parser, limit_lifetime

tunnels = 0
refused = 0
forwarded = 0
tunnels_lock = threading.Lock()
# The `Proxy-Authorization` value a request must carry, or None when the proxy wants none.
expected_authorization = None


def read_head(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        piece = connection.recv(65536)
        if not piece or len(data) > 65536:
            return None, b""
        data += piece
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def relay(client, upstream):
    sockets = [client, upstream]
    while True:
        # A TLS socket may hold decrypted bytes that select() cannot see.
        readable = [source for source in sockets if isinstance(source, ssl.SSLSocket) and source.pending()]
        if not readable:
            readable, _, _ = select.select(sockets, [], [], 120)
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (upstream if source is client else client).sendall(data)


def answer(connection, status, reason, body=b""):
    connection.sendall(
        f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def authorized(head):
    if expected_authorization is None:
        return True
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"proxy-authorization" and value.strip() == expected_authorization:
            return True
    return False


def refuse_unauthorized(connection):
    global refused
    with tunnels_lock:
        refused += 1
    body = b"proxy authentication required"
    connection.sendall(
        b"HTTP/1.1 407 Proxy Authentication Required\r\n"
        b"Proxy-Authenticate: Basic realm=\"courier-test-proxy\"\r\n"
        b"Content-Type: text/plain\r\n"
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def forward(connection, head, rest, method, target):
    """Forwards a plain-HTTP request in absolute form to its loopback origin, as proxies do."""
    global forwarded
    url = urlsplit(target)
    if url.hostname not in ("127.0.0.1", "localhost") or url.port is None:
        answer(connection, 403, "Forbidden")
        return
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    lines = [f"{method} {path} HTTP/1.1".encode()]
    for line in head.split(b"\r\n")[1:]:
        name = line.partition(b":")[0].strip().lower()
        if name not in (b"proxy-authorization", b"proxy-connection", b"connection"):
            lines.append(line)
    lines.append(b"Connection: close")
    upstream = socket.create_connection(("127.0.0.1", url.port), timeout=10)
    with tunnels_lock:
        forwarded += 1
    try:
        upstream.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + rest)
        relay(connection, upstream)
    finally:
        upstream.close()


def handle(connection):
    global tunnels
    connection.settimeout(120)
    try:
        head, rest = read_head(connection)
        if head is None:
            return
        method, target = head.split(b"\r\n")[0].decode("latin-1").split(" ")[:2]
        if method == "GET" and target == "/tunnels":
            with tunnels_lock:
                counts = {"tunnels": tunnels, "refused": refused, "forwarded": forwarded}
            answer(connection, 200, "OK", json.dumps(counts).encode())
            return
        if not authorized(head):
            refuse_unauthorized(connection)
            return
        if method != "CONNECT" and target.startswith("http://"):
            forward(connection, head, rest, method, target)
            return
        host, _, port = target.rpartition(":")
        if method != "CONNECT" or host not in ("127.0.0.1", "localhost") or not port.isdigit():
            answer(connection, 403, "Forbidden")
            return
        upstream = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        with tunnels_lock:
            tunnels += 1
        # A head of the proxy's own, with headers and a length, as real proxies send.
        connection.sendall(
            b"HTTP/1.1 200 Connection established\r\nProxy-Agent: courier-test-proxy\r\n"
            b"Content-Length: 0\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        try:
            relay(connection, upstream)
        finally:
            upstream.close()
    except (OSError, ValueError):
        pass
    finally:
        connection.close()


def main():
    global expected_authorization
    parser = lifetime_parser("A CONNECT proxy for the proxy tests.")
    parser.add_argument("--credentials", help="USER:PASSWORD the proxy wants (407 without them)")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="speak TLS to clients (an HTTPS proxy)")
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    context = None
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*arguments.tls)
    if arguments.credentials is not None:
        expected_authorization = b"Basic " + base64.b64encode(arguments.credentials.encode())
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    scheme = "https" if context else "http"
    print(f"Listening at: {scheme}://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, context), daemon=True).start()


def serve(connection, context):
    """Runs the handshake (an HTTPS proxy) in the connection's own thread, then handles it."""
    if context is not None:
        try:
            connection.settimeout(30)
            connection = context.wrap_socket(connection, server_side=True)
        except (OSError, ValueError):
            connection.close()
            return
    handle(connection)


if __name__ == "__main__":
    main()
