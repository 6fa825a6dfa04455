"""What a signed-out or impostor client must not learn or do against `ember serve` with rules in
force (issue 37): strings that are canonically equivalent are different users and different
keys; a hash-guarded put tells nothing the rules refuse; reading an unknown namespace creates
nothing. Python's standard library, through `frames.Socket` (the realtime protocol) and
`http.client` (REST).

Usage: security.py PORT SCENARIO   (prints "ok SCENARIO" when it passes)
"""
import base64
import http.client
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames  # noqa: E402
from frames import Socket, same  # noqa: E402

ADMIN = {"Authorization": "Bearer owner"}

# Owners and impostors whose uids are canonically equivalent to theirs (Unicode), never equal.
IMPOSTORS = [("Kate", "\u212Aate"), ("\u00e9mile", "e\u0301mile"), ("a;b", "a\u037Eb")]


def mock_token(uid):
    """An unsigned token, as the Web SDK's createMockUserToken makes (iat 0: it never expires)."""
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return part({"alg": "none", "type": "JWT"}) + "." + part(
        {"iss": "https://securetoken.google.com/demo", "aud": "demo", "iat": 0, "exp": 3600, "sub": uid, "user_id": uid}) + "."


def request(method, path, body=None, headers=None):
    """One HTTP request: (status, parsed body, headers). `path` may hold any character."""
    connection = http.client.HTTPConnection("127.0.0.1", frames.PORT, timeout=30)
    connection.request(method, urllib.parse.quote(path, safe="/?&=.:"), body=None if body is None else json.dumps(body),
                       headers=headers or {})
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, json.loads(text) if text else None, dict(response.getheaders())


def rest(method, path, body=None, headers=None):
    status, value, _ = request(method, path, body, headers)
    return status, value


def canonical():
    """Under `"$uid === auth.uid"`, an impostor whose uid is canonically equivalent to the owner's
    reads and writes nothing of the owner's (realtime and REST); and keys that are canonically
    equivalent are siblings, not one child."""
    for owner, _ in IMPOSTORS:
        same(rest("PUT", f"/users/{owner}.json?ns=canon", {"secret": owner}, ADMIN), (200, {"secret": owner}), f"the owner {owner!r}'s data")
    for number, (owner, impostor) in enumerate(IMPOSTORS):
        ws = Socket(ns="canon")
        ws.send({"r": 1, "a": "auth", "b": {"cred": mock_token(impostor)}})
        same(ws.answer(1)["s"], "ok", f"{impostor!r} signs in")
        ws.send({"r": 2, "a": "g", "b": {"p": f"/users/{owner}", "q": {}}})
        same(ws.answer(2)["s"], "permission_denied", f"{impostor!r} gets /users/{owner}")
        ws.send({"r": 3, "a": "q", "b": {"p": f"/users/{owner}", "h": ""}})
        same(ws.answer(3)["s"], "permission_denied", f"{impostor!r} listens to /users/{owner}")
        ws.send({"r": 4, "a": "p", "b": {"p": f"/users/{owner}", "d": {"secret": "overwritten"}}})
        same(ws.answer(4)["s"], "permission_denied", f"{impostor!r} overwrites /users/{owner}")
        ws.send({"r": 5, "a": "m", "b": {"p": f"/users/{owner}", "d": {"secret": "overwritten"}}})
        same(ws.answer(5)["s"], "permission_denied", f"{impostor!r} updates /users/{owner}")
        ws.send({"r": 6, "a": "p", "b": {"p": f"/users/{impostor}", "d": {"secret": impostor}}})
        same(ws.answer(6)["s"], "ok", f"{impostor!r} writes their own")
        token = mock_token(impostor)
        same(rest("GET", f"/users/{owner}.json?ns=canon&auth={token}"), (401, {"error": "Permission denied"}), f"REST: {impostor!r} reads")
        same(rest("PUT", f"/users/{owner}.json?ns=canon&auth={token}", {"secret": "overwritten"}), (401, {"error": "Permission denied"}),
             f"REST: {impostor!r} overwrites")
        same(rest("GET", f"/users/{owner}.json?ns=canon&auth={mock_token(owner)}"), (200, {"secret": owner}), f"REST: {owner!r} reads their own")
    expected = {}
    for owner, impostor in IMPOSTORS:
        expected[owner] = {"secret": owner}
        expected[impostor] = {"secret": impostor}
    same(rest("GET", "/users.json?ns=canon", headers=ADMIN), (200, expected), "every user's data, apart")
    siblings = {"Kate": 1, "\u212Aate": 2, "\u00e9mile": 3, "e\u0301mile": 4, "a;b": 5, "a\u037Eb": 6}
    same(rest("PUT", "/siblings.json?ns=canon", siblings, ADMIN), (200, siblings), "six siblings written")
    same(rest("GET", "/siblings.json?ns=canon", headers=ADMIN), (200, siblings), "six siblings read back")
    same(rest("GET", "/siblings.json?ns=canon&shallow=true", headers=ADMIN)[1], {key: True for key in siblings}, "six keys")


