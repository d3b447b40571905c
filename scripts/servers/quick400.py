#!/usr/bin/env python3
"""An HTTP/1.1-only server on a free 127.0.0.1 port that answers every connection at once with
`400 Bad Request` and closes it, whatever was sent (as servers answer an HTTP/2 preface they do not
understand), for the h2c prior-knowledge tests. Prints "Listening at: http://127.0.0.1:PORT" and
exits by itself after --lifetime seconds.
"""
import socket
import threading

from common import lifetime_parser, limit_lifetime

ANSWER = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def serve(connection):
    with connection:
        try:
            connection.recv(65536)
            connection.sendall(ANSWER)
        except OSError:
            pass


def main():
    arguments = lifetime_parser("An HTTP/1.1 server that answers 400 at once.").parse_args()
    limit_lifetime(arguments.lifetime)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"Listening at: http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
