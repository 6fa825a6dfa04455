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
    # A <script> (JSONP), <img> or <link> of another site's page sends no Origin; the browser says
    # where it comes from (Sec-Fetch-Site) and its Referer which page: without an allowed one it is
    # refused (BrowserOriginTests saw a page of another origin read the value this way).
    script = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}
    jsonp = "/secret.json?ns=edge&auth=owner&callback=steal"
    for referer in [None, "https://evil.example/page.html", "http://localhost.evil.example:5173/", "null"]:
        status, headers, body = request("GET", jsonp, {**script, **({"Referer": referer} if referer else {})})
        same(status, 403, f"a script from another site (Referer {referer})")
        if b"kept" in body:
            raise AssertionError(f"a script from another site (Referer {referer}) was answered: {body!r}")
    for referer in ["http://localhost:5173/app/index.html?x=1", "http://127.0.0.1:4000/", ALLOWED + "/page"]:
        status, headers, body = request("GET", jsonp, {**script, "Sec-Fetch-Site": "same-site", "Referer": referer})
        same((status, body, headers.get("content-type")), (200, b'steal("kept");', "application/javascript; charset=utf-8"),
             f"JSONP from a page at {referer}")
    for fetch_site in ["same-origin", "none"]:
        same(request("GET", jsonp, {**script, "Sec-Fetch-Site": fetch_site})[0], 200, f"a script with Sec-Fetch-Site {fetch_site}")
    status, _, body = request("GET", "/secret.json?ns=edge&auth=owner", {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})
    same((status, body), (200, b'"kept"'), "a link followed from another site (the user's own page)")
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


def closed_within(sock, seconds):
    """Whether the server closes `sock` within `seconds` (whatever it answers first): the time
    it took, or None."""
    started = time.time()
    sock.settimeout(0.2)
    while time.time() - started < seconds:
        try:
            if not sock.recv(65536):
                return time.time() - started
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return time.time() - started
    return None


def slow_heads():
    """With --idle-timeout 2: a silent connection, a partial head, a head trickled a byte every
    0.3 s and a kept-alive connection whose next head stops halfway are all closed within a few
    seconds; the server answers everyone else meanwhile."""
    started = time.time()
    silent = connect()
    partial = connect()
    partial.sendall(b"GET /.json HTTP/1.1\r\nHo")
    trickle = connect()
    kept = connect()
    kept.sendall(f"GET /.json HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n\r\n".encode())
    same(read_response(kept)[0], 200, "the kept-alive connection's first request")
    kept.sendall(b"GET /.json HTTP/1.1\r\nHost: 127")
    line = f"GET /.json HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nX-Slow: " + "a" * 100
    trickled_until = None
    for index, byte in enumerate(line.encode()):
        try:
            trickle.sendall(bytes([byte]))
        except (ConnectionResetError, BrokenPipeError):
            trickled_until = time.time() - started
            break
        time.sleep(0.3)
        if index % 3 == 0:
            same(request("GET", "/.json")[0], 200, "a request while the slow ones wait")
        if time.time() - started > 12:
            break
    if trickled_until is None:
        trickled_until = closed_within(trickle, 1)
        if trickled_until is not None:
            trickled_until += time.time() - started
    if trickled_until is None or trickled_until > 6:
        raise AssertionError(f"the trickled head was not cut off ({trickled_until})")
    for name, sock in [("silent", silent), ("partial", partial), ("kept-alive", kept)]:
        took = closed_within(sock, 1)
        if took is None:
            raise AssertionError(f"the {name} connection is still open after {time.time() - started:.1f} s")


