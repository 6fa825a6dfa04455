"""Signed Firebase ID tokens against `ember serve --project demo-ember --certs ...`: RS256 tokens
made here with our own key (as Firebase Auth makes them with Google's), checked by the server
over the realtime protocol and REST. Needs `cryptography` and `PyJWT` (firebase-admin's
dependencies, in the test's virtual environment).

Usage:
  tokens.py keys DIR        writes DIR/key.pem, DIR/certs.json (Google's format), DIR/jwks.json
  tokens.py check PORT DIR  the scenario (prints "ok tokens" when it passes)
"""
import base64
import datetime
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames  # noqa: E402

PROJECT = "demo-ember"
KID = "key-1"


def b64url(number):
    data = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_keys(directory):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    with open(os.path.join(directory, "key.pem"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    with open(os.path.join(directory, "certs.json"), "w") as f:
        json.dump({KID: certificate.public_bytes(serialization.Encoding.PEM).decode()}, f)
    numbers = key.public_key().public_numbers()
    with open(os.path.join(directory, "jwks.json"), "w") as f:
        json.dump({"keys": [{"kid": KID, "kty": "RSA", "alg": "RS256", "use": "sig", "n": b64url(numbers.n), "e": b64url(numbers.e)}]}, f)


def token(key, uid, kid=KID, audience=PROJECT, issued=None, expires=None, **claims):
    now = int(time.time())
    issued = now - 10 if issued is None else issued
    payload = {"iss": f"https://securetoken.google.com/{audience}", "aud": audience, "auth_time": issued, "user_id": uid,
               "sub": uid, "iat": issued, "exp": issued + 3600 if expires is None else expires,
               "firebase": {"identities": {}, "sign_in_provider": "password"}}
    payload.update(claims)
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid})


def unsigned(uid):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    now = int(time.time())
    return part({"alg": "none", "type": "JWT"}) + "." + part(
        {"iss": f"https://securetoken.google.com/{PROJECT}", "aud": PROJECT, "iat": now, "exp": now + 3600, "sub": uid, "user_id": uid}) + "."


