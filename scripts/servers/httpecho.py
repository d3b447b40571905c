#!/usr/bin/env python3
"""An HTTP/1.1 echo server on asyncio, the same event loop the WebSocket server (websocket.py) runs
on, for courier-bench's WebSocket rows: the same exchange as HTTP requests on a kept-alive
connection. `POST /echo` answers 200 with the request's body (Content-Length framing only);
connections stay open for as many requests as the client sends.

Listens on a free 127.0.0.1 port, prints "Listening at: http://127.0.0.1:PORT", and exits by itself
after --lifetime seconds (default 1800), on SIGTERM, or when the process that started it ends."""
import asyncio

from common import lifetime_parser, limit_lifetime


async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b""
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n" % len(body)
                + body
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 16)
    print(f"Listening at: http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    arguments = lifetime_parser(__doc__).parse_args()
    limit_lifetime(arguments.lifetime)
    asyncio.run(main())
