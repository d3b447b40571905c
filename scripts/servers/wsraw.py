#!/usr/bin/env python3
"""A misbehaving WebSocket server for Courier's protocol tests: a plain socket server (no WebSocket
library) that answers the opening handshake and then writes exact bytes per path, so every rule a
client must enforce (RFC 6455, RFC 7692) can be broken on a real socket, one at a time.

    wsraw.py [--lifetime SECONDS]

Listens on a free 127.0.0.1 port, prints "Listening at: http://127.0.0.1:PORT" (clients connect to
ws://127.0.0.1:PORT/PATH) and ends by itself after --lifetime seconds, on SIGTERM or SIGINT, and when
its parent ends. Server frames are unmasked unless said otherwise.

After its bytes, a path either "serves frames" or "holds". Serving frames: reads the client's frames
and answers like a minimal conformant server: an unmasked client frame gets close 1002 ("client
frames must be masked"); a ping gets a pong; a pong is reported as the text message "pong:PAYLOAD";
a close is answered with a close carrying the same payload, then the socket is closed; data
messages are echoed (reassembled, same opcode) when the path says "then echoes". Holding: reads and
discards everything until the client closes the TCP connection (120 s at most), answering nothing.

Handshake faults (the client must fail the connection, never deliver a message):
  /bad-accept              a wrong Sec-WebSocket-Accept (the SHA-1 of the key with another GUID); holds
  /missing-upgrade         a 101 without the Upgrade header; holds
  /bad-connection          a 101 with "Connection: keep-alive" (no "Upgrade" token); holds
  /unasked-subprotocol     Sec-WebSocket-Protocol: courier-unasked (a name no test offers); holds
  /unasked-extension       Sec-WebSocket-Extensions: x-courier-unasked; holds
  /unasked-deflate         Sec-WebSocket-Extensions: permessage-deflate when the client did not offer
                           it (400 when it did); then sends a compressed (RSV1) text "hello"; holds
  /status-200              200 OK with the JSON body {"message": "no upgrade here"} (not an upgrade)

Frame faults after a correct 101 (the client must close with 1002 unless said otherwise):
  /masked-frame            a masked text frame "masked"; serves frames
  /rsv1                    a text frame "hello" with RSV1 set, no extension negotiated; serves frames
  /rsv2, /rsv3             the same with RSV2 or RSV3 set
  /unknown-opcode          a frame with the reserved data opcode 0x3; serves frames
  /unknown-control-opcode  a frame with the reserved control opcode 0xB; serves frames
  /fragmented-control      a ping with FIN clear ("a"), then a continuation ("b"); serves frames
  /long-control            a ping with a 126-byte payload (control frames carry at most 125)
  /orphan-continuation     a continuation frame with no message started
  /interleaved-data        a text frame with FIN clear, then a new text frame instead of a continuation
  /invalid-utf8-fragments  a text message in two fragments, "abc\\xce" then "Abc": each fragment could
                           start or end valid UTF-8, together they are not (1007); serves frames
  /invalid-utf8-early      a text fragment "ab\\xff" with FIN clear and nothing after it: invalid at
                           once, with no need to wait for the rest (1007); serves frames
  /oversized-header        a binary frame header announcing 2^40 bytes (64-bit length), then 16
                           bytes (1009, and nothing allocated for it); serves frames
  /deflate-bomb?size=N     negotiates permessage-deflate (400 unless offered; honours
                           server_max_window_bits=B when offered), then one compressed binary
                           message of about 130 KB that inflates to N bytes of zeros (default
                           128 MiB, > 64 MiB) (1009, memory bounded); serves frames
  /close-code?code=N&reason=R  a close frame with code N (e.g. 1005, 1006, 999, 1004, 1015, 2999,
                           5000: invalid on the wire; 4000, 1000: valid) and reason R; serves frames
  /close-one-byte          a close frame whose payload is one byte (invalid)
  /close-bad-reason        a close frame with code 1000 and the reason bytes "\\xff\\xfe" (1007)

Well-behaved paths (for comparison and for edge cases that must work):
  /echo                    serves frames, then echoes
  /frame-with-101          the 101 and a text frame "first" in the same send (one TCP segment on
                           loopback): the bytes after the head are the first frame; then echoes
  /valid-utf8-fragments    a text message in two fragments, "abc\\xce" then "\\xbadef" ("abcκdef":
                           a character cut across fragments, valid); then echoes
  /control-between-fragments  text "hel" with FIN clear, a ping "p", the continuation "lo": the
                           client answers the ping (reported as "pong:p") and receives "hello"; echoes
  /no-close-reply          holds: never answers a close frame, a ping or anything else (a peer that
                           never answers a close; a dead peer for keepalive tests)

Hostile peers (found by the review of issue 27; each tries a bound):
  /interim-flood?seconds=S  "HTTP/1.1 100 Continue" heads, one after another as fast as the socket
                           takes them, for S seconds (default 20), then closes: the handshake's
                           deadline must still hold
  /chunked-refusal?n=N     a 503 whose body is N one-byte chunks (default 300000), all at once,
                           then the last chunk; then closes
  /chunk-noend?seconds=S   a 503 with a chunked body whose first chunk-size line never ends: "0"
                           after "0" as fast as the socket takes them for S seconds (default 30)
  /chunk-extensions?seconds=S  a 503 with a chunked body of one-byte chunks, each size line carrying
                           a 4,000-byte extension, as fast as the socket takes them for S seconds
                           (default 30): the body grows by a byte per 4 KB on the wire
  /ping-flood?seconds=S    a correct 101, then 125-byte pings as fast as the socket takes them for S
                           seconds (default 10), never reading: the pongs the client owes must not
                           pile up in its memory; then closes
  /slow-close?delay=D      a correct 101, then serves frames but answers a close frame only after D
                           seconds (default 1.5); pings are answered at once
  /no-read?seconds=S       a correct 101, then reads nothing for S seconds (default 60), then closes
"""
import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
import zlib
from urllib.parse import parse_qs, urlparse

