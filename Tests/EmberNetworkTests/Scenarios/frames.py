"""WebSocket edges of `ember serve` that browsers' WebSocket cannot reach: fragmented messages,
control frames between fragments, stray continuations, text that is not UTF-8, messages past
the size limit, a client that stops reading, a fan-out to 300 listeners, and --admin-token. A raw RFC 6455 client on the standard library.

Usage: frames.py PORT SCENARIO   (prints "ok SCENARIO" when it passes). `Socket` is also what
tokens.py speaks with.
"""
import base64
import json
import os
import socket
import sys
import threading
import time

PORT = 0  # the server's, set by the caller


class Closed(Exception):
    pass


class Socket:
    """A client WebSocket speaking the realtime protocol v5 to ember serve."""

    def __init__(self, receive_buffer=None, ns="frames", first=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", PORT))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((
            f"GET /.ws?v=5&ns={ns} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.read_some()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise AssertionError(f"no upgrade: {head!r}")
        self.pending = []  # messages read ahead
        self.parts = None
        if first is not None:
            # Sent at once, as the Web SDK may: before the server's hello has come.
            self.send(first)
        hello = self.message()
        if json.loads(hello)["d"]["t"] != "h":
            raise AssertionError(f"no hello: {hello}")

    def read_some(self):
        data = self.sock.recv(65536)
        if not data:
            raise Closed()
        return data

    def frame(self, opcode, payload, fin=True):
        """Sends one frame (masked, as a client must)."""
        if isinstance(payload, str):
            payload = payload.encode()
        header = bytes([(0x80 if fin else 0) | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + length.to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + length.to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, request):
        self.frame(1, json.dumps({"t": "d", "d": request}))

    def read_frame(self):
        """The next frame from the server: (opcode, payload)."""
        while True:
            if len(self.buffer) >= 2:
                length = self.buffer[1] & 0x7F
                start = 2
                if length == 126:
                    if len(self.buffer) < 4:
                        self.buffer += self.read_some()
                        continue
                    length, start = int.from_bytes(self.buffer[2:4], "big"), 4
                elif length == 127:
                    if len(self.buffer) < 10:
                        self.buffer += self.read_some()
                        continue
                    length, start = int.from_bytes(self.buffer[2:10], "big"), 10
                if len(self.buffer) >= start + length:
                    opcode = self.buffer[0] & 0x0F
                    payload = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return opcode, payload
            self.buffer += self.read_some()

    def message(self):
        """The next protocol message (multi-frame ones joined); raises Closed on a close frame."""
        while True:
            opcode, payload = self.read_frame()
            if opcode == 8:
                raise Closed(int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None)
            if opcode in (9, 10):
                self.pending.append(("pong" if opcode == 10 else "ping", payload))
                continue
            text = payload.decode()
            if self.parts is not None:
                self.parts[1].append(text)
                if len(self.parts[1]) == self.parts[0]:
                    text, self.parts = "".join(self.parts[1]), None
                    return text
                continue
            if text.isdigit() and len(text) <= 6:
                self.parts = (int(text), [])
                continue
            return text

    def control(self, kind, payload):
        """Reads frames until the control frame `kind` ("ping" or "pong") with `payload`."""
        while (kind, payload) not in self.pending:
            opcode, data = self.read_frame()
            if opcode in (9, 10):
                self.pending.append(("pong" if opcode == 10 else "ping", data))
            elif opcode == 8:
                raise Closed()
        return True

    def answer(self, request_id):
        """Reads until the answer to request `request_id`; returns its body."""
        deadline = time.time() + 10
        while time.time() < deadline:
            message = json.loads(self.message())
            if message.get("t") == "d" and message["d"].get("r") == request_id:
                return message["d"]["b"]
        raise AssertionError(f"no answer to {request_id}")

    def closes(self):
        """Whether the server ends the connection (a close frame, EOF or a reset) within 10 s."""
        deadline = time.time() + 10
        try:
            while time.time() < deadline:
                self.message()
        except (Closed, ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
        return False


def same(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def fragments():
    """A message in WebSocket fragments, with a ping between them, is one message."""
    ws = Socket()
    text = json.dumps({"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/frag", "d": "abc" * 1000}}})
    ws.frame(1, text[:100], fin=False)
    ws.frame(9, b"between")
    ws.frame(0, text[100:2000], fin=False)
    ws.frame(0, text[2000:], fin=True)
    same(ws.answer(1)["s"], "ok", "the fragmented write")
    same(ws.control("pong", b"between"), True, "the pong to the ping between fragments")
    # The protocol's own split (a count, then the parts), each part itself fragmented.
    long = json.dumps({"t": "d", "d": {"r": 2, "a": "p", "b": {"p": "/long", "d": "é" * 30000}}})
    parts = [long[i:i + 16384] for i in range(0, len(long), 16384)]
    ws.frame(1, str(len(parts)))
    for part in parts:
        ws.frame(1, part[:10], fin=False)
        ws.frame(0, part[10:], fin=True)
    same(ws.answer(2)["s"], "ok", "the long write")
    ws.send({"r": 3, "a": "g", "b": {"p": "/long", "q": {}}})
    same(ws.answer(3)["d"], "é" * 30000, "the long value read back")
    # A fragmented binary message is skipped; the connection goes on.
    ws.frame(2, b"\x00\x01", fin=False)
    ws.frame(0, b"\x02", fin=True)
    ws.send({"r": 4, "a": "g", "b": {"p": "/frag", "q": {}}})
    same(ws.answer(4)["d"], "abc" * 1000, "the fragmented value read back")
    # A continuation with no message begun closes the connection.
    ws.frame(0, b"stray", fin=True)
    same(ws.closes(), True, "closed after a stray continuation")
    # A new message inside a fragmented one closes it too.
    ws = Socket()
    ws.frame(1, '{"t":"d",', fin=False)
    ws.frame(1, '{"t":"d"}', fin=True)
    same(ws.closes(), True, "closed after a message inside another")
    # Text that is not UTF-8 closes it.
    ws = Socket()
    ws.frame(1, b'{"t":"d","d":{"r":1,"a":"p","b":{"p":"/x","d":"\xff\xfe"}}}')
    same(ws.closes(), True, "closed after text that is not UTF-8")
    # Everyone else is still served.
    ws = Socket()
    ws.send({"r": 1, "a": "g", "b": {"p": "/frag", "q": {}}})
    same(ws.answer(1)["d"], "abc" * 1000, "a new connection reads")


def too_large():
    """Past --max-message (100,000 bytes here): the protocol's error, then the close."""
    ws = Socket()
    chunk = "x" * 40000
    ws.frame(1, chunk, fin=False)
    ws.frame(0, chunk, fin=False)
    ws.frame(0, chunk, fin=True)
    error = json.loads(ws.message())
    same((error["t"], error["d"]["t"]), ("c", "e"), "the error message")
    if "too large" not in error["d"]["d"]:
        raise AssertionError(f"the error: {error}")
    same(ws.closes(), True, "closed after the error")
    # The protocol's split counts too.
    ws = Socket()
    ws.frame(1, "3")
    for _ in range(3):
        ws.frame(1, chunk)
    error = json.loads(ws.message())
    same(error["d"]["t"], "e", "the error for a split message")
    same(ws.closes(), True, "closed after the split message's error")
    ws = Socket()
    ws.send({"r": 1, "a": "p", "b": {"p": "/fine", "d": "y" * 50000}})
    same(ws.answer(1)["s"], "ok", "a message under the limit")


def slow_reader():
    """A client that stops reading is cut off once it has more than --max-unsent (2 MB here)
    waiting; the writer and another listener go on at full speed."""
    slow = Socket(receive_buffer=4096)
    slow.send({"r": 1, "a": "q", "b": {"p": "/big", "h": ""}})
    listener = Socket()
    listener.send({"r": 1, "a": "q", "b": {"p": "/big", "h": ""}})
    same(listener.answer(1)["s"], "ok", "the listener's listen")
    value = "v" * 200000
    count = 80  # 16 MB to each listener: more than the kernel's buffers and the limit
    seen = set()

    def listen():
        deadline = time.time() + 60
        while len(seen) < count and time.time() < deadline:
            message = json.loads(listener.message())
            if message.get("t") == "d" and message["d"].get("a") == "d":
                seen.add(message["d"]["b"]["d"]["n"])

    reader = threading.Thread(target=listen)
    reader.start()
    writer = Socket()
    started = time.time()
    for i in range(count):
        writer.send({"r": i + 1, "a": "p", "b": {"p": "/big", "d": {"n": i, "v": value}}})
        same(writer.answer(i + 1)["s"], "ok", f"write {i}")
    elapsed = time.time() - started
    reader.join(60)
    same(len(seen), count, "updates the reading listener received")
    if elapsed > 30:
        raise AssertionError(f"the writer was slowed down: {elapsed:.1f} s for {count} writes")
    # The slow client's socket was cut: what the kernel holds, then the end.
    slow.sock.settimeout(10)
    got = 0
    ended = False
    try:
        while True:
            data = slow.sock.recv(1 << 20)
            if not data:
                ended = True
                break
            got += len(data)
    except ConnectionResetError:
        ended = True
    except socket.timeout:
        pass
    same(ended, True, f"the slow reader's connection ended (after {got} bytes)")
    if got >= count * len(value):
        raise AssertionError(f"the slow reader was sent everything ({got} bytes)")


def fan_out():
    """One write reaching 300 listeners on two event loops (the server hands another loop its
    connections 64 at a time while it still queues the rest): each listener gets every update
    once and in order, and the writer, listening too, gets each update before its write's ack."""
    listeners = [Socket() for _ in range(300)]
    for ws in listeners:
        ws.send({"r": 1, "a": "q", "b": {"p": "/room", "h": ""}})
    for ws in listeners:
        same(ws.answer(1)["s"], "ok", "a listen")
    writer = listeners[0]
    count = 40
    for i in range(count):
        request = i + 2
        if i % 2 == 0:
            writer.send({"r": request, "a": "p", "b": {"p": "/room/message", "d": {"n": i}}})
        else:
            writer.send({"r": request, "a": "m", "b": {"p": "/room/message", "d": {"n": i}}})
        seen_update = False
        while True:
            message = json.loads(writer.message())
            body = message["d"]
            if body.get("a") in ("d", "m"):
                same(seen_update, False, f"updates of write {i} to the writer")
                same(body["b"]["d"], {"n": i}, f"the writer's update {i}")
                seen_update = True
            elif body.get("r") == request:
                same(body["b"]["s"], "ok", f"write {i}")
                same(seen_update, True, f"the writer's update before the ack of write {i}")
                break
    for index, ws in enumerate(listeners[1:], start=1):
        numbers = []
        while len(numbers) < count:
            message = json.loads(ws.message())
            body = message["d"]
            if body.get("a") == "d":
                numbers.append(body["b"]["d"]["n"])
            elif body.get("a") == "m":
                numbers.append(body["b"]["d"]["n"])
        same(numbers, list(range(count)), f"listener {index}'s updates")
    # Nothing more arrives: each update came once.
    for ws in listeners[1:]:
        ws.send({"r": 99, "a": "g", "b": {"p": "/room/message", "q": {}}})
        body = json.loads(ws.message())["d"]
        same(body.get("r"), 99, "the next message after the updates")
        same(body["b"]["d"], {"n": count - 1}, "the value read back")


ADMIN_SECRET = "s3cret-admin-token-for-tests"  # RealtimeSocketTests starts the server with it


def http(method, path, body=None, headers=None):
    """One HTTP request to the server: (status, parsed JSON body)."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers or {})
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, json.loads(text) if text else None


def admin_token():
    """With --admin-token, the secret is the administrator over REST and WebSocket, and the
    emulator's `owner` is an ordinary (here: unparseable) token, refused."""
    bearer = {"Authorization": f"Bearer {ADMIN_SECRET}"}
    status, body = http("PUT", "/.settings/rules.json?ns=frames", {"rules": {".read": False, ".write": False}}, bearer)
    same((status, body), (200, {"status": "ok"}), "rules uploaded with the secret")
    same(http("PUT", "/secret.json?ns=frames", "kept", bearer), (200, "kept"), "a write past the rules with the secret")
    same(http("GET", f"/secret.json?ns=frames&auth={ADMIN_SECRET}"), (200, "kept"), "a read with auth=SECRET")
    same(http("GET", "/secret.json?ns=frames", headers={"Authorization": "Bearer owner"}),
         (401, {"error": "Could not parse auth token."}), "a read with Bearer owner")
    same(http("PUT", "/.settings/rules.json?ns=frames&auth=owner", {"rules": {".read": True}})[0], 401, "rules upload with owner")
    same(http("GET", "/secret.json?ns=frames&auth=s3cret-admin-token-for-test")[0], 401, "a read with the secret less a letter")
    same(http("GET", "/secret.json?ns=frames")[0], 401, "an anonymous read under the rules")
    # WebSocket: gauth with owner is refused, and the rules apply; with the secret, they do not.
    ws = Socket()
    ws.send({"r": 1, "a": "gauth", "b": {"cred": "owner"}})
    same(ws.answer(1)["s"], "invalid_token", "gauth with owner")
    ws.send({"r": 2, "a": "g", "b": {"p": "/secret", "q": {}}})
    same(ws.answer(2)["s"], "permission_denied", "a read after gauth with owner")
    ws.send({"r": 3, "a": "gauth", "b": {"cred": ADMIN_SECRET}})
    same(ws.answer(3)["s"], "ok", "gauth with the secret")
    ws.send({"r": 4, "a": "g", "b": {"p": "/secret", "q": {}}})
    same(ws.answer(4), {"s": "ok", "d": "kept"}, "a read after gauth with the secret")
    ws.send({"r": 5, "a": "p", "b": {"p": "/secret", "d": "changed"}})
    same(ws.answer(5)["s"], "ok", "a write after gauth with the secret")
    same(http("GET", "/secret.json?ns=frames", headers=bearer), (200, "changed"), "the write read back")


def hang_ups():
    """Clients that hang up during the upgrade do not keep their place: with --max-connections 5,
    60 of them, then 5 that stay, and a normal client still gets in once those leave."""
    for _ in range(60):
        sock = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((
            f"GET /.ws?v=5&ns=frames HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        sock.close()
    time.sleep(1)
    staying = [Socket() for _ in range(5)]
    for ws in staying:
        ws.sock.close()
    deadline = time.time() + 10
    while True:
        try:
            ws = Socket()
            break
        except (AssertionError, Closed, ConnectionResetError):
            if time.time() > deadline:
                raise AssertionError("no connection is taken after clients hung up")
            time.sleep(0.2)
    ws.send({"r": 1, "a": "g", "b": {"p": "/", "q": {}}})
    same(ws.answer(1)["s"], "ok", "a read on the connection that got in")


def at_once():
    """A request sent right after the upgrade, before the hello, is answered (it was dropped,
    unanswered, when it reached the server before the connection was accepted)."""
    for round in range(100):
        ws = Socket(first={"r": 1, "a": "p", "b": {"p": f"/atonce/{round}", "d": round}})
        same(ws.answer(1)["s"], "ok", f"the write sent at once on connection {round}")
        ws.sock.close()
    ws = Socket()
    ws.send({"r": 1, "a": "g", "b": {"p": "/atonce", "q": {}}})
    same(len(ws.answer(1)["d"]), 100, "every write sent at once, read back")


def cross_loops():
    """Two writers on the server's two event loops set one location at the same moment, again and
    again; every listener (on both loops) gets the two updates of each round in the order the
    server applied them: its last one is the value read back. (A connection's frames from an
    engine turn run by the other loop were handed to its loop as a task; a turn its own loop ran
    next wrote at once, and could overtake them: a listener was left with the older value.)"""
    listeners = [Socket() for _ in range(4)]
    writers = [Socket(), Socket()]  # consecutive connections: one on each event loop
    everyone = listeners + writers  # the writers listen too
    for ws in everyone:
        ws.send({"r": 1, "a": "q", "b": {"p": "/race", "h": ""}})
    for ws in everyone:
        same(ws.answer(1)["s"], "ok", "a listen")
    rounds = 300
    for round in range(rounds):
        request = round + 2
        for index, ws in enumerate(writers):
            ws.send({"r": request, "a": "p", "b": {"p": "/race/x", "d": round * 2 + index}})
        seen = {number: [] for number in range(len(everyone))}

        def take(number, body):
            if body.get("a") == "d":
                data = body["b"]["d"]
                seen[number].append(data["x"] if body["b"]["p"] == "race" else data)

        for index, ws in enumerate(writers):
            number = len(listeners) + index
            while True:
                body = json.loads(ws.message())["d"]
                if body.get("r") == request:
                    same(body["b"]["s"], "ok", f"a write of round {round}")
                    same(seen[number][-1:], [round * 2 + index], f"writer {index}'s own update before its ack, round {round}")
                    break
                take(number, body)
        writers[0].send({"r": 100000 + round, "a": "g", "b": {"p": "/race/x", "q": {}}})
        while True:
            body = json.loads(writers[0].message())["d"]
            if body.get("r") == 100000 + round:
                final = body["b"]["d"]
                break
            take(len(listeners), body)
        for number, ws in enumerate(everyone):
            while len(seen[number]) < 2:
                take(number, json.loads(ws.message())["d"])
            values = seen[number]
            same(sorted(values), [round * 2, round * 2 + 1], f"connection {number}'s updates of round {round}")
            same(values[-1], final, f"connection {number}'s last value of round {round} (it got {values})")


SCENARIOS = {"crossLoops": cross_loops, "atOnce": at_once, "fragments": fragments, "tooLarge": too_large, "slowReader": slow_reader, "hangUps": hang_ups, "fanOut": fan_out, "adminToken": admin_token}

if __name__ == "__main__":
    PORT = int(sys.argv[1])
    SCENARIOS[sys.argv[2]]()
    print(f"ok {sys.argv[2]}")
