#!/usr/bin/env python3
"""A conformant WebSocket server for Courier's integration tests and benchmark, built on the
`websockets` package (pinned in scripts/requirements-test.txt; run it with the test virtualenv's
Python: "$venv/bin/python"; under another Python it re-runs itself with $COURIER_TEST_VENV's or
the repository's .build/test-venv when it finds one).

    websocket.py [--cert cert.pem --key key.pem] [--lifetime SECONDS]

Listens on a free 127.0.0.1 port and prints "Listening at: http://127.0.0.1:PORT" (with --cert and
--key: TLS, "Listening at: https://127.0.0.1:PORT"); clients connect to ws:// (wss://) on that port.
Ends by itself after --lifetime seconds, on SIGTERM or SIGINT, and when its parent ends. The server
sends no keepalive pings of its own and accepts messages up to 128 MiB. Routes (by path; an unknown
path answers 404 with a JSON body):

  /echo                  echoes every message, text as text and binary as binary; accepts
                         permessage-deflate when offered (websockets' defaults: it asks for
                         server_max_window_bits=12, and client_max_window_bits=12 when offered)
  /echo-plain            the same, refusing permessage-deflate (no extension in the 101)
  /echo-no-takeover      the same, with permessage-deflate and server_no_context_takeover and
                         client_no_context_takeover in the 101 (asked for even when not offered)
  /echo-small-window     the same, with permessage-deflate and server_max_window_bits=9 (and
                         client_max_window_bits=9 when the client offered that parameter)
  /subprotocol           selects the first of `chat` and `superchat` the client offers (in the
                         client's order; none when it offers neither), sends the selected one as a
                         first text message ("" for none), then echoes
  /close?code=C&reason=R closes at once with that code (default 1000) and reason (default "")
  /ping?count=N          sends N (default 3) pings with payloads "ping-1" … "ping-N", one at a time,
                         each waiting for its pong (60 s at most), then sends the text
                         {"pongs": ["ping-1", …]} (the payloads whose pongs came back), then echoes
  /fragmented?size=N&fragment=F&type=binary|text&ping=1
                         sends one message of N bytes (default 65536) in fragments of F bytes
                         (default 4096); text is UTF-8 with 2-byte characters cut across fragment
                         boundaries (valid as a whole); with ping=1, a ping "between" goes between
                         the first and the second fragment. The last fragment is an empty
                         continuation with FIN set (websockets streams fragments: it cannot know
                         which one is the last); then echoes
  /large?size=N&type=binary|text
                         sends one message of N bytes (default 1 MiB) in one frame, then echoes.
                         Binary bytes are i % 251; text is "abcdefghij" repeated
  /auth                  401 with {"error": "invalid_token", "message": …} (application/json) and
                         `WWW-Authenticate: Bearer` unless `Authorization: Bearer good`; then echoes
  /cookie                sets `ws-session=from-101; Path=/` in the 101, sends the Cookie header it
                         received as its first text message ("" when there was none), then echoes
  /flood?key=K&count=N   sends 64 KiB binary messages, uncompressed (permessage-deflate refused; the
                         first 8 bytes: the sequence number, big endian, then random bytes) as fast as the client reads them, N of them (default: until the
                         connection ends), then closes with 1000. The socket's send buffer is small
                         (64 KiB), so a client that stops reading stops the server soon
  /flood-stats?key=K     a plain HTTP GET (no upgrade): {"sent": N, "open": bool}, how many messages
                         the /flood connection with that key has handed to the socket so far
  /silent-close          sends the text "silent", then stops reading the socket: a close frame (or a
                         ping) is never answered; the server drops the connection after 60 s
"""
import os
import sys

try:
    import websockets  # noqa: F401
except ImportError:
    _here = os.path.dirname(os.path.abspath(__file__))
    for _venv in (os.environ.get("COURIER_TEST_VENV"), os.path.join(_here, "..", "..", ".build", "test-venv")):
        _python = os.path.join(_venv, "bin", "python") if _venv else None
        # The marker stops a loop when that Python lacks the package too.
        if _python and os.path.exists(_python) and "COURIER_WEBSOCKET_REEXEC" not in os.environ:
            os.environ["COURIER_WEBSOCKET_REEXEC"] = _python
            os.execv(_python, [_python, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("websocket.py needs the websockets package: run it with the test virtualenv's python")

import asyncio
import json
import socket
import ssl
import struct
from http import HTTPStatus
from urllib.parse import parse_qs, urlparse

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Response

from common import lifetime_parser, limit_lifetime

MAX_MESSAGE = 128 << 20
FLOOD_MESSAGE = 64 << 10
flood_sent = {}
flood_open = {}

DEFAULT_DEFLATE = ServerPerMessageDeflateFactory(
    server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5})
EXTENSIONS = {
    "/echo-plain": [],
    "/echo-no-takeover": [ServerPerMessageDeflateFactory(
        server_no_context_takeover=True, client_no_context_takeover=True)],
    "/echo-small-window": [ServerPerMessageDeflateFactory(server_max_window_bits=9, client_max_window_bits=9)],
    # Compressed, a flood would be bytes the kernel never has to hold back.
    "/flood": [],
}
ROUTES = {"/echo", "/echo-plain", "/echo-no-takeover", "/echo-small-window", "/subprotocol", "/close", "/ping",
          "/fragmented", "/large", "/auth", "/cookie", "/flood", "/silent-close"}


def split(path):
    url = urlparse(path)
    return url.path, {name: values[0] for name, values in parse_qs(url.query, keep_blank_values=True).items()}


def json_response(status, payload, extra=()):
    body = json.dumps(payload).encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                       ("Connection", "close")] + list(extra))
    return Response(status.value, status.phrase, headers, body)