def many_silent():
    """1,050 silent connections (under a soft limit of 1,024 files, which the server raises) do
    not lock others out: a request is answered at once, and they are all closed within a few
    seconds (--idle-timeout 2)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    socks = [connect() for _ in range(1050)]
    started = time.time()
    status = request("GET", "/.json")[0]
    same(status, 200, "a request beside 1,050 silent connections")
    if time.time() - started > 5:
        raise AssertionError(f"the request took {time.time() - started:.1f} s")
    time.sleep(4)
    still = 0
    for sock in socks:
        if closed_within(sock, 0.01) is None:
            still += 1
        sock.close()
    same(still, 0, "silent connections still open after 4 s")


def counted():
    """With --max-connections 5, five silent connections hold every place: a sixth is answered
    503 and closed; once the head deadline closes them (--idle-timeout 2), requests get in."""
    socks = [connect() for _ in range(5)]
    time.sleep(0.3)
    status, _, body = request("GET", "/.json")
    same(status, 503, "a request while five silent connections are open")
    time.sleep(3)
    same(request("GET", "/.json")[0], 200, "a request once they were closed")
    for sock in socks:
        sock.close()


def raw(data, timeout=10):
    """Sends `data` on a connection of its own: (the status answered or None, whether the server
    then closed the connection within 5 s)."""
    sock = connect()
    try:
        try:
            sock.sendall(data)
        except (ConnectionResetError, BrokenPipeError):
            return None, True
        try:
            status, _, _ = read_response(sock, timeout)
        except (ConnectionResetError, socket.timeout):
            return None, False
        return status, closed_within(sock, 5) is not None
    finally:
        sock.close()


def malformed():
    """Malformed HTTP is answered 400 (414 for a request line too long, 431 for a head too
    large) and the connection closed; the server goes on."""
    host = f"Host: 127.0.0.1:{PORT}\r\n"
    cases = [
        ("two Content-Lengths", f"PUT /m.json HTTP/1.1\r\n{host}Content-Length: 3\r\nContent-Length: 4\r\n\r\n\"a\"", 400),
        ("chunked with a length", f"PUT /m.json HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\n\"a\"\r\n0\r\n\r\n", 400),
        ("a negative length", f"PUT /m.json HTTP/1.1\r\n{host}Content-Length: -1\r\n\r\n", 400),
        ("a 2^64 chunk", f"PUT /m.json HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\nx\r\n", 400),
        ("bare LF", f"GET /.json HTTP/1.1\nHost: 127.0.0.1:{PORT}\n\n", 400),
        ("obs-fold", f"GET /.json HTTP/1.1\r\n{host}X-Folded: a\r\n b\r\n\r\n", 400),
        ("a garbage request line", "\x00\x01\x02 garbage \x7f\r\n\r\n", 400),
        ("a 200 KB request line", "GET /" + "a" * 200000 + f".json HTTP/1.1\r\n{host}\r\n", 414),
        ("a 200 KB header", f"GET /.json HTTP/1.1\r\n{host}X-Big: " + "a" * 200000 + "\r\n\r\n", 431),
    ]
    for what, data, expected in cases:
        status, closed = raw(data.encode("latin-1"))
        same((status, closed), (expected, True), f"{what}: the status and the close")
    same(request("GET", "/m.json")[:3:2], (200, b"null"), "nothing was written, and the server goes on")


def utf8():
    """Bytes that are not UTF-8, in a body or percent-encoded in a path, are refused (400), not
    stored as U+FFFD (where two different keys would become one)."""
    owner = {"Authorization": "Bearer owner"}
    same(request("PUT", "/cafe.json", owner, b'"caf\xe9"')[0], 400, "a body that is not UTF-8")
    same(request("PUT", "/cafe.json", owner, b'{"caf\xe9": 1}')[0], 400, "a key that is not UTF-8")
    same(request("PUT", "/keys/%FF.json", owner, b'1')[0], 400, "a path with %FF")
    same(request("PUT", "/keys/%FE.json", owner, b'2')[0], 400, "a path with %FE")
    same(request("GET", "/keys/%C3.json", owner)[0], 400, "a read of a path with half a character")
    same(request("GET", "/.json", owner)[:3:2], (200, b"null"), "nothing was stored")
    same(request("PUT", "/caf%C3%A9.json", owner, '"café"'.encode())[0], 200, "UTF-8 in a path and a body")
    same(request("GET", "/caf%C3%A9.json", owner)[:3:2], (200, '"café"'.encode()), "read back")


def write_only_etag():
    """A location that may be written but not read: a PUT asking for its ETag (X-Firebase-ETag,
    if-match) is refused before anything is stored; a plain PUT is stored."""
    owner = {"Authorization": "Bearer owner"}
    rules = b'{"rules": {"wo": {".read": false, ".write": true}}}'
    same(request("PUT", "/.settings/rules.json", owner, rules)[0], 200, "the rules")
    same(request("PUT", "/wo.json", {"X-Firebase-ETag": "true"}, b'"etag"')[0], 401, "a PUT asking for the ETag")
    same(request("PUT", "/wo.json", {"If-Match": "null_etag"}, b'"match"')[0], 401, "a PUT with if-match")
    same(request("DELETE", "/wo.json", {"If-Match": "null_etag"})[0], 401, "a DELETE with if-match")
    same(request("GET", "/wo.json", owner)[:3:2], (200, b"null"), "nothing was stored")
    same(request("PUT", "/wo.json", {}, b'"plain"')[:3:2], (200, b'"plain"'), "a plain PUT")
    same(request("GET", "/wo.json", owner)[:3:2], (200, b'"plain"'), "the plain PUT was stored")


def rss(pid):
    """The resident memory of process `pid`, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