from common import lifetime_parser, limit_lifetime

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
_bombs = {}
_bombs_lock = threading.Lock()


def frame(opcode, payload=b"", fin=True, rsv=0, mask=None, length=None):
    """One frame's bytes; `rsv` is a mask of 0x40 (RSV1), 0x20, 0x10; `length` overrides the
    announced payload length (the payload is still `payload`)."""
    length = len(payload) if length is None else length
    first = (0x80 if fin else 0) | rsv | opcode
    mask_bit = 0x80 if mask else 0
    if length < 126:
        head = struct.pack("!BB", first, mask_bit | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", first, mask_bit | 126, length)
    else:
        head = struct.pack("!BBQ", first, mask_bit | 127, length)
    if mask:
        payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        head += mask
    return head + payload


def close_frame(code, reason=b""):
    return frame(CLOSE, struct.pack("!H", code) + reason)


def accept_key(key, guid=GUID):
    return base64.b64encode(hashlib.sha1(key.encode() + guid).digest()).decode()


def head_bytes(lines):
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def upgrade_head(request, extra=(), accept=None, upgrade="websocket", connection="Upgrade"):
    lines = ["HTTP/1.1 101 Switching Protocols"]
    if upgrade:
        lines.append(f"Upgrade: {upgrade}")
    lines.append(f"Connection: {connection}")
    lines.append(f"Sec-WebSocket-Accept: {accept or accept_key(request['key'])}")
    return head_bytes(lines + list(extra))


def plain_response(status, payload):
    body = json.dumps(payload).encode()
    return head_bytes([f"HTTP/1.1 {status}", "Content-Type: application/json", f"Content-Length: {len(body)}",
                       "Connection: close"]) + body


def deflate_bomb(size, window_bits):
    """`size` zero bytes compressed as one permessage-deflate message (raw deflate, the final
    empty stored block's 00 00 ff ff removed), made once per size and window."""
    with _bombs_lock:
        if (size, window_bits) not in _bombs:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -max(9, window_bits))
            zeros = bytes(1 << 20)
            pieces = [compressor.compress(zeros[:min(len(zeros), size - done)]) for done in range(0, size, len(zeros))]
            data = b"".join(pieces) + compressor.flush(zlib.Z_SYNC_FLUSH)
            _bombs[(size, window_bits)] = data[:-4] if data.endswith(b"\x00\x00\xff\xff") else data
        return _bombs[(size, window_bits)]