def process_request(connection, request):
    path, query = split(request.path)
    if path == "/flood-stats":
        key = query.get("key", "")
        return json_response(HTTPStatus.OK, {"sent": flood_sent.get(key, 0), "open": flood_open.get(key, False)})
    if path not in ROUTES:
        return json_response(HTTPStatus.NOT_FOUND, {"error": "not_found", "message": f"no route {path}"})
    if path == "/auth" and request.headers.get("Authorization") != "Bearer good":
        return json_response(
            HTTPStatus.UNAUTHORIZED, {"error": "invalid_token", "message": "the access token is missing or expired"},
            [("WWW-Authenticate", 'Bearer realm="websocket"')])
    # The extensions are negotiated after this function returns, per connection.
    connection.protocol.available_extensions = EXTENSIONS.get(path, [DEFAULT_DEFLATE])
    return None


def process_response(connection, request, response):
    if split(request.path)[0] == "/cookie" and response.status_code == 101:
        response.headers["Set-Cookie"] = "ws-session=from-101; Path=/"
    return None


def select_subprotocol(connection, offered):
    if split(connection.request.path)[0] != "/subprotocol":
        return None
    return next((name for name in offered if name in ("chat", "superchat")), None)


def pattern(size, kind):
    if kind == "text":
        return ("abcdefghij" * (size // 10 + 1))[:size]
    unit = bytes(range(251))
    return (unit * (size // 251 + 1))[:size]


def utf8_text(size):
    """`size` bytes of valid UTF-8 that mixes ASCII and 2-byte characters ("é", "ö")."""
    unit = "héllo wörld, ".encode()
    data = (unit * (size // len(unit) + 1))[:size]
    while data:
        try:
            data.decode()
            break
        except UnicodeDecodeError:
            data = data[:-1]
    return data + b"x" * (size - len(data))


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def fragmented(ws, query):
    size = int(query.get("size", 65536))
    step = max(1, int(query.get("fragment", 4096)))
    text = query.get("type") == "text"
    data = utf8_text(size) if text else pattern(size, "binary")
    pieces = [data[start:start + step] for start in range(0, len(data), step)] or [b""]

    async def fragments():
        for index, piece in enumerate(pieces):
            if index == 1 and query.get("ping") == "1":
                await ws.ping(b"between")
            yield piece

    await ws.send(fragments(), text=text)


async def ping(ws, query):
    answered = []
    for index in range(1, int(query.get("count", 3)) + 1):
        payload = f"ping-{index}"
        waiter = await ws.ping(payload)
        try:
            # Generous: on a starved test machine the client's pump may not run for seconds; a
            # pong that never comes still ends the wait (and the test fails on the report).
            await asyncio.wait_for(waiter, 60)
            answered.append(payload)
        except asyncio.TimeoutError:
            pass
    await ws.send(json.dumps({"pongs": answered}))


async def flood(ws, query):
    key = query.get("key", "")
    limit = int(query["count"]) if "count" in query else None
    sock = ws.transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 10)
    ws.transport.set_write_buffer_limits(high=FLOOD_MESSAGE, low=0)
    body = os.urandom(FLOOD_MESSAGE - 8)
    flood_sent[key] = 0
    flood_open[key] = True
    try:
        while limit is None or flood_sent[key] < limit:
            await ws.send(struct.pack("!Q", flood_sent[key]) + body)
            flood_sent[key] += 1
        await ws.close(1000, "flood done")
    finally:
        flood_open[key] = False


async def silent_close(ws):
    await ws.send("silent")
    ws.transport.pause_reading()
    await asyncio.sleep(60)
    ws.transport.abort()


async def handler(ws):
    path, query = split(ws.request.path)
    try:
        if path == "/close":
            await ws.close(int(query.get("code", 1000)), query.get("reason", ""))
            return
        if path == "/silent-close":
            await silent_close(ws)
            return
        if path == "/flood":
            await flood(ws, query)
            return
        if path == "/subprotocol":
            await ws.send(ws.subprotocol or "")
        elif path == "/cookie":
            await ws.send(ws.request.headers.get("Cookie", ""))
        elif path == "/ping":
            await ping(ws, query)
        elif path == "/fragmented":
            await fragmented(ws, query)
        elif path == "/large":
            size = int(query.get("size", 1 << 20))
            await ws.send(pattern(size, query.get("type", "binary")))
        await echo(ws)
    except ConnectionClosed:
        pass


async def main():
    parser = lifetime_parser("A WebSocket server for Courier's tests (the websockets package).")
    parser.add_argument("--cert", help="serve TLS (wss) with this certificate chain (PEM)")
    parser.add_argument("--key", help="the certificate's private key (PEM)")
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    context = None
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
    server = await serve(
        handler, "127.0.0.1", 0, ssl=context, process_request=process_request, process_response=process_response,
        select_subprotocol=select_subprotocol, ping_interval=None, max_size=MAX_MESSAGE, compression=None,
        extensions=[DEFAULT_DEFLATE], server_header="courier-test-websocket")
    port = server.sockets[0].getsockname()[1]
    print(f"Listening at: {'https' if context else 'http'}://127.0.0.1:{port}", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