def put_memory():
    """200 PUTs of 1 MB over REST keep nothing once answered: the server's memory stays flat
    (each request's server connection held itself, and so its value: +230 MB per 200)."""
    pid = int(os.environ["EMBER_PID"])
    value = json.dumps("v" * (1 << 20)).encode()
    owner = {"Authorization": "Bearer owner"}
    for index in range(50):
        same(request("PUT", "/big.json", owner, value)[0], 200, f"warm-up write {index}")
    before = rss(pid)
    for index in range(200):
        same(request("PUT", "/big.json", owner, value)[0], 200, f"write {index}")
    grown = rss(pid) - before
    print(f"the server grew by {grown} MB over 200 PUTs of 1 MB")
    if grown > 64:
        raise AssertionError(f"the server grew by {grown} MB over 200 PUTs of 1 MB")


def slow_stream():
    """An event stream whose client never reads, on a location receiving 200 updates of 1 MB,
    with --max-unsent 16777216: the server cuts it once 16 MB wait for it, instead of holding
    every update for it (it grew by 401 MB)."""
    value = json.dumps("v" * (1 << 20)).encode()
    owner = {"Authorization": "Bearer owner"}
    slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.settimeout(10)
    slow.connect(("127.0.0.1", PORT))
    slow.sendall(f"GET /big.json HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nAccept: text/event-stream\r\n\r\n".encode())
    time.sleep(0.5)
    pid = int(os.environ["EMBER_PID"])
    before = rss(pid)
    for index in range(200):
        same(request("PUT", "/big.json", owner, value)[0], 200, f"write {index}")
    grown = rss(pid) - before
    got = 0
    ended = False
    slow.settimeout(10)
    try:
        while True:
            data = slow.recv(1 << 20)
            if not data:
                ended = True
                break
            got += len(data)
    except ConnectionResetError:
        ended = True
    except socket.timeout:
        pass
    same(ended, True, f"the slow stream ended (after {got} bytes)")
    # What it was sent: at most the limit, an event on its way, and the sockets' buffers (the
    # server held all 200 MB for it, and sent them all once the client read).
    if got > 24 << 20:
        raise AssertionError(f"the slow stream was sent {got} bytes")
    print(f"the slow stream was sent {got} bytes, then closed; the server grew by {grown} MB")
    if grown > 100:
        raise AssertionError(f"the server grew by {grown} MB while the stream did not read")


def close_code(ws):
    """The code of the close frame the server sends next (None for an end without one)."""
    deadline = time.time() + 10
    try:
        while time.time() < deadline:
            ws.message()
    except frames.Closed as closed:
        return closed.args[0] if closed.args else None
    except (ConnectionResetError, BrokenPipeError):
        return None
    raise AssertionError("the connection stayed open")


