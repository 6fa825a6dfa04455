"""The HTTP edge of `ember serve` as an attacker meets it, over raw sockets: web pages of other
origins and DNS rebinding (Host and Origin), connections that never finish a request, and
malformed HTTP. Python's standard library only.

Usage: edge.py PORT SCENARIO   (prints "ok SCENARIO" when it passes).
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames  # noqa: E402

PORT = 0  # the server's, set by the caller
ALLOWED = "https://app.example"  # EdgeTests start the server with --allow-origin ALLOWED


def same(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def connect(timeout=10):
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    return sock


def read_response(sock, timeout=10):
    """One HTTP response: (status, headers with lowercase names, body); (None, {}, b"") when the
    server closed without answering."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, {}, data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def request(method, target, headers=None, body=b"", host=None):
    """One request on a connection of its own: (status, headers, body)."""
    sock = connect()
    try:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{PORT}'}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body or method in ("PUT", "POST", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        lines.append("Connection: close")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return read_response(sock)
    finally:
        sock.close()


def upgrade(headers):
    """A WebSocket upgrade with `headers` added (Host among them, or the usual one): the status."""
    sock = connect()
    try:
        lines = ["GET /.ws?v=5&ns=edge HTTP/1.1", "Upgrade: websocket", "Connection: Upgrade",
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        if "Host" not in headers:
            lines.append(f"Host: 127.0.0.1:{PORT}")
        lines += [f"{name}: {value}" for name, value in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status, _, _ = read_response(sock)
        return status
    finally:
        sock.close()


def origins():
    """Pages of other origins and DNS rebinding cannot use the server; pages on this machine
    (any port), the --allow-origin list and clients without an Origin (Node, curl) can."""
    owner = {"Authorization": "Bearer owner"}
    status, _, _ = request("PUT", "/secret.json?ns=edge", owner, b'"kept"')
    same(status, 200, "a write without an Origin (curl, the Admin SDK)")
    # CORS preflights: loopback origins and the allowed list get their origin back; others nothing.
    for origin in ["http://localhost:5173", "http://127.0.0.1:4000", "https://localhost", "http://[::1]:8080", ALLOWED]:
        status, headers, _ = request("OPTIONS", "/secret.json?ns=edge", {
            "Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"})
        same((status, headers.get("access-control-allow-origin")), (204, origin), f"the preflight from {origin}")
        if "Authorization" not in headers.get("access-control-allow-headers", ""):
            raise AssertionError(f"the preflight from {origin} does not allow Authorization: {headers}")
    for origin in ["https://evil.example", "null", "http://localhost.evil.example", "http://127.0.0.1.evil.example:9000",
                   "https://app.example.evil", ALLOWED + ":8443", "file://"]:
        status, headers, _ = request("OPTIONS", "/secret.json?ns=edge", {
            "Origin": origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"})
        same(status, 403, f"the preflight from {origin}")
        same(headers.get("access-control-allow-origin"), None, f"the preflight from {origin} allows it")
    # A simple request (no preflight: auth in the query, a text/plain PUT) from another origin is
    # refused before it reads or writes anything.
    status, headers, body = request("GET", "/secret.json?ns=edge&auth=owner", {"Origin": "https://evil.example"})
    same(status, 403, "a read from another origin")
    if b"kept" in body or headers.get("access-control-allow-origin"):
        raise AssertionError(f"a read from another origin was answered: {headers} {body!r}")
    status, _, _ = request("PUT", "/secret.json?ns=edge&auth=owner", {"Origin": "https://evil.example", "Content-Type": "text/plain"},
                           b'"stolen"')
    same(status, 403, "a write from another origin")
    status, headers, body = request("GET", "/secret.json?ns=edge", {"Origin": "http://localhost:3000", **owner})
    same((status, body, headers.get("access-control-allow-origin"), headers.get("vary")),
         (200, b'"kept"', "http://localhost:3000", "Origin"), "a read from a page on this machine")
    same(request("GET", "/secret.json?ns=edge", {"Origin": ALLOWED, **owner})[0], 200, "a read from the allowed origin")
    # DNS rebinding: a name that is not the server's is refused, whatever the credential.
    for host in [f"rebind.example:{PORT}", "rebind.example", f"localhost.rebind.example:{PORT}", f"127.0.0.1.nip.io:{PORT}"]:
        status, _, body = request("GET", "/.json?ns=edge", owner, host=host)
        same(status, 403, f"a read with Host {host}")
        if b"kept" in body:
            raise AssertionError(f"a read with Host {host} was answered: {body!r}")
        same(upgrade({"Host": host}) == 101, False, f"a WebSocket with Host {host} was upgraded")
    for host in [f"127.0.0.1:{PORT}", "127.0.0.1", f"localhost:{PORT}", "LocalHost", f"[::1]:{PORT}", "[::1]"]:
        same(request("GET", "/secret.json?ns=edge", owner, host=host)[:3:2], (200, b'"kept"'), f"a read with Host {host}")
    # WebSockets: an upgrade from another origin is refused; from this machine, the allowed list,
    # or with no Origin (Node's SDK, the Admin SDK) it goes through.
    for origin in ["https://evil.example", "null", "http://rebind.example:9000"]:
        same(upgrade({"Origin": origin}) == 101, False, f"a WebSocket from {origin} was upgraded")
    for origin in ["http://localhost:5173", "http://127.0.0.1:9000", ALLOWED]:
        same(upgrade({"Origin": origin}), 101, f"a WebSocket from {origin}")
    ws = frames.Socket(ns="edge")
    ws.send({"r": 1, "a": "gauth", "b": {"cred": "owner"}})
    same(ws.answer(1)["s"], "ok", "gauth owner without an Origin")
    ws.send({"r": 2, "a": "g", "b": {"p": "/secret", "q": {}}})
    same(ws.answer(2)["d"], "kept", "the value nobody else could change")


SCENARIOS = {"origins": origins}

if __name__ == "__main__":
    PORT = int(sys.argv[1])
    frames.PORT = PORT
    SCENARIOS[sys.argv[2]]()
    print(f"ok {sys.argv[2]}")
