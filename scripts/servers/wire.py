#!/usr/bin/env python3
"""A keep-alive HTTP/1.1 server that records what reaches the wire, for Courier's framing tests.

Every connection is read as a sequence of requests (Content-Length or chunked bodies), and every
request on it is recorded under the key of the connection's first request (its query's key=K):
method, target, announced Content-Length, body bytes received, whether the body was complete.
Bytes that follow a request on the same connection are read as the next request, so a body sent
past its Content-Length shows up as a second request, as it would on a real keep-alive server.

Listens on a free 127.0.0.1 port, prints "Listening at: http://127.0.0.1:PORT", and exits by
itself after --lifetime seconds. Paths:

  /upload?key=K&pace=S   reads the body 64 KiB at a time, sleeping S seconds between pieces
                         (a slow reader), then answers {"bytes": N} and keeps the connection;
                         with &hold=1 it stops after the first piece until /release?key=K (at
                         most 30 s), so a test can change the file while the body is under way;
                         with &reset=1, unless it is the connection's first request, reads the
                         body and resets the connection unanswered (a keep-alive connection the
                         server dropped under a request: the client must send it again, whole)
  /length?value=V        200 with the header "Content-Length: V" exactly as given (one line per
                         value=, in order, when there are several), 5 body bytes,
                         then closes (what a client does with an impossible length)
  /release?key=K         lets K's held upload go on; 204
  /swap?key=K&from=F&into=I  reads the body, renames the file F over I (a body file replaced between
                         two hops), and answers 307 to /upload?key=K
  /record?key=K          waits until K's connections are closed or quiet for 0.5 s (at most
                         5 s), then answers {"requests": [...], "connections": N, "open": N,
                         "bytes": total bytes received on them}
  anything else          404, on the same connection
"""
import json
import os
import socket
import struct
import threading
import time
from urllib.parse import parse_qs, urlparse

from common import lifetime_parser, limit_lifetime

PIECE = 64 * 1024
records = {}
records_lock = threading.Lock()
releases = {}


def release_for(key):
    with records_lock:
        return releases.setdefault(key, threading.Event())


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.received = 0
        self.last_activity = time.monotonic()
        self.closed = False
        self.key = None

    def recv(self, limit=PIECE):
        piece = self.sock.recv(limit)
        self.received += len(piece)
        self.last_activity = time.monotonic()
        return piece

    def fill(self, count):
        while len(self.buffer) < count:
            piece = self.recv()
            if not piece:
                return False
            self.buffer += piece
        return True

    def read_line(self):
        while b"\r\n" not in self.buffer:
            piece = self.recv()
            if not piece:
                return None
            self.buffer += piece
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def read_head(self):
        while b"\r\n\r\n" not in self.buffer:
            piece = self.recv()
            if not piece or len(self.buffer) > 1 << 20:
                return None
            self.buffer += piece
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head


def record_for(key):
    with records_lock:
        return records.setdefault(key, {"requests": [], "connections": []})


