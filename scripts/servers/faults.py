#!/usr/bin/env python3
"""A fault-injecting HTTP server for Courier's reliability tests: a plain socket server that writes
exact bytes per path, so every way a server can go wrong can be tried, byte by byte.

Listens on two ports of 127.0.0.1 (the second for cross-port redirects), prints
"Listening at: http://127.0.0.1:PORT", serves GET /ports as {"ports": [A, B]}, and exits by itself
after --lifetime seconds. Every request whose query has key=K is counted: GET /count?key=K reads
the count. Paths:

  /ok                 200 with a small JSON body
  /echo               200, the raw request head as the body (what was or was not sent)
  /close-next         200 "first", keeps the connection, resets it on the next request unanswered
  /status/N           status N with a JSON message (?pad=S: padded with S bytes of "x")
  /reset-mid-body     Content-Length 1000, 100 bytes, then a TCP reset
  /short-body         Content-Length 1000, 100 bytes, then close
  /bad-chunk          chunked, with a chunk size that is not hexadecimal
  /no-final-chunk     chunked, one chunk, then close without the final chunk
  /close-empty        close without sending a byte
  /garbage-status     a status line that is not HTTP
  /huge-header        one 300 KB header
  /many-headers       20,000 headers
  /double-length      two different Content-Length headers
  /extra-bytes        Content-Length 5, then more bytes than that
  /bad-gzip           Content-Encoding: gzip with a body that is not gzip
  /gzip-bomb          Content-Encoding: gzip, 256 MiB of zeros in about 256 KB
  /gzip-error?bomb=1  500 with a gzip-encoded JSON message (with bomb=1: the 256 MiB bomb instead)
  /encoded?coding=C   200 with Content-Encoding: C (whatever was asked for) and a few bytes
  /endless            a chunked body that never ends
  /no-response        reads the request, never answers
  /stall              headers (Content-Length 100), then nothing (for ?seconds=N, 30 by default)
  /drip               20 bytes, one every 0.3 s
  /redirect-loop      302 to itself
  /cross-port         302 to /echo on the second port
  /file-location      302 to file:///etc/passwd
  /sink               counts the request body: {"bytes": N}
  /cacheable          200, fresh for a minute, varying on Cookie and Authorization
  /auth/PATH          401 unless "Authorization: Bearer fresh", then PATH as above (a stream, an upload,
                      an event source behind a token that has to be refreshed first)
  /huge-error         500 with a 50 MiB HTML body (an error page no client should read whole)
  /linked-page        200 [1], with Link: rel="next" to /echo on the second port (same host)
  /multipart          parses a multipart/form-data body with Python's email parser (which reads
                      backslash escapes in quoted strings): [{"name", "filename", "content"}]
  /sse/…, /cookies/…  Server-Sent Events and cookies: see sessions.py
"""
import email.policy
import gzip
import json
import socket
import struct
import threading
import time
from email.parser import BytesParser
from urllib.parse import parse_qs, urlparse

import sessions
from common import gzip_bomb, lifetime_parser, limit_lifetime
counts = {}
counts_lock = threading.Lock()
ports = []


def read_head(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        piece = connection.recv(65536)
        if not piece:
            return None, b""
        data += piece
        if len(data) > 1 << 20:
            return None, b""
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def response(status, body=b"", headers=(), reason="OK"):
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    if not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in headers):
        lines.append(f"Content-Length: {len(body)}")
    if not any(name.lower() == "connection" for name, _ in headers):
        # One request per connection (see handle): say so, or a client may reuse a closing connection.
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def parse_multipart(content_type, body):
    """The parts of a multipart/form-data body as Python's email package reads them."""
    message = BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + body)
    parts = []
    for part in message.iter_parts():
        parts.append({
            "name": part.get_param("name", header="content-disposition"),
            "filename": part.get_param("filename", header="content-disposition"),
            "content": part.get_payload(decode=True).decode("utf-8", "replace"),
        })
    return parts


def handle(connection, port):
    connection.settimeout(60)
    try:
        head, rest = read_head(connection)
        if head is None:
            return
        request_line = head.split(b"\r\n")[0].decode("latin-1")
        method, target = request_line.split(" ")[0], request_line.split(" ")[1]
        headers = {}
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        url = urlparse(target)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        if "key" in query and url.path != "/count":
            with counts_lock:
                counts[query["key"]] = counts.get(query["key"], 0) + 1
        body_length = int(headers.get("content-length", "0") or 0)
        received = len(rest)
        kept = [rest] if url.path == "/multipart" else None
        while received < body_length:
            piece = connection.recv(min(1 << 20, body_length - received))
            if not piece:
                break
            received += len(piece)
            if kept is not None and received <= 1 << 20:
                kept.append(piece)
        if kept is not None:
            parts = parse_multipart(headers.get("content-type", ""), b"".join(kept))
            connection.sendall(response(200, json.dumps(parts).encode(), [("Content-Type", "application/json")]))
            return
        if url.path == "/close-next":
            # Keep the connection open, then reset it when the next request arrives, unanswered:
            # what a server closing an idle keep-alive connection does when a request crosses the close.
            connection.sendall(response(200, b"first", [("Content-Type", "text/plain"), ("Connection", "keep-alive")]))
            connection.recv(1, socket.MSG_PEEK)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        serve(connection, url.path, query, head, received, port)
    except (OSError, ValueError, IndexError):
        pass
    finally:
        try:
            connection.close()
        except OSError:
            pass


