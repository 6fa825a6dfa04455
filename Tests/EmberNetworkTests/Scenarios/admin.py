"""The Python Admin SDK (firebase-admin from PyPI) against a real `ember serve`.

Run as `python admin.py PORT NAMESPACE` with FIREBASE_DATABASE_EMULATOR_HOST=127.0.0.1:PORT, as
Firebase's own integration suite runs against the emulator. Covers what that suite relies on
(../shared/reference/firebase-network.md §4.5): reads, shallow reads, ETags, writes, push,
multi-path updates, conditional writes, transactions, every query, listen, rules upload and
auth_variable_override. Prints "ok admin" and exits 0, or raises.
"""
import json
import sys
import threading
import time

import firebase_admin
from firebase_admin import db, exceptions

port, namespace = sys.argv[1], sys.argv[2]
url = f"https://{namespace}.firebaseio.com"
admin_app = firebase_admin.initialize_app(options={"databaseURL": url, "projectId": "demo-ember"}, name="admin")

DINOSAURS = {
    "dinosaurs": {
        "bruhathkayosaurus": {"appeared": -70000000, "height": 25, "length": 44, "ratings": {"pos": 1}},
        "lambeosaurus": {"appeared": -76000000, "height": 2.1, "length": 12.5, "ratings": {"pos": 2}},
        "linhenykus": {"appeared": -85000000, "height": 0.6, "length": 1, "ratings": {"pos": 3}},
        "pterodactyl": {"appeared": -150000000, "height": 0.6, "length": 0.8, "ratings": {"pos": 4}},
        "stegosaurus": {"appeared": -155000000, "height": 4, "length": 9, "ratings": {"pos": 5}},
        "triceratops": {"appeared": -68000000, "height": 3, "length": 8, "ratings": {"pos": 6}},
    },
    "scores": {
        "bruhathkayosaurus": 55, "lambeosaurus": 21, "linhenykus": 80,
        "pterodactyl": 93, "stegosaurus": 5, "triceratops": 22,
    },
}