def bad_frames():
    """RFC 6455: a frame with an RSV bit set (no extension agreed) or a client frame that is not
    masked fails the connection with close code 1002; the server goes on."""
    payload = json.dumps({"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/rsv", "d": 1}}}).encode()
    for rsv in (0x40, 0x20, 0x10):
        ws = frames.Socket(ns="edge")
        mask = os.urandom(4)
        ws.sock.sendall(bytes([0x80 | rsv | 1, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        same(close_code(ws), 1002, f"the close code after a frame with RSV bit {rsv:#x}")
    ws = frames.Socket(ns="edge")
    ws.sock.sendall(bytes([0x81, len(payload)]) + payload)
    same(close_code(ws), 1002, "the close code after an unmasked frame")
    ws = frames.Socket(ns="edge")
    ws.send({"r": 1, "a": "g", "b": {"p": "/rsv", "q": {}}})
    same(ws.answer(1), {"s": "ok", "d": None}, "nothing was written, and the server goes on")


def mock_token(uid, lifetime):
    """An unsigned token as the Web SDK's createMockUserToken makes, expiring in `lifetime` s."""
    import base64

    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    now = int(time.time())
    return part({"alg": "none", "type": "JWT"}) + "." + part(
        {"iss": "https://securetoken.google.com/demo", "aud": "demo", "iat": now, "exp": now + lifetime, "sub": uid,
         "user_id": uid}) + "."


def expiry():
    """A listen and an event stream made with a token that expires 3 s later, whose clients
    then send nothing: at the expiry the WebSocket gets `ac` with expired_token and its listen
    revoked (the rules need a user), the stream `auth_revoked` and its end."""
    owner = {"Authorization": "Bearer owner"}
    rules = b'{"rules": {".read": "auth != null", ".write": "auth != null"}}'
    same(request("PUT", "/.settings/rules.json?ns=edge", owner, rules)[0], 200, "the rules")
    ws = frames.Socket(ns="edge")
    ws.send({"r": 1, "a": "auth", "b": {"cred": mock_token("alice", 3)}})
    same(ws.answer(1)["s"], "ok", "alice's sign-in")
    ws.send({"r": 2, "a": "q", "b": {"p": "/room", "h": ""}})
    same(ws.answer(2)["s"], "ok", "alice's listen")
    stream = connect()
    stream.sendall((f"GET /room.json?ns=edge&auth={mock_token('bob', 3)} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n"
                    "Accept: text/event-stream\r\n\r\n").encode())
    started = time.time()
    pushes = []
    while time.time() - started < 10:
        body = json.loads(ws.message())["d"]
        if body.get("a") in ("ac", "c"):
            pushes.append((body["a"], body["b"].get("s") if body["a"] == "ac" else body["b"].get("p")))
        if len(pushes) == 2:
            break
    took = time.time() - started
    same(pushes, [("ac", "expired_token"), ("c", "room")], "what the silent listener got at the token's expiry")
    if took > 6:
        raise AssertionError(f"the revocation came {took:.1f} s after the sign-in")
    ws.send({"r": 3, "a": "g", "b": {"p": "/room", "q": {}}})
    same(ws.answer(3)["s"], "permission_denied", "a read after the revocation")
    text = b""
    stream.settimeout(10)
    while b"auth_revoked" not in text or not (text.endswith(b"0\r\n\r\n") or b"\r\n0\r\n" in text.split(b"auth_revoked", 1)[1]):
        data = stream.recv(65536)
        if not data:
            break
        text += data
    if b"event: put" not in text or b"event: auth_revoked\ndata: credential is no longer valid\n\n" not in text:
        raise AssertionError(f"the stream: {text!r}")


SCENARIOS = {"putMemory": put_memory, "expiry": expiry, "badFrames": bad_frames, "slowStream": slow_stream, "malformed": malformed, "utf8": utf8, "writeOnlyETag": write_only_etag, "origins": origins, "slowHeads": slow_heads, "manySilent": many_silent, "counted": counted}

if __name__ == "__main__":
    PORT = int(sys.argv[1])
    frames.PORT = PORT
    SCENARIOS[sys.argv[2]]()
    print(f"ok {sys.argv[2]}")
