#!/usr/bin/env python3
"""Checks websocket.py and wsraw.py by hand with the `websockets` client library (an outside
client: if it and the servers agree, a Courier test that disagrees has found a Courier bug).

    "$venv/bin/python" scripts/servers/websocket_check.py WS_URL WSRAW_URL [WSS_URL CA_FILE]

Prints one line per route (ok or FAIL and what was seen) and exits 1 when any check failed. Not a
test of Courier: run it after changing either server.
"""
import asyncio
import json
import socket
import ssl
import sys
import time
import urllib.request

from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.frames import Opcode
from websockets.uri import parse_uri

failures = 0


def report(name, passed, seen):
    global failures
    failures += 0 if passed else 1
    print(f"{'ok  ' if passed else 'FAIL'} {name}: {seen}")


def raw_frames(url, count, timeout=5):
    """The first `count` frames the server sends (fragments as they are), through websockets'
    sans-I/O client over a plain socket, offering no extension."""
    uri = parse_uri(url)
    protocol = ClientProtocol(uri)
    sock = socket.create_connection((uri.host, uri.port), timeout=timeout)
    protocol.send_request(protocol.connect())
    sock.sendall(b"".join(protocol.data_to_send()))
    frames = []
    while len(frames) < count:
        data = sock.recv(65536)
        if not data:
            break
        protocol.receive_data(data)
        frames += [event for event in protocol.events_received() if hasattr(event, "opcode")]
        sock.sendall(b"".join(protocol.data_to_send()))
    sock.close()
    return frames


async def check_conformant(url, ssl_context=None):
    options = {"ssl": ssl_context} if ssl_context else {}
    async with connect(url + "/echo", **options) as ws:
        await ws.send("hello")
        text = await ws.recv()
        await ws.send(b"\x00\xff")
        binary = await ws.recv()
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
    report("/echo", text == "hello" and binary == b"\x00\xff" and "permessage-deflate" in extensions,
           f"{text!r} {binary!r} extensions={extensions}")
    if ssl_context:
        return
    async with connect(url + "/echo-plain") as ws:
        await ws.send("x" * 10000)
        echoed = await ws.recv()
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
    report("/echo-plain", echoed == "x" * 10000 and extensions is None, f"extensions={extensions}")
    for path in ("/echo-no-takeover", "/echo-small-window"):
        async with connect(url + path) as ws:
            for _ in range(3):
                await ws.send("abc" * 5000)
                echoed = await ws.recv()
            extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
        report(path, echoed == "abc" * 5000, f"extensions={extensions}")
    async with connect(url + "/subprotocol", subprotocols=["other", "superchat", "chat"]) as ws:
        first = await ws.recv()
        report("/subprotocol", ws.subprotocol == "superchat" == first, f"selected {ws.subprotocol}, said {first!r}")
    async with connect(url + "/close?code=4000&reason=bye") as ws:
        try:
            await ws.recv()
        except ConnectionClosed:
            pass
        report("/close", (ws.close_code, ws.close_reason) == (4000, "bye"), f"{ws.close_code} {ws.close_reason!r}")
    async with connect(url + "/ping?count=2") as ws:
        said = json.loads(await ws.recv())
        report("/ping", said == {"pongs": ["ping-1", "ping-2"]}, said)
    frames = raw_frames(url + "/fragmented?size=1000&fragment=300&type=text&ping=1", 6)
    shape = [(frame.opcode.name, frame.fin, len(frame.data)) for frame in frames]
    text = b"".join(frame.data for frame in frames if frame.opcode != Opcode.PING)
    report("/fragmented", shape == [("TEXT", False, 300), ("PING", True, 7), ("CONT", False, 300),
                                    ("CONT", False, 300), ("CONT", False, 100), ("CONT", True, 0)]
           and len(text.decode()) == 1000 - text.decode().count("é") - text.decode().count("ö"), shape)
    async with connect(url + "/large?size=5000000", max_size=None) as ws:
        large = await ws.recv()
        report("/large", len(large) == 5000000 and large[:3] == b"\x00\x01\x02", f"{len(large)} bytes")
    try:
        async with connect(url + "/auth"):
            report("/auth", False, "connected without a token")
    except InvalidStatus as error:
        response = error.response
        report("/auth (no token)", response.status_code == 401 and b"invalid_token" in response.body,
               f"{response.status_code} {bytes(response.body)!r}")
    async with connect(url + "/auth", additional_headers={"Authorization": "Bearer good"}) as ws:
        await ws.send("in")
        report("/auth (good token)", await ws.recv() == "in", "echoed")
    async with connect(url + "/cookie", additional_headers={"Cookie": "a=1; b=2"}) as ws:
        first = await ws.recv()
        set_cookie = ws.response.headers.get("Set-Cookie")
        report("/cookie", first == "a=1; b=2" and set_cookie == "ws-session=from-101; Path=/",
               f"{first!r}, Set-Cookie {set_cookie!r}")
    stats = url.replace("ws://", "http://") + "/flood-stats?key=check"
    async with connect(url + "/flood?key=check", max_queue=1, max_size=None) as ws:
        await asyncio.sleep(1.5)
        held = json.loads(urllib.request.urlopen(stats).read())["sent"]
        for _ in range(50):
            await ws.recv()
        await asyncio.sleep(0.5)
        later = json.loads(urllib.request.urlopen(stats).read())["sent"]
        report("/flood", held < 100 and later > held + 40, f"{held} sent while not reading, {later} after 50 reads")
    start = time.monotonic()
    async with connect(url + "/silent-close", close_timeout=1) as ws:
        said = await ws.recv()
    elapsed = time.monotonic() - start
    report("/silent-close", said == "silent" and ws.close_code == 1006 and elapsed >= 1,
           f"close {ws.close_code} after {elapsed:.1f} s (the client's close timeout)")