def hash_oracle():
    """Under `.read` and `.write` false, a hash-guarded put is refused by the rules whatever the
    hash: a wrong guess, the right one and "" (nothing there) all get `permission_denied`, over
    the realtime protocol and REST (`if-match`); the administrator's still get `datastale`/412."""
    same(rest("PUT", "/admin/pin.json?ns=oracle", 1234, ADMIN), (200, 1234), "the pin")
    same(rest("PUT", "/public/n.json?ns=oracle", 7, ADMIN), (200, 7), "a readable value")
    status, _, headers = request("GET", "/admin/pin.json?ns=oracle", headers={**ADMIN, "X-Firebase-ETag": "true"})
    right = {name.lower(): value for name, value in headers.items()}["etag"]
    ws = Socket(ns="oracle")
    answers = []
    for number, guess in enumerate(["wrong", right, ""], start=1):
        ws.send({"r": number, "a": "p", "b": {"p": "/admin/pin", "d": 0, "h": guess}})
        answers.append(ws.answer(number))
    same(answers[0]["s"], "permission_denied", "a signed-out put guarded by a wrong hash")
    same(answers[1:], [answers[0], answers[0]], "the right hash and an empty one are answered alike")
    ws.send({"r": 4, "a": "p", "b": {"p": "/admin/none", "d": 0, "h": ""}})
    ws.send({"r": 5, "a": "p", "b": {"p": "/admin/none", "d": 0, "h": "wrong"}})
    same([ws.answer(4)["s"], ws.answer(5)["s"]], ["permission_denied"] * 2, "where nothing is, \"\" and a wrong hash alike")
    for path, expected in [("/admin/pin", right), ("/public/n", None)]:
        statuses = []
        for guess in ["wrong", "null_etag", expected]:
            if guess is None:
                continue
            statuses.append(rest("PUT", f"{path}.json?ns=oracle", 0, {"If-Match": guess}))
        same(statuses, [(401, {"error": "Permission denied"})] * len(statuses), f"REST PUTs at {path} with if-match")
    same(rest("GET", "/admin/pin.json?ns=oracle", headers=ADMIN), (200, 1234), "the pin is unchanged")
    # The administrator's conditional writes are still conditional.
    same(rest("PUT", "/admin/pin.json?ns=oracle", 0, {**ADMIN, "If-Match": "wrong"}), (412, 1234), "the administrator's wrong guess")
    ws.send({"r": 6, "a": "gauth", "b": {"cred": "owner"}})
    same(ws.answer(6)["s"], "ok", "gauth")
    ws.send({"r": 7, "a": "p", "b": {"p": "/admin/pin", "d": 0, "h": "wrong"}})
    same(ws.answer(7)["s"], "datastale", "the administrator's put guarded by a wrong hash")


def refused_patch():
    """Under deny-all rules, a signed-out REST PATCH of 1,000,000 paths (14 MB) is refused
    without being parsed: `permission_denied` (401), and the server answers on."""
    body = json.dumps({f"p{i}": 0 for i in range(1_000_000)})
    connection = http.client.HTTPConnection("127.0.0.1", frames.PORT, timeout=120)
    connection.request("PATCH", "/.json", body=body)
    response = connection.getresponse()
    same((response.status, json.loads(response.read())), (401, {"error": "Permission denied"}), "the refused PATCH")
    connection.close()
    same(rest("GET", "/x.json", headers=ADMIN), (200, None), "a read after it")


