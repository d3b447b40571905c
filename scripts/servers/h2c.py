#!/usr/bin/env python3
"""A cleartext HTTP/2 server that speaks HTTP/2 with prior knowledge only (h2c, RFC 9113 §3.3), on
a free 127.0.0.1 port, for the transport tests of `httpVersion: .http2PriorKnowledge`.

    h2c.py [--lifetime SECONDS]

Written by hand, with no HTTP/2 library: it answers every request (each HEADERS block, whatever
its path) with 200 and the JSON body {"protocol": "HTTP/2", "connection": C, "stream": S}: which
connection (numbered from 1 as they are accepted) and stream carried it. A client that starts with
anything but the HTTP/2 connection preface (an HTTP/1.1 request) gets `HTTP/1.1 505` and a closed
connection, so a response from this server proves HTTP/2 was spoken. It stops by itself after
--lifetime seconds.
"""
import json
import socket
import threading

from common import lifetime_parser, limit_lifetime

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING, GOAWAY, CONTINUATION = 0x0, 0x1, 0x4, 0x6, 0x7, 0x9
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4

connections = 0
lock = threading.Lock()


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        piece = connection.recv(count - len(data))
        if not piece:
            return None
        data += piece
    return data


def literal(index, value):
    """An HPACK literal header field without indexing, its name from the static table (index > 15)."""
    value = value.encode()
    return bytes([0x0F, index - 15, len(value)]) + value


def respond(connection, number, stream):
    body = json.dumps({"protocol": "HTTP/2", "connection": number, "stream": stream}).encode()
    # 0x88: `:status: 200` from HPACK's static table; 31 content-type; 28 content-length.
    block = b"\x88" + literal(31, "application/json") + literal(28, str(len(body)))
    connection.sendall(frame(HEADERS, END_HEADERS, stream, block) + frame(DATA, END_STREAM, stream, body))


def handle(connection):
    global connections
    connection.settimeout(120)
    try:
        if read_exactly(connection, len(PREFACE)) != PREFACE:
            connection.sendall(
                b"HTTP/1.1 505 HTTP Version Not Supported\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        with lock:
            connections += 1
            number = connections
        connection.sendall(frame(SETTINGS, 0, 0))
        while True:
            header = read_exactly(connection, 9)
            if header is None:
                return
            length, kind, flags = int.from_bytes(header[:3], "big"), header[3], header[4]
            stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
            payload = read_exactly(connection, length) if length else b""
            if payload is None:
                return
            if kind == SETTINGS and not flags & ACK:
                connection.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                connection.sendall(frame(PING, ACK, 0, payload))
            elif kind in (HEADERS, CONTINUATION) and flags & END_HEADERS:
                respond(connection, number, stream)
            elif kind == GOAWAY:
                return
    except OSError:
        pass
    finally:
        connection.close()


def main():
    parser = lifetime_parser("A cleartext HTTP/2 (prior knowledge) server.")
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"Listening at: http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=handle, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
