-- rules.lua: security rules and auth. A chat where users write only their own messages, every
-- message has a checked shape, and a moderator (an `admin` claim) may delete any of them.
--
-- Run it:  ember --memory --no-rc examples/rules.lua
--
-- What it shows:
--   * the server is the guard: every read and write is checked against the rules as the user
--     the client signed in as (`auth`), and a denied write is undone on the writer, with events,
--     and never reaches anyone else;
--   * `.read`/`.write` cascade down (a grant cannot be taken back below it) and are not filters:
--     reading /rooms/lobby needs a rule that allows exactly that;
--   * `.validate` checks the shape of the data as it would be after the write (`newData`), with
--     server values (`now`) already resolved;
--   * `explain` says which rules ran, what each sub-expression was, and why.

local rules = [[
{
  "rules": {
    "rooms": {
      "$room": {
        "messages": {
          // Signed-in users read a room's messages (a listen of the whole list).
          ".read": "auth != null",
          "$id": {
            // Post a new message as yourself; only a moderator changes or deletes one.
            ".write": "auth != null && (!data.exists() && newData.child('uid').val() === auth.uid || auth.token.admin === true)",
            ".validate": "newData.hasChildren(['uid', 'text', 'at'])",
            "text": {".validate": "newData.isString() && newData.val().length > 0 && newData.val().length <= 140"},
            "at": {".validate": "newData.val() === now"},
            "$other": {".validate": "$other === 'uid'"}
          }
        }
      }
    }
  }
}
]]
ember.rules(rules)
assert(ember.rules() == rules, "the rules in force are the ones loaded")

-- The clients, each signed in as someone (a token that holds an hour, as Firebase's do).
local alice = ember.client("alice", {auth = {uid = "alice", email = "alice@example.com"}})
local bob = ember.client("bob", {auth = {uid = "bob"}})
local mod = ember.client("mod", {auth = {uid = "mod", admin = true}})
local anon = ember.client("anon") -- not signed in: the rules see auth == null
assert(alice.uid == "alice" and anon.uid == nil)

local lobby = "rooms/lobby/messages"
local function post(client, message)
  message.at = message.at or ember.ServerValue.TIMESTAMP
  return client:ref(lobby):push():set(message):wait()
end

print("1. signed in, alice and bob follow the lobby; not signed in, anon is refused")
local seen, alices = {}, {}
local function note(event) return function(err) seen[#seen + 1] = event .. " cancelled: " .. err.code end end
bob:ref(lobby):on("child_added", function(snap) seen[#seen + 1] = "added " .. snap:child("text"):val() end, note("added"))
bob:ref(lobby):on("child_removed", function(snap) seen[#seen + 1] = "removed " .. snap:child("text"):val() end, note("removed"))
alice:ref(lobby):on("child_added", function(snap) alices[#alices + 1] = snap:child("text"):val() end)
local refused
anon:ref(lobby):on("child_added", function() error("anon must not see messages") end, function(err) refused = err end)
ember.flush()
assert(refused and refused.code == "permission_denied", "anon's listen is cancelled")
print("  anon: " .. refused.message)

print("2. alice posts as herself; the server stamps the time, and .validate checks it")
local ok, err = post(alice, {uid = "alice", text = "hello, lobby"})
assert(ok, tostring(err))
ember.flush()
assert(seen[1] == "added hello, lobby", "bob sees alice's message")

print("3. what the rules refuse, each with its reason")
local function refusedWith(what, client, message)
  local done, e = post(client, message)
  assert(not done and e.code == "permission_denied", what .. " must be refused")
  local why = ember.exec("as " .. client.name .. " explain")
  assert(why.allowed == false)
  print("  " .. what .. ": " .. why.decisions[#why.decisions].summary)
end
refusedWith("bob posting as alice", bob, {uid = "alice", text = "it's me, alice"})
refusedWith("an empty message", bob, {uid = "bob", text = ""})
refusedWith("a message with an extra field", bob, {uid = "bob", text = "hi", mood = "happy"})
refusedWith("a message dated by the client", bob, {uid = "bob", text = "hi", at = 1})
refusedWith("a message from nobody", anon, {uid = "anon", text = "hi"})

-- Bob saw each of his refused messages arrive (his client shows a write at once) and leave
-- again when the server refused it; alice saw none of them.
assert(table.concat(seen, "; ") == "added hello, lobby; added it's me, alice; removed it's me, alice; added ; removed ; "
  .. "added hi; removed hi; added hi; removed hi", table.concat(seen, "; "))
assert(#alices == 1 and alices[1] == "hello, lobby", "alice saw only her own message")
seen = {}

print("4. a denied write is undone on the writer, with events, and never reaches anyone else")
local first
for key in pairs(alice:ref(lobby):get():val()) do first = key end
local mine = {}
alice:ref(lobby .. "/" .. first .. "/text"):on("value", function(snap) mine[#mine + 1] = snap:val() end)
ember.flush()
local _, editErr = bob:ref(lobby .. "/" .. first .. "/text"):set("edited by bob"):wait()
assert(editErr.code == "permission_denied")
ember.flush()
assert(#mine == 1 and mine[1] == "hello, lobby", "alice never saw bob's edit")
local bobsView = bob:ref(lobby .. "/" .. first .. "/text"):once("value")
assert(bobsView:val() == "hello, lobby", "bob's optimistic edit was undone: " .. tostring(bobsView:val()))

print("5. the moderator's admin claim lets it delete any message")
assert(mod:ref(lobby .. "/" .. first):remove():wait())
ember.flush()
assert(seen[#seen] == "removed hello, lobby", "bob sees the message go")

print("6. signing out takes the rights away: bob's listens are cancelled, his writes refused")
bob:signOut()
local _, outErr = post(bob, {uid = "bob", text = "still here?"})
assert(outErr.code == "permission_denied")
-- Bob's client shows his write at once ("added still here?"); then the server, which sees him
-- signed out, cancels his listens before it refuses the write.
assert(table.concat(seen, "; ") == "removed hello, lobby; added still here?; added cancelled: permission_denied; removed cancelled: permission_denied",
  table.concat(seen, "; "))
print("ok")