def expect(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def denied(call, what):
    try:
        call()
    except exceptions.UnauthenticatedError as error:
        expect(str(error), "Permission denied", f"{what}: the message")
        return
    raise AssertionError(f"{what} was allowed")


# Rules: read the default ones (strict JSON), then upload rules with indexes, wildcards and auth.
client = db.reference("/", app=admin_app)._client
current = client.body("get", "/.settings/rules.json", params="format=strict")
expect("rules" in current, True, "the rules document has rules")
client.request("put", "/.settings/rules.json", json={"rules": {
    "dinodb": {"dinosaurs": {".indexOn": ["height", "ratings/pos"]}, "scores": {".indexOn": ".value"}},
    "protected": {"$uid": {".read": "auth != null", ".write": "$uid === auth.uid"}},
    "admin": {".read": "false", ".write": "false"},
    "public": {".read": "true"},
}})

# Reads and writes.
root = db.reference("dinodb", app=admin_app)
root.set(DINOSAURS)
expect(root.get(), DINOSAURS, "the whole value")
expect(root.get(shallow=True), {"dinosaurs": True, "scores": True}, "a shallow read")
value, etag = root.get(etag=True)
expect(value, DINOSAURS, "the value with its ETag")
expect(isinstance(etag, str) and etag != "", True, "an ETag")
changed, value, new_etag = root.get_if_changed("wrong_etag")
expect((changed, value, new_etag), (True, DINOSAURS, etag), "get_if_changed with a wrong ETag")
expect(root.get_if_changed(etag), (False, None, None), "get_if_changed with the ETag")
expect(root.child("dinosaurs/linhenykus/height").get(), 0.6, "a grandchild")
expect(root.child("nothing/here").get(), None, "a missing child")

users = db.reference("users", app=admin_app)
empty = users.push()
expect(empty.get(), "", "push() stores the empty string")
expect(len(empty.key), 20, "a push id")
alice = users.push({"name": "Alice", "since": 1800})
bob = users.push({"name": "Bob", "since": 1900})
users.update({f"{alice.key}/since": 1840, f"{bob.key}/since": 1946})
expect(alice.child("since").get(), 1840, "a multi-path update")
alice.update({"temp": True})
alice.update({"temp": None})
expect(alice.get(), {"name": "Alice", "since": 1840}, "update with None deletes")

counter = db.reference("counter", app=admin_app)
counter.set(42)
ok, value, tag = counter.set_if_unchanged("invalid-etag", 0)
expect((ok, value), (False, 42), "set_if_unchanged with a wrong ETag")
ok, value, new_tag = counter.set_if_unchanged(tag, 43)
expect((ok, value, new_tag != tag), (True, 43, True), "set_if_unchanged with the ETag")
expect(counter.transaction(lambda current: current + 1), 44, "a transaction on a number")
profile = db.reference("profile", app=admin_app)
profile.set({"visits": 1})
expect(profile.transaction(lambda current: {"visits": current["visits"] + 1}), {"visits": 2}, "a transaction on an object")
# Transactions from several threads: no update lost.
counter.set(0)
threads = [threading.Thread(target=lambda: [counter.transaction(lambda c: (c or 0) + 1) for _ in range(5)]) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
expect(counter.get(), 20, "transactions from four threads")
profile.delete()
expect(profile.get(), None, "deleted")

# Every query the SDK builds (it sorts the results itself).
dinos = root.child("dinosaurs")
expect(list(dinos.order_by_child("height").get().keys()),
       ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops", "stegosaurus", "bruhathkayosaurus"], "by height")
expect(list(dinos.order_by_child("height").limit_to_first(2).get().keys()), ["linhenykus", "pterodactyl"], "limit_to_first")
expect(len(dinos.order_by_child("height").limit_to_first(10).get()), 6, "limit_to_first past the end")
expect(list(dinos.order_by_child("height").limit_to_last(2).get().keys()), ["stegosaurus", "bruhathkayosaurus"], "limit_to_last")
expect(list(dinos.order_by_child("height").start_at(3.5).get().keys()), ["stegosaurus", "bruhathkayosaurus"], "start_at")
expect(len(dinos.order_by_child("height").end_at(3.5).get()), 4, "end_at")
expect(list(dinos.order_by_child("height").start_at(2.5).end_at(5).get().keys()), ["triceratops", "stegosaurus"], "a range")
expect(list(dinos.order_by_child("height").equal_to(0.6).get().keys()), ["linhenykus", "pterodactyl"], "equal_to")
expect(list(dinos.order_by_child("ratings/pos").start_at(4).get().keys()),
       ["pterodactyl", "stegosaurus", "triceratops"], "a nested child")
expect(list(dinos.order_by_key().limit_to_first(2).get().keys()), ["bruhathkayosaurus", "lambeosaurus"], "by key")
expect(list(dinos.order_by_key().start_at("s").get().keys()), ["stegosaurus", "triceratops"], "a key range")
scores = root.child("scores")
expect(list(scores.order_by_value().get().keys()),
       ["stegosaurus", "lambeosaurus", "triceratops", "bruhathkayosaurus", "linhenykus", "pterodactyl"], "by value")
expect(list(scores.order_by_value().limit_to_last(2).get().keys()), ["linhenykus", "pterodactyl"], "by value, the last two")

# listen: the first event is the whole value, then a push's put.
events = []
registration = db.reference("feed", app=admin_app).listen(events.append)
try:
    deadline = time.time() + 10
    while len(events) < 1 and time.time() < deadline:
        time.sleep(0.02)
    expect((events[0].event_type, events[0].path, events[0].data), ("put", "/", None), "the first event")
    pushed = db.reference("feed", app=admin_app).push("")
    while len(events) < 2 and time.time() < deadline:
        time.sleep(0.02)
    expect(len(events), 2, "two events")
    expect((events[1].event_type, events[1].path, events[1].data), ("put", f"/{pushed.key}", ""), "the push's event")
finally:
    registration.close()

# auth_variable_override: the rules apply as that user, or as nobody.
db.reference("protected/user1", app=admin_app).set("one")
db.reference("protected/user2", app=admin_app).set("two")
db.reference("public/notice", app=admin_app).set("hello")
user1 = firebase_admin.initialize_app(
    options={"databaseURL": url, "databaseAuthVariableOverride": {"uid": "user1"}}, name="user1")
denied(lambda: db.reference("admin", app=user1).get(), "user1 reading admin")
denied(lambda: db.reference("admin", app=user1).set("x"), "user1 writing admin")
expect(db.reference("protected/user2", app=user1).get(), "two", "user1 reading user2")
denied(lambda: db.reference("protected/user2", app=user1).set("x"), "user1 writing user2")
db.reference("protected/user1", app=user1).set("mine")
expect(db.reference("protected/user1", app=user1).get(), "mine", "user1 writing its own")
denied(lambda: db.reference("protected", app=user1).order_by_key().limit_to_first(2).get(), "a query above the rules")
nobody = firebase_admin.initialize_app(options={"databaseURL": url, "databaseAuthVariableOverride": None}, name="nobody")
expect(db.reference("public", app=nobody).get(), {"notice": "hello"}, "a public read")
denied(lambda: db.reference("protected/user1", app=nobody).get(), "an unauthenticated read")
denied(lambda: db.reference("admin", app=nobody).get(), "an unauthenticated read of admin")

print("ok admin")