async def expect_failure(url, path, expected, **options):
    """Connects to a wsraw path; `expected` is an exception class (a handshake refused) or a close
    code the websockets client must send."""
    try:
        async with connect(url + path, open_timeout=5, close_timeout=2, **options) as ws:
            while True:
                await asyncio.wait_for(ws.recv(), 5)
    except InvalidHandshake as error:
        report(path, isinstance(expected, type) and isinstance(error, expected), f"{type(error).__name__}: {error}")
    except ConnectionClosed as error:
        code = error.sent.code if error.sent else None
        report(path, code == expected, f"client sent {code}: {error}")
    except asyncio.TimeoutError:
        report(path, False, "no failure within 5 s")


async def check_raw(url):
    from websockets.exceptions import InvalidHeaderValue, InvalidUpgrade, NegotiationError
    for path, expected in [
        ("/bad-accept", InvalidHeaderValue), ("/missing-upgrade", InvalidUpgrade),
        ("/bad-connection", InvalidUpgrade), ("/unasked-subprotocol", NegotiationError),
        ("/unasked-extension", NegotiationError), ("/status-200", InvalidStatus),
        ("/masked-frame", 1002), ("/rsv1", 1002), ("/rsv2", 1002), ("/rsv3", 1002),
        ("/unknown-opcode", 1002), ("/unknown-control-opcode", 1002), ("/fragmented-control", 1002),
        ("/long-control", 1002), ("/orphan-continuation", 1002), ("/interleaved-data", 1002),
        ("/invalid-utf8-fragments", 1007), ("/oversized-header", 1009),
        ("/deflate-bomb", 1009), ("/close-code?code=1005", 1002), ("/close-code?code=1006", 1002),
        ("/close-code?code=999", 1002), ("/close-one-byte", 1002), ("/close-bad-reason", 1007),
    ]:
        await expect_failure(url, path, expected)
    await expect_failure(url, "/unasked-deflate", NegotiationError, compression=None)
    # websockets checks a text message's UTF-8 only once it is whole (failing fast is a MAY in RFC
    # 6455 §8.1): look at the bytes instead.
    frames = raw_frames(url + "/invalid-utf8-early", 1)
    shape = [(frame.opcode.name, frame.fin, bytes(frame.data)) for frame in frames]
    report("/invalid-utf8-early", shape == [("TEXT", False, b"ab\xff")], shape)
    for path, first in [("/frame-with-101", "first"), ("/valid-utf8-fragments", "abcκdef"),
                        ("/control-between-fragments", "hello")]:
        async with connect(url + path) as ws:
            received = await ws.recv()
            if path == "/control-between-fragments":
                received += " " + await ws.recv()
                first += " pong:p"
            await ws.send("again")
            echoed = await ws.recv()
        report(path, received == first and echoed == "again", f"{received!r}, then {echoed!r}")
    async with connect(url + "/close-code?code=4000&reason=fine") as ws:
        try:
            await ws.recv()
        except ConnectionClosed:
            pass
        report("/close-code?code=4000", ws.close_code == 4000, f"{ws.close_code} {ws.close_reason!r}")
    start = time.monotonic()
    async with connect(url + "/no-close-reply", close_timeout=1, ping_interval=None) as ws:
        pass
    elapsed = time.monotonic() - start
    report("/no-close-reply", ws.close_code == 1006 and elapsed >= 1, f"close {ws.close_code} after {elapsed:.1f} s")


async def main():
    await check_conformant(sys.argv[1])
    await check_raw(sys.argv[2])
    if len(sys.argv) == 5:
        context = ssl.create_default_context(cafile=sys.argv[4])
        await check_conformant(sys.argv[3], context)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    asyncio.run(main())
