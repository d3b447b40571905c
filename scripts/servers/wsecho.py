#!/usr/bin/env python3
"""A WebSocket server (the `websockets` package) on a free 127.0.0.1 port, for the transports'
WebSocket channel tests.

    wsecho.py [--tls CERT KEY] [--lifetime SECONDS]

Announces `Listening at: http://127.0.0.1:PORT` (https with --tls; connect with ws:// or wss://).
permessage-deflate is agreed when the client offers it. It sends no keepalive pings of its own (the
package's default is one every 20 s, which a test waiting on a silent connection would read when a
loaded machine stretches it past 20 s). Paths:
- any path not below: echoes every message back as it came (text as text, binary as binary);
- /first-frame: the 101 head and a first text frame "first" leave in one write (one packet), then echo;
- /unauthorized: refuses the handshake with `401` and the body "token expired";
- /silent: accepts the connection and never answers the handshake;
- /flood: sends 64 KiB binary messages as fast as the client takes them, forever;
- /bye: closes at once with 1000 "bye" (then TCP, once the client's close frame came back);
- /flooded: a plain GET answering how many bytes /flood connections have sent so far (text).

Needs `websockets`: when the interpreter running it has none, it runs itself again with the test
virtualenv's (`$COURIER_TEST_VENV`, else the repository's `.build/test-venv`).
"""
import os
import sys

try:
    import websockets  # noqa: F401
except ImportError:
    if sys.prefix == sys.base_prefix:
        repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        for venv in (os.environ.get("COURIER_TEST_VENV"), ".build/test-venv"):
            if not venv:
                continue
            python = os.path.join(venv if os.path.isabs(venv) else os.path.join(repository, venv), "bin", "python")
            if os.path.exists(python):
                os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    raise

import asyncio
import http
import ssl

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

from common import lifetime_parser, limit_lifetime

flooded_bytes = 0


def first_frame():
    """An unmasked text frame holding "first"."""
    payload = b"first"
    return bytes([0x81, len(payload)]) + payload


async def process_request(connection, request):
    if request.path == "/unauthorized":
        return connection.respond(http.HTTPStatus.UNAUTHORIZED, "token expired")
    if request.path == "/silent":
        await asyncio.sleep(3600)
    if request.path == "/flooded":
        return connection.respond(http.HTTPStatus.OK, str(flooded_bytes))
    return None


def process_response(connection, request, response):
    if request.path == "/first-frame" and response.status_code == 101:
        # Response.serialize() writes the head and the body in one piece: the frame rides along.
        return Response(response.status_code, response.reason_phrase, Headers(response.headers), first_frame())
    return None


async def handler(connection):
    global flooded_bytes
    if connection.request.path == "/flood":
        chunk = bytes(1 << 16)
        while True:
            await connection.send(chunk)
            flooded_bytes += len(chunk)
    if connection.request.path == "/bye":
        await connection.close(1000, "bye")
        return
    async for message in connection:
        await connection.send(message)


async def main(arguments):
    context = None
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.tls[0], arguments.tls[1])
    async with serve(
        handler,
        "127.0.0.1",
        0,
        ssl=context,
        process_request=process_request,
        process_response=process_response,
        max_size=16 << 20,
        ping_interval=None,
        # Small buffers: a client that stops reading holds the server up soon.
        write_limit=1 << 16,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        scheme = "https" if context else "http"
        print(f"Listening at: {scheme}://127.0.0.1:{port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    parser = lifetime_parser("A WebSocket echo server for the transport tests.")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    arguments = parser.parse_args()
    limit_lifetime(arguments.lifetime)
    asyncio.run(main(arguments))