class Peer:
    """The client's side of a connection: buffered reads and the frame reader."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def fill(self, count):
        while len(self.buffer) < count:
            piece = self.sock.recv(65536)
            if not piece:
                return False
            self.buffer += piece
        return True

    def take(self, count):
        if not self.fill(count):
            return None
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_head(self):
        while b"\r\n\r\n" not in self.buffer:
            piece = self.sock.recv(65536)
            if not piece or len(self.buffer) > 1 << 16:
                return None
            self.buffer += piece
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head

    def read_frame(self):
        """(fin, opcode, masked, payload), or None at the end of the stream."""
        start = self.take(2)
        if start is None:
            return None
        fin, opcode, masked, length = start[0] & 0x80, start[0] & 0x0F, start[1] & 0x80, start[1] & 0x7F
        if length == 126:
            length = struct.unpack("!H", self.take(2) or b"\0\0")[0]
        elif length == 127:
            length = struct.unpack("!Q", self.take(8) or bytes(8))[0]
        if length > 1 << 27:
            return None
        mask = self.take(4) if masked else None
        payload = self.take(length)
        if payload is None or (masked and mask is None):
            return None
        if mask:
            payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        return bool(fin), opcode, bool(masked), payload


def serve_frames(peer, echo):
    """Answers the client's frames as described at the top of this file, until a close or the end."""
    message, message_opcode = b"", None
    while True:
        received = peer.read_frame()
        if received is None:
            return
        fin, opcode, masked, payload = received
        if not masked:
            peer.sock.sendall(close_frame(1002, b"client frames must be masked"))
            return
        if opcode == CLOSE:
            peer.sock.sendall(frame(CLOSE, payload))
            return
        if opcode == PING:
            peer.sock.sendall(frame(PONG, payload))
        elif opcode == PONG:
            peer.sock.sendall(frame(TEXT, b"pong:" + payload))
        elif opcode in (TEXT, BINARY, CONTINUATION):
            if opcode != CONTINUATION:
                message, message_opcode = b"", opcode
            message += payload
            if fin and echo and message_opcode is not None:
                peer.sock.sendall(frame(message_opcode, message))
                message, message_opcode = b"", None


def hold(peer):
    while peer.sock.recv(65536):
        pass


def offered_deflate(request):
    return "permessage-deflate" in request["headers"].get("sec-websocket-extensions", "")


def deflate_bomb_mode(peer, request):
    if not offered_deflate(request):
        peer.sock.sendall(plain_response("400 Bad Request", {"message": "offer permessage-deflate"}))
        return
    offer = request["headers"]["sec-websocket-extensions"]
    bits = re.search(r"server_max_window_bits\s*=\s*\"?(\d+)", offer)
    window = int(bits.group(1)) if bits else 15
    parameters = f"; server_max_window_bits={window}" if bits else ""
    bomb = deflate_bomb(int(request["query"].get("size", 128 << 20)), window)
    peer.sock.sendall(upgrade_head(request, [f"Sec-WebSocket-Extensions: permessage-deflate{parameters}"]))
    peer.sock.sendall(frame(BINARY, bomb, rsv=0x40))
    serve_frames(peer, echo=False)


