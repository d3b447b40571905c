"""The fault server's session paths (imported by faults.py): Server-Sent Events and cookies.

  /sse/script?key=K   a scripted event source, by how many times K connected: (1) retry 100 ms, ids 1
                      and 2, then a dropped connection mid-event (after its id, 3x); (2) retry 300 ms, event "update" id 3,
                      clean end; (3) 503; (4) id 4, clean end; (5) 204. Each connection's Last-Event-ID
                      and time is logged
  /sse/ticks?key=K&pace=S  an event every S seconds (0.05 by default) for a minute; logs how many went
                      out and whether the client closed the connection
  /sse/status/N       status N with a JSON message
  /sse/storm?key=K&events=E  retry: 0, E events (0 by default), and the connection closes: what a client
                      that honours retry: 0 literally reconnects to in a tight loop; logged like the others
  /sse/busy?key=K&first=retry0  503 with a JSON message, logged; with first=retry0 the first connection
                      gets retry: 0 and one event instead (the retry a storm of 503s used to follow)
  /sse/log?key=K      [{"last_event_id", "at", "sent", "closed"}]: what K's connections saw
  /cookies/login      302 to /cookies/home with Set-Cookie: session (Path=/cookies, HttpOnly), theme
                      (default path /cookies), and two the client must refuse (Domain=example.com,
                      Domain=127.0.0.2)
  /cookies/home       {"cookie": the Cookie header or null}
  /cookies/cross      302 to /cookies/home on the other port (same host: cookies follow, per RFC 6265)
  /cookies/logout     deletes session (Max-Age=0)
  /cookies/set/...?f=F  {"cookie": the Cookie header or null}, with one Set-Cookie field for each string of F
                      (base64url of a JSON list, optional), sent as is: the conformance corpus on the wire
  /cookies/echo/...   {"cookie": the Cookie header or null}, at any path
"""
import base64
import json
import threading
import time

log = {}
log_lock = threading.Lock()


def header(head, name):
    for line in head.split(b"\r\n")[1:]:
        field, _, value = line.decode("latin-1").partition(":")
        if field.strip().lower() == name:
            return value.strip()
    return None


def note(key, head):
    entry = {"last_event_id": header(head, "last-event-id"), "at": time.monotonic(), "sent": 0, "closed": False}
    with log_lock:
        entries = log.setdefault(key, [])
        entries.append(entry)
        return len(entries), entry


def chunk(text):
    data = text.encode()
    return b"%x\r\n" % len(data) + data + b"\r\n"


EVENT_HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
              b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")


def serve(connection, path, query, head, port, ports, response):
    """Serves the path if it is a session path; False otherwise."""
    send = connection.sendall
    if path == "/sse/script":
        number, _ = note(query.get("key", ""), head)
        if number == 1:
            send(EVENT_HEAD + chunk(": hello\n\nretry: 100\n\nid: 1\ndata: one\n\nid: 2\ndata: two\ndata: lines\n\n")
                 + chunk("id: 3x\ndata: cut off"))
            # A drop: no final chunk.
        elif number == 2:
            send(EVENT_HEAD + chunk("retry: 300\r\nevent: update\r\nid: 3\r\ndata: three\r\n\r\n") + b"0\r\n\r\n")
        elif number == 3:
            send(response(503, b'{"message": "busy"}', [("Content-Type", "application/json")], reason="Busy"))
        elif number == 4:
            send(EVENT_HEAD + chunk("id: 4\rdata: four\r\r") + b"0\r\n\r\n")
        else:
            send(response(204, b"", [], reason="No Content"))
    elif path == "/sse/ticks":
        _, entry = note(query.get("key", ""), head)
        pace = float(query.get("pace", "0.05"))
        send(EVENT_HEAD)
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                send(chunk(f"data: tick {entry['sent']}\n\n"))
                with log_lock:
                    entry["sent"] += 1
                time.sleep(pace)
        except OSError:
            with log_lock:
                entry["closed"] = True
    elif path == "/sse/storm":
        note(query.get("key", ""), head)
        events = "".join(f"data: storm {n}\n\n" for n in range(int(query.get("events", "0"))))
        send(EVENT_HEAD + chunk("retry: 0\n\n" + events) + b"0\r\n\r\n")
    elif path == "/sse/busy":
        number, _ = note(query.get("key", ""), head)
        if number == 1 and query.get("first") == "retry0":
            send(EVENT_HEAD + chunk("retry: 0\n\ndata: only\n\n") + b"0\r\n\r\n")
            return True
        send(response(503, b'{"message": "busy"}', [("Content-Type", "application/json")], reason="Busy"))
    elif path.startswith("/sse/status/"):
        code = int(path.split("/")[3])
        send(response(code, json.dumps({"message": f"status {code}"}).encode(), [("Content-Type", "application/json")],
                      reason="Status"))
    elif path == "/sse/log":
        with log_lock:
            body = json.dumps(log.get(query.get("key", ""), [])).encode()
        send(response(200, body, [("Content-Type", "application/json")]))
    elif path == "/cookies/login":
        send(response(302, b"", [
            ("Location", "/cookies/home"),
            ("Set-Cookie", "session=s3cret; Path=/cookies; HttpOnly"),
            ("Set-Cookie", "theme=dark"),
            ("Set-Cookie", "evil=1; Domain=example.com; Path=/"),
            ("Set-Cookie", "ip=1; Domain=127.0.0.2; Path=/"),
        ], reason="Found"))
    elif path == "/cookies/home":
        body = json.dumps({"cookie": header(head, "cookie")}).encode()
        send(response(200, body, [("Content-Type", "application/json")]))
    elif path == "/cookies/cross":
        other = ports[1] if port == ports[0] else ports[0]
        send(response(302, b"", [("Location", f"http://127.0.0.1:{other}/cookies/home")], reason="Found"))
    elif path.startswith("/cookies/set/"):
        fields = json.loads(base64.urlsafe_b64decode(query["f"] + "==")) if "f" in query else []
        body = json.dumps({"cookie": header(head, "cookie")}).encode()
        send(response(200, body, [("Content-Type", "application/json")] + [("Set-Cookie", f) for f in fields]))
    elif path.startswith("/cookies/echo/"):
        body = json.dumps({"cookie": header(head, "cookie")}).encode()
        send(response(200, body, [("Content-Type", "application/json")]))
    elif path == "/cookies/logout":
        send(response(200, b"{}", [("Content-Type", "application/json"),
                                   ("Set-Cookie", "session=; Max-Age=0; Path=/cookies")]))
    else:
        return False
    return True