def read_body(connection, headers, pace, entry, hold=None):
    """Reads the body as framed; updates entry's body_bytes as pieces arrive; after the first piece,
    waits for `hold` (an Event) when there is one."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            line = connection.read_line()
            if line is None:
                return False
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:
                    trailer = connection.read_line()
                    if trailer is None:
                        return False
                    if trailer == b"":
                        return True
            if not connection.fill(size + 2):
                entry["body_bytes"] += len(connection.buffer)
                return False
            entry["body_bytes"] += size
            connection.buffer = connection.buffer[size + 2:]
    remaining = int(headers.get("content-length", "0") or 0)
    while remaining > 0:
        if not connection.buffer:
            if pace:
                time.sleep(pace)
            piece = connection.recv(min(PIECE, remaining))
            if not piece:
                return False
            connection.buffer = piece
        taken = connection.buffer[:remaining]
        connection.buffer = connection.buffer[len(taken):]
        remaining -= len(taken)
        entry["body_bytes"] += len(taken)
        if hold is not None:
            hold.wait(30)
            hold = None
    return True


def answer(connection, status, body, headers=()):
    lines = [f"HTTP/1.1 {status}"] + [f"{name}: {value}" for name, value in headers]
    lines.append(f"Content-Length: {len(body)}")
    connection.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)


def serve_record(connection, query):
    record = record_for(query.get("key", ""))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with records_lock:
            busy = [c for c in record["connections"] if not c.closed and time.monotonic() - c.last_activity < 0.5]
        if not busy:
            break
        time.sleep(0.05)
    with records_lock:
        body = json.dumps({
            "requests": record["requests"],
            "connections": len(record["connections"]),
            "open": sum(1 for c in record["connections"] if not c.closed),
            "bytes": sum(c.received for c in record["connections"]),
        }).encode()
    answer(connection, "200 OK", body, [("Content-Type", "application/json")])


def handle(sock):
    sock.settimeout(60)
    connection = Connection(sock)
    count = 0
    try:
        while True:
            head = connection.read_head()
            if head is None:
                return
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            method, target = parts[0], parts[1] if len(parts) > 1 else ""
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            url = urlparse(target)
            query = {name: values[0] for name, values in parse_qs(url.query).items()}
            count += 1
            if url.path == "/record":
                serve_record(connection, query)
                continue
            if url.path == "/release":
                release_for(query.get("key", "")).set()
                answer(connection, "204 No Content", b"")
                continue
            if url.path == "/length":
                values = parse_qs(url.query, keep_blank_values=True).get("value", ["0"])
                lines = "".join(f"Content-Length: {value}\r\n" for value in values)
                connection.sock.sendall(f"HTTP/1.1 200 OK\r\n{lines}Connection: close\r\n\r\nhello".encode())
                return
            if connection.key is None:
                connection.key = query.get("key", "")
                with records_lock:
                    records.setdefault(connection.key, {"requests": [], "connections": []})
                    records[connection.key]["connections"].append(connection)
            entry = {
                "method": method, "target": target, "content_length": headers.get("content-length"),
                "transfer_encoding": headers.get("transfer-encoding"), "content_type": headers.get("content-type"),
                "expect": headers.get("expect"), "body_bytes": 0, "complete": False,
            }
            with records_lock:
                records[connection.key]["requests"].append(entry)
            pace = float(query.get("pace", "0")) if url.path == "/upload" else 0
            hold = release_for(connection.key) if url.path == "/upload" and query.get("hold") == "1" else None
            entry["complete"] = read_body(connection, headers, pace, entry, hold)
            if not entry["complete"]:
                return
            if url.path == "/swap":
                os.replace(query["from"], query["into"])
                answer(connection, "307 Temporary Redirect", b"", [("Location", f"/upload?key={connection.key}")])
                continue
            if url.path == "/upload" and query.get("reset") == "1" and count > 1:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if url.path == "/upload":
                answer(connection, "200 OK", json.dumps({"bytes": entry["body_bytes"]}).encode(),
                       [("Content-Type", "application/json")])
            else:
                answer(connection, "404 Not Found", b'{"message": "no such path"}',
                       [("Content-Type", "application/json")])
    except (OSError, ValueError, IndexError):
        pass
    finally:
        connection.closed = True
        try:
            sock.close()
        except OSError:
            pass


def main():
    options = lifetime_parser("Courier's wire-recording server").parse_args()
    limit_lifetime(options.lifetime)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A small receive buffer: a slow reader then slows the sender down at once, instead of
    # letting megabytes wait in the kernel.
    server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    server.bind(("127.0.0.1", 0))
    server.listen(256)
    print(f"Listening at: http://127.0.0.1:{server.getsockname()[1]}", flush=True)
    while True:
        sock, _ = server.accept()
        threading.Thread(target=handle, args=(sock,), daemon=True).start()


if __name__ == "__main__":
    main()