def same(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def check(port, directory):
    frames.PORT = port
    with open(os.path.join(directory, "key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())

    # Over the realtime protocol: a good token signs in as its user, whom the rules see. The
    # first token makes a server with a URL fetch its keys: alice's write, sent right behind her
    # auth, waits for it and is handled as hers.
    ws = frames.Socket(ns="tokens")
    ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, "alice")}})
    ws.send({"r": 2, "a": "p", "b": {"p": "/users/alice", "d": {"name": "Alice"}}})
    answer = ws.answer(1)
    same(answer["s"], "ok", f"a signed token's auth: {answer}")
    same(answer["d"]["auth"]["uid"], "alice", "the auth the server answers with")
    same(ws.answer(2)["s"], "ok", "alice writes her own")
    ws.send({"r": 3, "a": "p", "b": {"p": "/users/bob", "d": {"name": "not Bob"}}})
    same(ws.answer(3)["s"], "permission_denied", "alice writes bob's")

    # Every other token is refused, each saying why; the connection stays signed out.
    refusals = [
        ("an unsigned (emulator) token", unsigned("alice"), "invalid_token", "kid"),
        ("a token signed by another key", token(other, "alice"), "invalid_token", "signature"),
        ("a token for another project", token(key, "alice", audience="someone-else"), "invalid_token", "aud"),
        ("a token whose key is unknown", token(key, "alice", kid="key-9"), "invalid_token", "kid"),
        ("an expired token", token(key, "alice", issued=now - 7200, expires=now - 3600), "expired_token", "expired"),
        ("a token from the future", token(key, "alice", issued=now + 600), "invalid_token", "future"),
        ("a token with an empty subject", token(key, ""), "invalid_token", "sub"),
    ]
    for number, (what, text, status, reason) in enumerate(refusals, start=10):
        ws = frames.Socket(ns="tokens")
        ws.send({"r": number, "a": "auth", "b": {"cred": text}})
        answer = ws.answer(number)
        same(answer["s"], status, f"{what}: {answer}")
        if reason not in answer["d"]:
            raise AssertionError(f"{what}: the reason does not say '{reason}': {answer['d']}")
        ws.send({"r": number + 100, "a": "p", "b": {"p": "/users/alice", "d": {"name": "Mallory"}}})
        same(ws.answer(number + 100)["s"], "permission_denied", f"a write after {what}")

    # Messages sent right behind the auth are handled after it, as its user.
    ws = frames.Socket(ns="tokens")
    ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, "carol")}})
    ws.send({"r": 2, "a": "p", "b": {"p": "/users/carol", "d": {"name": "Carol"}}})
    same(ws.answer(1)["s"], "ok", "carol's auth")
    same(ws.answer(2)["s"], "ok", "carol's write right behind her auth")

    # REST: auth= and Authorization: Bearer take signed tokens only; owner is the administrator.
    def get(path, query="", headers=None):
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}.json?ns=tokens{query}", headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    same(get("/users/alice", "&auth=" + token(key, "alice")), (200, {"name": "Alice"}), "REST auth= with alice's token")
    same(get("/users/alice", headers={"Authorization": "Bearer " + token(key, "alice")}), (200, {"name": "Alice"}), "REST Bearer")
    same(get("/users/alice", "&auth=" + token(key, "bob")), (401, {"error": "Permission denied"}), "REST as bob")
    same(get("/users/alice", "&auth=" + unsigned("alice")), (401, {"error": "Could not parse auth token."}), "REST with an unsigned token")
    same(get("/users/alice", "&auth=" + token(other, "alice")), (401, {"error": "Could not parse auth token."}), "REST with a forged token")
    same(get("/users", headers={"Authorization": "Bearer owner"}), (200, {"alice": {"name": "Alice"}, "carol": {"name": "Carol"}}), "REST as owner")

    # A uid canonically equivalent to another (KELVIN SIGN for K, e + U+0301 for \u00e9, GREEK
    # QUESTION MARK for ;) is another user: the rules compare code units (issue 37).
    for owner, impostor in [("Kate", "\u212Aate"), ("\u00e9mile", "e\u0301mile"), ("a;b", "a\u037Eb")]:
        ws = frames.Socket(ns="tokens")
        ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, owner)}})
        ws.send({"r": 2, "a": "p", "b": {"p": f"/users/{owner}", "d": {"name": owner}}})
        same(ws.answer(1)["s"], "ok", f"{owner!r} signs in")
        same(ws.answer(2)["s"], "ok", f"{owner!r} writes their own")
        ws = frames.Socket(ns="tokens")
        ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, impostor)}})
        same(ws.answer(1)["s"], "ok", f"{impostor!r} signs in")
        ws.send({"r": 2, "a": "g", "b": {"p": f"/users/{owner}", "q": {}}})
        same(ws.answer(2)["s"], "permission_denied", f"{impostor!r} reads /users/{owner}")
        ws.send({"r": 3, "a": "p", "b": {"p": f"/users/{owner}", "d": {"name": "overwritten"}}})
        same(ws.answer(3)["s"], "permission_denied", f"{impostor!r} overwrites /users/{owner}")
        quoted = urllib.parse.quote(owner)
        same(get(f"/users/{quoted}", "&auth=" + token(key, impostor)), (401, {"error": "Permission denied"}), f"REST: {impostor!r} reads")
        same(get(f"/users/{quoted}", "&auth=" + token(key, owner)), (200, {"name": owner}), f"REST: {owner!r} reads their own")