def refused_merge():
    """Under rules that refuse signed-out writes everywhere but let a signed-in user write
    `/mine` and anyone write `/open`: a signed-out realtime merge of 1,000,000 paths (14 MB) at
    `/closed`, where the rules refuse every write whatever it holds, is refused unread
    (`permission_denied`), and what was sent behind it is answered in order; a
    large merge the rules may take is read whole and applied, also in order, including one
    sent right after the `auth` that allows it."""
    ws = Socket(ns="merges")
    ws.sock.settimeout(120)
    big = {f"p{i}": 0 for i in range(1_000_000)}
    ws.send({"r": 1, "a": "m", "b": {"p": "/closed", "d": big}})
    ws.send({"r": 2, "a": "p", "b": {"p": "/open/after", "d": "second"}})
    same(ws.answer(1)["s"], "permission_denied", "the refused merge of a million paths")
    same(ws.answer(2)["s"], "ok", "the put sent behind it")
    # At the root, where the rules grant `/open`: refused unread all the same, one of its first
    # changes being refused whatever it holds (an update is refused whole when one path is).
    ws.send({"r": 8, "a": "m", "b": {"p": "/", "d": {"open/x": 1, **big}}})
    same(ws.answer(8)["s"], "permission_denied", "a merge at the root of a million paths, the first one allowed")
    # 20,000 paths (about 300 KB: read without its data first), where the rules may take it.
    fine = {f"k{i}": i for i in range(20_000)}
    ws.send({"r": 3, "a": "m", "b": {"p": "/open/fine", "d": fine}})
    ws.send({"r": 4, "a": "p", "b": {"p": "/open/fine/k7", "d": "overwritten"}})
    same([ws.answer(3)["s"], ws.answer(4)["s"]], ["ok", "ok"], "a large merge the rules take, then a put over one of its paths")
    # Refused while signed out; taken right after an auth sent without waiting for its answer.
    ws.send({"r": 5, "a": "m", "b": {"p": "/mine", "d": fine}})
    ws.send({"r": 6, "a": "auth", "b": {"cred": mock_token("ada")}})
    ws.send({"r": 7, "a": "m", "b": {"p": "/mine", "d": fine}})
    same([ws.answer(5)["s"], ws.answer(6)["s"], ws.answer(7)["s"]], ["permission_denied", "ok", "ok"],
         "signed out, the auth, signed in")
    status, value = rest("GET", "/open.json?ns=merges", headers=ADMIN)
    same((status, len(value["fine"]), value["fine"]["k7"], value["fine"]["k19999"], value["after"]),
         (200, 20_000, "overwritten", 19_999, "second"), "what the accepted writes left")
    same(len(rest("GET", "/mine.json?ns=merges", headers=ADMIN)[1]), 20_000, "the signed-in merge")
    same(rest("GET", "/closed.json?ns=merges", headers=ADMIN), (200, None), "nothing of the refused merge")
    same(rest("GET", "/p1.json?ns=merges", headers=ADMIN), (200, None), "nothing of the refused merge at the root")
    same(rest("GET", "/open/x.json?ns=merges", headers=ADMIN), (200, None), "not even its allowed change")


def unknown_namespaces():
    """With rules in force, reading a namespace that does not exist answers as an empty database
    would (the rules decide; `null` where they allow) and creates nothing; signed-out and
    signed-in clients create none by writing or connecting either; 80 probes later the
    administrator's write still creates the namespace it names."""
    for number in range(80):
        same(rest("GET", f"/secret.json?ns=probe{number}"), (401, {"error": "Permission denied"}), "a signed-out read of an unknown namespace")
        same(rest("GET", f"/open/x.json?ns=probe{number}"), (200, None), "a read the rules allow, of an unknown namespace")
    same(rest("PUT", "/open/x.json?ns=probew", 1), (401, {"error": "Permission denied"}), "a signed-out write to an unknown namespace")
    same(rest("PUT", f"/open/x.json?ns=probeu&auth={mock_token('alice')}", 1), (401, {"error": "Permission denied"}), "a user's write")
    for cred in [None, mock_token("alice")]:
        ws = Socket(ns="probews")
        if cred:
            ws.send({"r": 1, "a": "auth", "b": {"cred": cred}})
            same(ws.answer(1)["s"], "ok", "a user signs in on an unknown namespace")
        ws.send({"r": 2, "a": "g", "b": {"p": "/open", "q": {}}})
        same(ws.answer(2), {"s": "ok", "d": None}, "a get on an unknown namespace")
        ws.send({"r": 3, "a": "q", "b": {"p": "/open", "h": ""}})
        same(ws.answer(3)["s"], "ok", "a listen on an unknown namespace")
        ws.send({"r": 4, "a": "p", "b": {"p": "/open/x", "d": 1}})
        same(ws.answer(4)["s"], "permission_denied", "a put on an unknown namespace")
        ws.send({"r": 5, "a": "g", "b": {"p": "/secret", "q": {}}})
        same(ws.answer(5)["s"], "permission_denied", "a get the rules refuse on an unknown namespace")
    same(rest("GET", "/.inspect/databases.json"), (401, {"error": "Permission denied"}),
         "with rules in force, a signed-out client is not told which namespaces exist")
    same(rest("GET", "/.inspect/databases.json", headers={"Authorization": f"Bearer {mock_token('ada')}"}),
         (401, {"error": "Permission denied"}), "nor a signed-in one")
    names = rest("GET", "/.inspect/databases.json", headers=ADMIN)[1]
    same([entry["name"] for entry in names], ["default", "listed"], "the namespaces open (--ns default --ns listed)")
    same(rest("PUT", "/a.json?ns=realapp", {"b": 1}, ADMIN), (200, {"b": 1}), "the administrator creates realapp")
    # Over WebSocket, the administrator's gauth on an unknown namespace creates it and closes
    # the connection unanswered: the client connects again and finds it.
    ws = Socket(ns="wsapp")
    ws.send({"r": 1, "a": "gauth", "b": {"cred": "owner"}})
    ws.send({"r": 2, "a": "p", "b": {"p": "/a", "d": 2}})
    if not ws.closes():
        raise AssertionError("the administrator's gauth on an unknown namespace does not close the connection")
    ws = Socket(ns="wsapp")
    ws.send({"r": 1, "a": "gauth", "b": {"cred": "owner"}})
    same(ws.answer(1)["s"], "ok", "gauth on the namespace created")
    ws.send({"r": 2, "a": "p", "b": {"p": "/a", "d": 2}})
    same(ws.answer(2)["s"], "ok", "the administrator's write on the namespace created")
    same(rest("GET", "/a.json?ns=realapp", headers=ADMIN), (200, {"b": 1}), "realapp read back")


