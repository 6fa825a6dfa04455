-- presence.lua: who is online? The seeds' presence system, watched from a second client.
--
-- Run it:  ember --memory --no-rc examples/presence.lua
--
-- The realtime model in three ideas:
--   * `.info/connected` is a local boolean: each client's own view of its connection. It is
--     never synced; alice's value says nothing about bob's.
--   * `ref:onDisconnect():set(v)` hands a write to the SERVER, to be made when this client's
--     connection ends, whether the client says goodbye (goOffline) or just vanishes (a crash,
--     a dead network). The server notices a vanished client only after a timeout.
--   * `ember.ServerValue.TIMESTAMP` is replaced by the server's clock when the write lands, so
--     `lastOnline` records when the server saw the client go, whatever the client's clock says.
--
-- Here alice and bob each run the presence code; the main client (`db`) plays a third user
-- who watches /status and sees them come and go.

-- A little event log: every listener call is printed and recorded, so that the script can
-- assert the exact sequence of events it saw (and then clear the log).
local log = {}
local function record(line)
  print("  event: " .. line)
  log[#log + 1] = line
end
local function expect(expected, what)
  local got = table.concat(log, "\n")
  local want = table.concat(expected, "\n")
  assert(got == want, what .. ":\nexpected:\n" .. want .. "\ngot:\n" .. got)
  log = {}
end

-- How long the server waits before it decides that a silent connection is dead (Firebase's is
-- about a minute). It applies to connections opened from now on, so set it before bob exists.
assert(ember.exec("server timeout 500").ok)

-- The presence code, as the seeds write it, for a client `client` and a user `name`.
local function startPresence(client, name)
  local statusRef = client:ref("status/" .. name)
  -- The listener fires with false at first (not connected yet), then true once connected,
  -- and again on every change of the connection.
  client:ref(".info/connected"):on("value", function(snap)
    record(name .. " .info/connected = " .. tostring(snap:val()))
    if snap:val() ~= true then return end
    -- Register the disconnect write FIRST, then say "online": if the connection died
    -- between the two, the server would otherwise keep a ghost user online forever.
    statusRef:onDisconnect():set({ online = false, lastOnline = ember.ServerValue.TIMESTAMP })
    statusRef:set({ online = true })
  end)
end

-- The watcher: the main client listens to every user's status.
local status = {}  -- each user's latest status, as main sees it
local offlineAt = {} -- each user's lastOnline, as main saw it when the user went offline
db:ref("status"):on("child_added", function(snap)
  status[snap.key] = snap:val()
  record("main sees " .. snap.key .. " added: online = " .. tostring(snap:child("online"):val()))
end)
db:ref("status"):on("child_changed", function(snap)
  status[snap.key] = snap:val()
  if snap:child("online"):val() == false then offlineAt[snap.key] = snap:child("lastOnline"):val() end
  record("main sees " .. snap.key .. " changed: online = " .. tostring(snap:child("online"):val()))
end)

print("alice and bob start their apps")
local alice = ember.client("alice")
local bob = ember.client("bob")
startPresence(alice, "alice")
startPresence(bob, "bob")
-- Wait until every message in flight has arrived everywhere, then look at what happened.
ember.flush()
-- Each client first hears "not connected" (the listener's first value), then "connected"
-- once its handshake with the server is done; each then writes its status, which the main
-- client hears as child_added.
table.sort(log) -- the two clients connect concurrently; compare the set, not the interleaving
expect({
  "alice .info/connected = false",
  "alice .info/connected = true",
  "bob .info/connected = false",
  "bob .info/connected = true",
  "main sees alice added: online = true",
  "main sees bob added: online = true",
}, "both online")
assert(status.alice.online == true and status.alice.lastOnline == nil)
assert(status.bob.online == true)

-- Server time is local time plus .info/serverTimeOffset. There is no clock skew here, so the
-- offset is about 0 (it is measured on the real clock when connecting: a ms or so either way).
local offset = db:ref(".info/serverTimeOffset"):get():val()
assert(math.type(offset) == "integer" and math.abs(offset) <= 50, "no clock skew, so no offset: " .. tostring(offset))
local function assertNearServerTime(t, who)
  assert(math.type(t) == "integer", who .. ": lastOnline must be an integer number of ms")
  local serverNow = os.time() * 1000 + offset
  assert(math.abs(t - serverNow) < 5000,
    who .. ": lastOnline " .. t .. " is not near the server time " .. serverNow)
end

------------------------------------------------------------------------------------------------
-- (a) A clean close: alice goes offline on purpose. Her client closes the connection, so the
-- server knows at once and runs her onDisconnect write immediately.
print("\n(a) alice goes offline cleanly (goOffline)")
alice:goOffline()
ember.flush()
expect({
  "alice .info/connected = false",
  "main sees alice changed: online = false",
}, "alice's clean close")
assert(status.alice.online == false)
assertNearServerTime(status.alice.lastOnline, "alice")
local aliceLeft = status.alice.lastOnline
print("  alice's lastOnline (server time, ms): " .. aliceLeft)

-- When she comes back, her .info/connected listener fires with true, and the same code
-- registers a fresh onDisconnect and marks her online again. (The server forgot the old
-- onDisconnect when it ran it: each one fires once.)
print("alice comes back (goOnline)")
alice:goOnline()
ember.flush()
expect({
  "alice .info/connected = true",
  "main sees alice changed: online = true",
}, "alice back online")
-- `set` replaced the whole status, so lastOnline is gone.
assert(status.alice.online == true and status.alice.lastOnline == nil)

------------------------------------------------------------------------------------------------
-- (b) A silent drop: bob's network dies without a goodbye. His own client notices (its
-- .info/connected turns false) but the server does not: for the server, bob is still there
-- until the connection has been silent for the timeout (500 ms here).
print("\n(b) bob's connection drops silently")
-- Note the server's time just before the drop, to measure how long the server takes to notice.
-- (A TIMESTAMP write, waited for, then read back: the server's clock, not ours.)
local probe = db:ref("probe")
assert(probe:set(ember.ServerValue.TIMESTAMP):wait())
local droppedAt = probe:get():val()
probe:remove()
assert(ember.exec("as bob drop").ok)
ember.flush()
expect({ "bob .info/connected = false" }, "bob's drop, seen by bob")
-- The main client still sees bob online: the server has not noticed yet.
assert(status.bob.online == true)
assert(db:ref("status/bob"):get():val().online == true, "the server still thinks bob is online")
print("  the server still has bob online")

-- Let time pass (listeners fire while the script sleeps) until the server gives up on the
-- connection and runs bob's onDisconnect.
local function sleepUntil(condition, limit)
  local waited = 0
  while not condition() and waited < limit do
    ember.sleep(20)
    waited = waited + 20
  end
  assert(condition(), "waited " .. limit .. " ms in vain")
end
sleepUntil(function() return offlineAt.bob ~= nil end, 2000)
local bobLeft = offlineAt.bob
assertNearServerTime(bobLeft, "bob")
print("  bob's lastOnline (server time, ms): " .. bobLeft .. ", " .. (bobLeft - droppedAt) .. " ms after the drop")
-- The server ran the onDisconnect only once the connection had been silent for the timeout.
assert(bobLeft - droppedAt >= 490, "noticed too early")
-- By the server's clock, bob left after alice's first departure.
assert(bobLeft >= aliceLeft)

-- Meanwhile bob's client retries (after a back-off of 0.5 to 1 s, as the Firebase SDKs do);
-- when it reconnects, his presence code runs again and he is back.
sleepUntil(function() return status.bob.online == true end, 3000)
expect({
  "main sees bob changed: online = false",
  "bob .info/connected = true",
  "main sees bob changed: online = true",
}, "the server noticed bob's drop; bob reconnected by himself")
assert(status.bob.online == true and status.bob.lastOnline == nil)

-- What the server holds at the end.
local final = db:ref("status"):get()
print("\nfinal /status on the server:\n" .. tostring(final))
assert(final:numChildren() == 2)
assert(final:child("alice/online"):val() == true)
assert(final:child("bob/online"):val() == true)

print("ok")
