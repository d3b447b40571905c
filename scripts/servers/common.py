"""What the test servers share: the gzip bomb, a bounded life, and running a handler on a free
127.0.0.1 port. The servers run as scripts, so this folder is on their import path."""
import argparse
import gzip
import io
import os
import select
import signal
import threading
import time
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
    """An argument parser with --lifetime (seconds before the server ends by itself, 1800)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--lifetime", type=float, default=1800)
    return parser


def limit_lifetime(lifetime):
    """Ends this process after `lifetime` seconds, on SIGTERM or SIGINT, and when the process that
    started it ends (a test process that crashed or never stopped its servers), whatever its
    threads are blocked in: it ends with os._exit, so a thread waiting in accept() or a handler's
    recv() cannot keep it alive. Call it from the main thread, before serving.

    A process inherits its signal mask and its ignored signals: Swift's Process and test runners
    can hand SIGTERM down blocked or ignored, and a server started so would ignore `kill`. Here
    every signal is unblocked and both are given a handler. Python runs handlers on the main thread
    only, between bytecodes, so the signal is also written to a wakeup pipe a watching thread reads."""
    parent = os.getppid()
    deadline = time.monotonic() + lifetime
    wakeup_read, wakeup_write = os.pipe()
    os.set_blocking(wakeup_write, False)
    signal.set_wakeup_fd(wakeup_write, warn_on_full_buffer=False)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda number, frame: os._exit(128 + number))
    signal.pthread_sigmask(signal.SIG_SETMASK, set())

    def watch():
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os._exit(0)
            readable, _, _ = select.select([wakeup_read], [], [], min(left, 0.5))
            if readable:
                os._exit(128 + os.read(wakeup_read, 1)[0])
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="lifetime", daemon=True).start()


def serve(handler, lifetime):
    """Serves `handler` on a free 127.0.0.1 port, announces it, and ends as limit_lifetime says."""
    limit_lifetime(lifetime)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"Listening at: http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
