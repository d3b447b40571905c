"""What the test servers share: the gzip bomb, and running a handler on a free 127.0.0.1 port for a
bounded time. The servers run as scripts, so this folder is on their import path."""
import argparse
import gzip
import io
import threading
from http.server import ThreadingHTTPServer

_bomb = None
_bomb_lock = threading.Lock()


def gzip_bomb():
    """256 MiB of zeros, gzip-compressed to about 256 KB; made once, on first use."""
    global _bomb
    with _bomb_lock:
        if _bomb is None:
            buffer = io.BytesIO()
            with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as archive:
                zeros = bytes(1 << 20)
                for _ in range(256):
                    archive.write(zeros)
            _bomb = buffer.getvalue()
        return _bomb


def lifetime_parser(description):
    """An argument parser with --lifetime (seconds before the server stops by itself, 1800)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--lifetime", type=float, default=1800)
    return parser


def serve(handler, lifetime):
    """Serves `handler` on a free 127.0.0.1 port, announces it, and stops after `lifetime` seconds."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"Listening at: http://127.0.0.1:{server.server_address[1]}", flush=True)
    threading.Timer(lifetime, server.shutdown).start()
    server.serve_forever()
