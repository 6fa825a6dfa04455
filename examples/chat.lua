-- chat.lua: a chat room: push ids, and a limitToLast(3) window that follows the conversation.
--
-- Run it:  ember --memory --no-rc examples/chat.lua
--
-- What it shows:
--   * push ids: ref:push() (or ember.pushId()) makes a 20-character key that starts with the
--     time, so keys sort in creation order: a list of pushed children, ordered by key, is in
--     chronological order, and many clients can append at once without conflicts;
--   * a limited query is a window that keeps its size: with limitToLast(3), each new message
--     enters (child_added) and pushes the oldest out (child_removed); when a message inside the
--     window is deleted, the one before it comes back in.

-- Every listener call is printed and recorded; expect() compares the record with the exact
-- sequence wanted, then clears it.
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

-- Compare strings byte by byte. (Lua's `<` on strings follows the C library's collation,
-- which a locale may change; keys sort by their bytes.)
local function bytesBefore(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

------------------------------------------------------------------------------------------------
print("1. push ids")
-- The alphabet of push ids, in ascending byte order: 64 characters, 6 bits each.
local ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
local ids = {}
for i = 1, 100 do ids[i] = ember.pushId() end -- a tight loop: many in the same millisecond
for i, id in ipairs(ids) do
  assert(#id == 20, "a push id has 20 characters: " .. id)
  assert(not id:find("[^%-%w_]"), "only the push id alphabet: " .. id)
  if i > 1 then assert(bytesBefore(ids[i - 1], id), "push ids increase: " .. ids[i - 1] .. " " .. id) end
end
-- The first 8 characters are the creation time in ms, base 64; the other 12 are random,
-- except that within one millisecond the client increments them, so the order holds.
local function pushIdTime(id)
  local ms = 0
  for i = 1, 8 do ms = ms * 64 + (ALPHABET:find(id:sub(i, i), 1, true) - 1) end
  return ms
end
local t = pushIdTime(ids[1])
assert(math.abs(t - os.time() * 1000) < 5000, "the id starts with the current time")
print(string.format("  100 ids, 20 characters each, strictly increasing: %s ... %s", ids[1], ids[100]))
print(string.format("  %s encodes the time %d ms", ids[1]:sub(1, 8), t))

------------------------------------------------------------------------------------------------
print("2. bob watches the last three messages of the room")
local bob = ember.client("bob")
local names = {} -- push id -> a short name for the log (m1, m2, ...)
local function label(key) return names[key] or key end
local window = bob:ref("rooms/dinos"):limitToLast(3) -- ordered by key, i.e. by time
window:on("child_added", function(snap, prevKey)
  record("bob child_added " .. label(snap.key) .. (prevKey and (" after " .. label(prevKey)) or "") ..
    ": " .. snap:child("from"):val() .. ": " .. snap:child("text"):val())
end)
window:on("child_removed", function(snap)
  record("bob child_removed " .. label(snap.key))
end)
ember.flush()
expect({}, "an empty room")

-- main (alice) posts. push(value) writes the value at a new push id and returns the new
-- reference and a handle on the write.
local room = db:ref("rooms/dinos")
print("alice posts three messages")
local m1, h1 = room:push({ from = "alice", text = "hi!" })
names[m1.key] = "m1"
-- (bob's listener may run while we wait: waiting delivers events.)
assert(h1:wait()) -- true once the server has it
assert(#m1.key == 20 and m1.path == "/rooms/dinos/" .. m1.key, m1.path)

-- The same in two steps: push() alone only makes the reference (nothing is written), then
-- set() writes. Here it lets us name the key before the listeners hear about it, since the
-- writer's own listeners fire before set() returns.
--
-- Push ids made by ONE client always increase. But each client stamps its ids with ITS
-- estimate of the server's time (local clock + .info/serverTimeOffset), and two clients'
-- estimates can differ by a few ms; so ids that two clients make within a few ms of each
-- other may sort either way. Real chats live with that (or order by a server timestamp);
-- this script waits until the new id sorts after the last message, to keep its log exact.
local count = 1
local lastKey = m1.key
local function post(client, from, text)
  count = count + 1
  local ref = client:ref("rooms/dinos"):push()
  local waited = 0
  while not bytesBefore(lastKey, ref.key) do
    assert(waited < 1000, "push ids do not advance")
    ember.sleep(5)
    waited = waited + 5
    ref = client:ref("rooms/dinos"):push()
  end
  lastKey = ref.key
  names[ref.key] = "m" .. count
  local h = ref:set({ from = from, text = text })
  return ref, h
end
local m2 = post(db, "alice", "anyone seen the stegosaurus?")
local m3, h3 = post(db, "alice", "it ate my sandwich")
assert(h3:wait()) -- the server has the third message
ember.flush()
expect({
  "bob child_added m1: alice: hi!",
  "bob child_added m2 after m1: alice: anyone seen the stegosaurus?",
  "bob child_added m3 after m2: alice: it ate my sandwich",
}, "the first three")

print("alice posts a fourth: the oldest leaves bob's window")
post(db, "alice", "a whole sandwich")
ember.flush()
-- For one change, removals come before additions.
expect({
  "bob child_removed m1",
  "bob child_added m4 after m3: alice: a whole sandwich",
}, "the window slides")

print("bob answers: his own listener hears it at once, before the server")
local m5 = post(bob, "bob", "stegosaurs eat plants")
expect({
  "bob child_removed m2",
  "bob child_added m5 after m4: bob: stegosaurs eat plants",
}, "bob's own message, optimistic")
ember.flush()
expect({}, "the server's confirmation changes nothing")

print("alice posts again, twice")
post(db, "alice", "not this one")
post(db, "alice", "...")
ember.flush()
expect({
  "bob child_removed m3",
  "bob child_added m6 after m5: alice: not this one",
  "bob child_removed m4",
  "bob child_added m7 after m6: alice: ...",
}, "two more")

------------------------------------------------------------------------------------------------
print("3. alice deletes her last message: the window takes back the one before")
-- m7 is gone; the window is still the last three: m4, m5, m6. m4 comes back in, first.
local last = room:orderByKey():limitToLast(1):get()
local m7key
for child in last:children() do m7key = child.key end
assert(label(m7key) == "m7")
room:child(m7key):remove()
ember.flush()
expect({
  "bob child_removed m7",
  "bob child_added m4: alice: a whole sandwich",
}, "a deletion inside the window")

-- The whole room, in order: push ids sort by time, whoever made them.
local all = room:get()
local order = {}
all:forEach(function(child) order[#order + 1] = label(child.key) end)
assert(table.concat(order, " ") == "m1 m2 m3 m4 m5 m6", table.concat(order, " "))
assert(all:child(m5.key .. "/from"):val() == "bob")
assert(bytesBefore(m1.key, m2.key) and bytesBefore(m2.key, m5.key))
print("  the room: " .. table.concat(order, " "))

-- And bob's window, read once, agrees with what his listener saw.
local w = window:get()
order = {}
for child in w:children() do order[#order + 1] = label(child.key) end
assert(table.concat(order, " ") == "m4 m5 m6", table.concat(order, " "))
print("  bob's window: " .. table.concat(order, " "))

print("ok")
