#!/usr/bin/env python3
"""A SOCKS5 proxy (RFC 1928) on a free 127.0.0.1 port, for the SOCKS rows of the transport tests.

    socks.py [--credentials USER:PASSWORD] [--lifetime SECONDS]

It serves CONNECT only, and only to loopback: an IPv4 request must name 127.0.0.1, and a host name
(what `socks5h://` clients send, leaving resolution to the proxy) is "resolved" to 127.0.0.1
whatever it is, so a test can use a name no DNS knows and prove the proxy, not the client,
resolved it. Anything else is refused (reply 0x02, not allowed by ruleset).

With --credentials, user name and password authentication (RFC 1929) is required: a client that
offers no such method gets 0xFF (no acceptable method), one with other credentials gets status 1
and a closed connection.

A plain HTTP request sent to the proxy itself (`GET /connections`) answers
{"connections": N, "names": [...], "refused": M}: the tunnels opened, the host names clients sent
(empty for clients that resolved names themselves) and the authentications refused. It stops by
itself after --lifetime seconds.
"""
import json
import select
import socket
import struct
import threading

from common import lifetime_parser, limit_lifetime

state = {"connections": 0, "names": [], "refused": 0}
lock = threading.Lock()
credentials = None


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        piece = connection.recv(count - len(data))
        if not piece:
            raise OSError("closed")
        data += piece
    return data


def relay(client, upstream):
    sockets = [client, upstream]
    while True:
        readable, _, _ = select.select(sockets, [], [], 120)
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (upstream if source is client else client).sendall(data)


def answer_counts(connection, first):
    data = first
    while b"\r\n\r\n" not in data and len(data) < 65536:
        piece = connection.recv(65536)
        if not piece:
            break
        data += piece
    with lock:
        body = json.dumps(state).encode()
    connection.sendall(
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        f"Connection: close\r\n\r\n".encode() + body)


def authenticate(connection, methods):
    if credentials is None:
        connection.sendall(b"\x05\x00")
        return True
    if 2 not in methods:
        connection.sendall(b"\x05\xff")
        with lock:
            state["refused"] += 1
        return False
    connection.sendall(b"\x05\x02")
    version, length = read_exactly(connection, 2)
    user = read_exactly(connection, length)
    password = read_exactly(connection, read_exactly(connection, 1)[0])
    if version != 1 or (user, password) != credentials:
        connection.sendall(b"\x01\x01")
        with lock:
            state["refused"] += 1
        return False
    connection.sendall(b"\x01\x00")
    return True


def reply(connection, code):
    connection.sendall(b"\x05" + bytes([code]) + b"\x00\x01" + socket.inet_aton("127.0.0.1") + b"\x00\x00")


def handle(connection):
    connection.settimeout(120)
    try:
        first = connection.recv(1)
        if first != b"\x05":
            if first:
                answer_counts(connection, first)
            return
        methods = read_exactly(connection, read_exactly(connection, 1)[0])
        if not authenticate(connection, methods):
            return
        _, command, _, kind = read_exactly(connection, 4)
        if kind == 1:
            address, name = socket.inet_ntoa(read_exactly(connection, 4)), None
        elif kind == 3:
            name = read_exactly(connection, read_exactly(connection, 1)[0]).decode("latin-1")
            address = "127.0.0.1"
        else:
            read_exactly(connection, 16)
            address, name = None, None
        (port,) = struct.unpack(">H", read_exactly(connection, 2))
        if command != 1 or address != "127.0.0.1":
            reply(connection, 0x02)
            return
        upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
        with lock:
            state["connections"] += 1
            if name is not None:
                state["names"].append(name)
        reply(connection, 0x00)
        try:
            relay(connection, upstream)
        finally:
            upstream.close()
    except (OSError, ValueError):
        pass
    finally:
        connection.close()


def main():
    global credentials
    parser = lifetime_parser("A SOCKS5 proxy for the proxy tests.")
    parser.add_argument("--credentials", help="USER:PASSWORD the proxy wants (RFC 1929)")
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    if arguments.credentials is not None:
        user, _, password = arguments.credentials.partition(":")
        credentials = (user.encode(), password.encode())
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