def unasked_deflate_mode(peer, request):
    if offered_deflate(request):
        peer.sock.sendall(plain_response("400 Bad Request", {"message": "do not offer permessage-deflate"}))
        return
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    hello = (compressor.compress(b"hello") + compressor.flush(zlib.Z_SYNC_FLUSH))[:-4]
    peer.sock.sendall(upgrade_head(request, ["Sec-WebSocket-Extensions: permessage-deflate"]) +
                      frame(TEXT, hello, rsv=0x40))
    hold(peer)


def close_code_mode(peer, request):
    code = int(request["query"].get("code", 1005))
    peer.sock.sendall(upgrade_head(request) + close_frame(code, request["query"].get("reason", "").encode()))
    serve_frames(peer, echo=False)


def flood_until(sock, seconds, data):
    """Sends `data` again and again for `seconds`; a client that stops reading ends it then too."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            sock.sendall(data)
        except socket.timeout:
            return


def interim_flood_mode(peer, request):
    flood_until(peer.sock, float(request["query"].get("seconds", 20)), b"HTTP/1.1 100 Continue\r\n\r\n" * 64)


def chunked_refusal_mode(peer, request):
    count = int(request["query"].get("n", 300000))
    head = head_bytes(["HTTP/1.1 503 Service Unavailable", "Content-Type: text/plain", "Transfer-Encoding: chunked"])
    peer.sock.sendall(head + b"1\r\na\r\n" * count + b"0\r\n\r\n")
    time.sleep(1)


def chunk_noend_mode(peer, request):
    head = head_bytes(["HTTP/1.1 503 Service Unavailable", "Transfer-Encoding: chunked"])
    peer.sock.sendall(head)
    flood_until(peer.sock, float(request["query"].get("seconds", 30)), b"0" * 65536)


def chunk_extensions_mode(peer, request):
    head = head_bytes(["HTTP/1.1 503 Service Unavailable", "Transfer-Encoding: chunked"])
    peer.sock.sendall(head)
    chunk = b"1;" + b"x" * 4000 + b"\r\na\r\n"
    flood_until(peer.sock, float(request["query"].get("seconds", 30)), chunk * 16)


def ping_flood_mode(peer, request):
    peer.sock.sendall(upgrade_head(request))
    flood_until(peer.sock, float(request["query"].get("seconds", 10)), frame(PING, b"p" * 125) * 64)


def slow_close_mode(peer, request):
    delay = float(request["query"].get("delay", 1.5))
    peer.sock.sendall(upgrade_head(request))
    while True:
        received = peer.read_frame()
        if received is None:
            return
        _, opcode, _, payload = received
        if opcode == PING:
            peer.sock.sendall(frame(PONG, payload))
        elif opcode == CLOSE:
            time.sleep(delay)
            peer.sock.sendall(frame(CLOSE, payload))
            return


def no_read_mode(peer, request):
    peer.sock.sendall(upgrade_head(request))
    time.sleep(float(request["query"].get("seconds", 60)))


HOSTILE = {
    "/interim-flood": interim_flood_mode,
    "/chunked-refusal": chunked_refusal_mode,
    "/chunk-noend": chunk_noend_mode,
    "/chunk-extensions": chunk_extensions_mode,
    "/ping-flood": ping_flood_mode,
    "/slow-close": slow_close_mode,
    "/no-read": no_read_mode,
}

# path -> (bytes after a correct 101, what then: "frames", "echo" or "hold")
AFTER_UPGRADE = {
    "/echo": (b"", "echo"),
    "/masked-frame": (frame(TEXT, b"masked", mask=b"\x37\xfa\x21\x3d"), "frames"),
    "/rsv1": (frame(TEXT, b"hello", rsv=0x40), "frames"),
    "/rsv2": (frame(TEXT, b"hello", rsv=0x20), "frames"),
    "/rsv3": (frame(TEXT, b"hello", rsv=0x10), "frames"),
    "/unknown-opcode": (frame(0x3, b"what"), "frames"),
    "/unknown-control-opcode": (frame(0xB, b"what"), "frames"),
    "/fragmented-control": (frame(PING, b"a", fin=False) + frame(CONTINUATION, b"b"), "frames"),
    "/long-control": (frame(PING, b"p" * 126), "frames"),
    "/orphan-continuation": (frame(CONTINUATION, b"lost"), "frames"),
    "/interleaved-data": (frame(TEXT, b"first", fin=False) + frame(TEXT, b"second"), "frames"),
    "/invalid-utf8-fragments": (frame(TEXT, b"abc\xce", fin=False) + frame(CONTINUATION, b"Abc"), "frames"),
    "/invalid-utf8-early": (frame(TEXT, b"ab\xff", fin=False), "frames"),
    "/oversized-header": (frame(BINARY, bytes(16), length=1 << 40), "frames"),
    "/close-one-byte": (frame(CLOSE, b"\x03"), "frames"),
    "/close-bad-reason": (close_frame(1000, b"\xff\xfe"), "frames"),
    "/frame-with-101": (frame(TEXT, b"first"), "echo"),
    "/valid-utf8-fragments": (frame(TEXT, b"abc\xce", fin=False) + frame(CONTINUATION, b"\xbadef"), "echo"),
    "/control-between-fragments": (
        frame(TEXT, b"hel", fin=False) + frame(PING, b"p") + frame(CONTINUATION, b"lo"), "echo"),
    "/no-close-reply": (b"", "hold"),
}

# path -> the 101's faulty head (from the request); then holds
BAD_HEADS = {
    "/bad-accept": lambda request: upgrade_head(request, accept=accept_key(request["key"], b"not-the-rfc-6455-guid")),
    "/missing-upgrade": lambda request: upgrade_head(request, upgrade=None),
    "/bad-connection": lambda request: upgrade_head(request, connection="keep-alive"),
    "/unasked-subprotocol": lambda request: upgrade_head(request, ["Sec-WebSocket-Protocol: courier-unasked"]),
    "/unasked-extension": lambda request: upgrade_head(request, ["Sec-WebSocket-Extensions: x-courier-unasked"]),
}


def parse_request(head):
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
    url = urlparse(parts[1] if len(parts) > 1 else "/")
    query = {name: values[0] for name, values in parse_qs(url.query, keep_blank_values=True).items()}
    return {"path": url.path, "query": query, "headers": headers, "key": headers.get("sec-websocket-key", "")}


def handle(sock):
    sock.settimeout(120)
    peer = Peer(sock)
    try:
        head = peer.read_head()
        if head is None:
            return
        request = parse_request(head)
        path = request["path"]
        if path == "/status-200":
            sock.sendall(plain_response("200 OK", {"message": "no upgrade here"}))
        elif path in BAD_HEADS:
            sock.sendall(BAD_HEADS[path](request))
            hold(peer)
        elif path == "/deflate-bomb":
            deflate_bomb_mode(peer, request)
        elif path == "/unasked-deflate":
            unasked_deflate_mode(peer, request)
        elif path == "/close-code":
            close_code_mode(peer, request)
        elif path in HOSTILE:
            HOSTILE[path](peer, request)
        elif path in AFTER_UPGRADE:
            data, then = AFTER_UPGRADE[path]
            # One sendall: the head and the first frame leave in the same segment on loopback.
            sock.sendall(upgrade_head(request) + data)
            if then == "hold":
                hold(peer)
            else:
                serve_frames(peer, echo=then == "echo")
        else:
            sock.sendall(plain_response("404 Not Found", {"message": f"no mode {path}"}))
    except (OSError, ValueError, IndexError, struct.error):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def main():
    options = lifetime_parser("Courier's misbehaving WebSocket server").parse_args()
    limit_lifetime(options.lifetime)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(256)
    # Made before the first /deflate-bomb asks for it (about 2 s of CPU).
    threading.Thread(target=deflate_bomb, args=(128 << 20, 15), daemon=True).start()
    print(f"Listening at: http://127.0.0.1:{server.getsockname()[1]}", flush=True)
    while True:
        sock, _ = server.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=handle, args=(sock,), daemon=True).start()


if __name__ == "__main__":
    main()