def serve(connection, path, query, head, received, port):
    send = connection.sendall
    if path.startswith("/auth/"):
        if sessions.header(head, "authorization") != "Bearer fresh":
            send(response(401, b'{"message": "token expired"}', [("Content-Type", "application/json")],
                          reason="Unauthorized"))
            return
        path = path[len("/auth"):]
    if sessions.serve(connection, path, query, head, port, ports, response):
        return
    if path == "/ports":
        send(response(200, json.dumps({"ports": ports}).encode(), [("Content-Type", "application/json")]))
    elif path == "/ok":
        send(response(200, b'{"ok": true}', [("Content-Type", "application/json")]))
    elif path == "/echo":
        send(response(200, head, [("Content-Type", "text/plain")]))
    elif path == "/huge-error":
        size = 50 << 20
        send(response(500, b"", [("Content-Type", "text/html"), ("Content-Length", str(size))], reason="Error"))
        chunk = b"<p>error</p>" * 8192
        sent = 0
        while sent < size:
            piece = chunk[: size - sent]
            send(piece)
            sent += len(piece)
    elif path == "/linked-page":
        other = ports[1] if port == ports[0] else ports[0]
        key = query.get("key", "")
        link = f'<http://127.0.0.1:{other}/echo?key={key}>; rel="next"'
        send(response(200, b"[1]", [("Content-Type", "application/json"), ("Link", link)]))
    elif path == "/cacheable":
        send(response(200, b'{"ok": true}', [("Content-Type", "application/json"), ("Cache-Control", "max-age=60"),
                                             ("Vary", "Cookie, Authorization")]))
    elif path == "/count":
        with counts_lock:
            value = counts.get(query.get("key", ""), 0)
        send(response(200, json.dumps({"count": value}).encode(), [("Content-Type", "application/json")]))
    elif path.startswith("/status/"):
        code = int(path.split("/")[2])
        message = {"message": f"status {code}"}
        if "pad" in query:
            message["pad"] = "x" * int(query["pad"])
        send(response(code, json.dumps(message).encode(), [("Content-Type", "application/json")], reason="Status"))
    elif path == "/sink":
        send(response(200, json.dumps({"bytes": received}).encode(), [("Content-Type", "application/json")]))
    elif path == "/reset-mid-body":
        send(response(200, b"x" * 100, [("Content-Length", "1000")]))
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    elif path == "/short-body":
        send(response(200, b"x" * 100, [("Content-Length", "1000")]))
        connection.shutdown(socket.SHUT_WR)
    elif path == "/bad-chunk":
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
    elif path == "/no-final-chunk":
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        connection.shutdown(socket.SHUT_WR)
    elif path == "/close-empty":
        connection.shutdown(socket.SHUT_RDWR)
    elif path == "/garbage-status":
        send(b"FOO 200 BAR\r\nContent-Length: 2\r\n\r\nhi")
    elif path == "/huge-header":
        send(response(200, b"ok", [("X-Huge", "a" * 300_000)]))
    elif path == "/many-headers":
        send(response(200, b"ok", [(f"X-H{i}", "v") for i in range(20_000)]))
    elif path == "/double-length":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!")
    elif path == "/extra-bytes":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhelloEXTRA-BYTES")
    elif path == "/bad-gzip":
        send(response(200, b"this is not gzip at all", [("Content-Encoding", "gzip")]))
    elif path == "/gzip-bomb":
        send(response(200, gzip_bomb(), [("Content-Encoding", "gzip"), ("Content-Type", "application/octet-stream")]))
    elif path == "/gzip-error":
        body = gzip_bomb() if query.get("bomb") == "1" else gzip.compress(b'{"message": "gzipped error"}')
        send(response(500, body, [("Content-Encoding", "gzip"), ("Content-Type", "application/json")]))
    elif path == "/encoded":
        send(response(200, b"not really compressed", [("Content-Encoding", query.get("coding", "br"))]))
    elif path == "/endless":
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n" % 65536 + b"e" * 65536 + b"\r\n"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            send(chunk)
    elif path == "/no-response":
        connection.settimeout(60)
        try:
            connection.recv(1)
        except OSError:
            pass
    elif path == "/stall":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        time.sleep(min(float(query.get("seconds", "30")), 300))
    elif path == "/drip":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n")
        for _ in range(20):
            time.sleep(0.3)
            send(b"d")
    elif path == "/redirect-loop":
        send(response(302, b"", [("Location", "/redirect-loop")], reason="Found"))
    elif path == "/cross-port":
        other = ports[1] if port == ports[0] else ports[0]
        send(response(302, b"", [("Location", f"http://127.0.0.1:{other}/echo")], reason="Found"))
    elif path == "/file-location":
        send(response(302, b"", [("Location", "file:///etc/passwd")], reason="Found"))
    else:
        send(response(404, b'{"message": "no such fault"}', [("Content-Type", "application/json")], reason="Not Found"))


def listen():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(4096)
    return server


def accept_loop(server):
    port = server.getsockname()[1]
    while True:
        connection, _ = server.accept()
        threading.Thread(target=handle, args=(connection, port), daemon=True).start()


def main():
    options = lifetime_parser("Courier's fault-injecting server").parse_args()
    limit_lifetime(options.lifetime)
    servers = [listen(), listen()]
    ports.extend(server.getsockname()[1] for server in servers)
    for server in servers:
        threading.Thread(target=accept_loop, args=(server,), daemon=True).start()
    print(f"Listening at: http://127.0.0.1:{ports[0]}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