def stream_lines(response, count, seconds):
    """Up to `count` lines of an event stream, or fewer when it ends; (lines, ended)."""
    import time
    lines, deadline = [], time.time() + seconds
    while len(lines) < count and time.time() < deadline:
        line = response.readline()
        if not line:
            return lines, True
        if line.strip():
            lines.append(line.decode().strip())
    return lines, False


def stream_on_creation():
    """A stream and a realtime listen opened on a namespace that does not exist yet end when
    the administrator creates it (they were on the empty database that answers for it, blind to
    its data): the clients connect again and read the namespace's data."""
    import time
    stream = http.client.HTTPConnection("127.0.0.1", frames.PORT, timeout=10)
    stream.request("GET", "/x.json?ns=later", headers={"Accept": "text/event-stream"})
    response = stream.getresponse()
    same(response.status, 200, "a stream on a namespace that does not exist")
    lines, ended = stream_lines(response, 2, 5)
    same((lines, ended), (["event: put", 'data: {"path":"/","data":null}'], False), "its first event")
    ws = Socket(ns="later")
    ws.send({"r": 1, "a": "q", "b": {"p": "/x", "h": ""}})
    same(ws.answer(1)["s"], "ok", "a listen on it")
    same(rest("PUT", "/x.json?ns=later", "hello", ADMIN), (200, "hello"), "the administrator creates the namespace")
    started = time.time()
    lines, ended = stream_lines(response, 10, 5)
    same(ended, True, f"the stream ends when the namespace is created (read {lines})")
    if not ws.closes():
        raise AssertionError("the realtime connection stays on the empty database")
    if time.time() - started > 5:
        raise AssertionError("they ended late")
    again = http.client.HTTPConnection("127.0.0.1", frames.PORT, timeout=10)
    again.request("GET", "/x.json?ns=later", headers={"Accept": "text/event-stream"})
    lines, _ = stream_lines(again.getresponse(), 2, 5)
    same(lines, ["event: put", 'data: {"path":"/","data":"hello"}'], "a stream opened again reads the data")
    ws = Socket(ns="later")
    ws.send({"r": 1, "a": "g", "b": {"p": "/x", "q": {}}})
    same(ws.answer(1), {"s": "ok", "d": "hello"}, "a connection opened again reads it")


def after_restart():
    """After a restart: realapp holds its data; the probes created nothing then either."""
    same(rest("GET", "/a.json?ns=realapp", headers=ADMIN), (200, {"b": 1}), "realapp after a restart")
    same(rest("GET", "/open/x.json?ns=probe1"), (200, None), "an unknown namespace after a restart")
    names = rest("GET", "/.inspect/databases.json", headers=ADMIN)[1]
    same([entry["name"] for entry in names], ["default", "listed", "realapp"], "the namespaces open")
    same(rest("GET", "/a.json?ns=wsapp", headers=ADMIN), (200, 2), "wsapp after a restart")


SCENARIOS = {"canonical": canonical, "hashOracle": hash_oracle, "refusedPatch": refused_patch, "refusedMerge": refused_merge, "unknownNamespaces": unknown_namespaces, "afterRestart": after_restart, "streamOnCreation": stream_on_creation}

if __name__ == "__main__":
    frames.PORT = int(sys.argv[1])
    SCENARIOS[sys.argv[2]]()
    print(f"ok {sys.argv[2]}")