def cert_server(directory, port):
    """Serves DIR/jwks.json on PORT, each answer 1.5 s late, and appends a line to
    DIR/fetches.log per request: how many fetches the server made."""
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with open(os.path.join(directory, "fetches.log"), "a") as log:
                log.write(self.path + "\n")
            time.sleep(1.5)
            with open(os.path.join(directory, "jwks.json"), "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def fetches(directory):
    try:
        with open(os.path.join(directory, "fetches.log")) as log:
            return len(log.readlines())
    except FileNotFoundError:
        return 0


def herd(port, directory):
    """40 connections sign in at once with tokens whose keys the server does not know: it
    fetches its keys once, and every one is answered (they waited for that one fetch)."""
    import threading
    frames.PORT = port
    with open(os.path.join(directory, "key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    sockets = [frames.Socket(ns="tokens") for _ in range(40)]
    answers = [None] * len(sockets)

    def sign_in(index):
        sockets[index].send({"r": 1, "a": "auth", "b": {"cred": token(key, f"user{index}", kid=f"unknown-{index}")}})
        answers[index] = sockets[index].answer(1)["s"]

    threads = [threading.Thread(target=sign_in, args=(index,)) for index in range(len(sockets))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    same(answers, ["invalid_token"] * len(sockets), "the answers to the 40 sign-ins")
    same(fetches(directory), 1, "the fetches of the keys for 40 unknown kids at once")


def held(port, directory):
    """Messages sent behind an auth whose keys are being fetched are held, up to --max-unsent
    (1,000,000 here): a client that sends 3 MB behind it is cut off, not held."""
    frames.PORT = port
    with open(os.path.join(directory, "key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    ws = frames.Socket(ns="tokens")
    ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, "alice", kid="unknown")}})
    closed = False
    try:
        for number in range(2, 32):
            ws.send({"r": number, "a": "p", "b": {"p": "/users/alice/blob", "d": "x" * 100000}})
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    same(closed or ws.closes(), True, "the connection that sent 3 MB behind an auth was closed")
    # Another client is served once the fetch is over.
    ws = frames.Socket(ns="tokens")
    ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, "carol")}})
    same(ws.answer(1)["s"], "ok", "a sign-in with a known key")


def expiry(port, directory):
    """Signed tokens that expire 3 s after they are used, their clients silent: the listen gets
    `ac` with expired_token and is revoked, the event stream (auth=) gets auth_revoked and ends."""
    frames.PORT = port
    with open(os.path.join(directory, "key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    now = int(time.time())
    rules = json.dumps({"rules": {".read": "auth != null", ".write": "auth != null"}}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/.settings/rules.json?ns=tokens", data=rules, method="PUT",
                                     headers={"Authorization": "Bearer owner"})
    with urllib.request.urlopen(request, timeout=10) as response:
        same(response.status, 200, "the rules")
    ws = frames.Socket(ns="tokens")
    ws.send({"r": 1, "a": "auth", "b": {"cred": token(key, "alice", issued=now - 10, expires=now + 3)}})
    same(ws.answer(1)["s"], "ok", "alice's sign-in")
    ws.send({"r": 2, "a": "q", "b": {"p": "/room", "h": ""}})
    same(ws.answer(2)["s"], "ok", "alice's listen")
    stream = urllib.request.urlopen(urllib.request.Request(
        f"http://127.0.0.1:{port}/room.json?ns=tokens&auth={token(key, 'bob', issued=now - 10, expires=now + 3)}",
        headers={"Accept": "text/event-stream"}), timeout=10)
    pushes = []
    started = time.time()
    while len(pushes) < 2 and time.time() - started < 10:
        body = json.loads(ws.message())["d"]
        if body.get("a") == "ac":
            pushes.append(("ac", body["b"]["s"]))
        elif body.get("a") == "c":
            pushes.append(("c", body["b"]["p"]))
    same(pushes, [("ac", "expired_token"), ("c", "room")], "what the silent listener got at the token's expiry")
    text = stream.read().decode()  # to the stream's end
    if "event: auth_revoked\ndata: credential is no longer valid\n\n" not in text:
        raise AssertionError(f"the stream: {text!r}")


if __name__ == "__main__":
    if sys.argv[1] == "keys":
        make_keys(sys.argv[2])
    elif sys.argv[1] == "certserver":
        cert_server(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] in ("herd", "held", "expiry"):
        {"herd": herd, "held": held, "expiry": expiry}[sys.argv[1]](int(sys.argv[2]), sys.argv[3])
        print(f"ok {sys.argv[1]}")
    else:
        check(int(sys.argv[2]), sys.argv[3])
        print("ok tokens")
