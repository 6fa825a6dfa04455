-- dinosaurs.lua: the seeds' dinosaur scores: a sorted, limited query, live and offline.
--
-- Run it:  ember --memory --no-rc examples/dinosaurs.lua
--
-- What it shows:
--   * a query (orderByValue():limitToLast(4)) is a live window on a list: child_added fires
--     once per child in the window, in the query's order, each with the key of the child
--     before it (prevKey); when the data changes, children enter and leave the window;
--   * what a client can read while offline depends on what it has cached: nothing cached means
--     nothing to read; a query's own listener keeps that query's data; a synced location
--     (keepSynced, or a listener on the whole list) answers any query on it.
--
-- (The seeds' own scenario, "load limitToLast(4) online, restart the app offline, ask
-- limitToLast(2)", needs persistence on disk and a restart of the process; this script runs
-- in memory, in one process, so it shows the in-process side of the same model.)

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

-- Listen to the seed's query on a client, recording child events as
-- "WHO child_added KEY [after PREV]: VALUE" and value events as "WHO value: k1 k2 ...".
local function watch(who, query, events)
  local handles = {}
  for _, event in ipairs(events) do
    handles[#handles + 1] = query:on(event, function(snap, prevKey)
      if event == "value" then
        local keys = {}
        for child in snap:children() do keys[#keys + 1] = child.key end -- in query order
        record(who .. " value: " .. table.concat(keys, " "))
      else
        record(who .. " " .. event .. " " .. snap.key ..
          (prevKey and (" after " .. prevKey) or "") .. ": " .. tostring(snap:val()))
      end
    end)
  end
  return handles
end

-- The scores from the Firebase "dinosaur facts" sample database that the seeds query.
local scores = {
  bruhathkayosaurus = 55,
  lambeosaurus = 21,
  linhenykus = 80,
  pterodactyl = 93,
  stegosaurus = 5,
  triceratops = 22,
}
print("main writes /scores")
assert(db:ref("scores"):set(scores):wait()) -- wait: the server has acknowledged the write

------------------------------------------------------------------------------------------------
print("\n1. alice's leaderboard: the four best scores, live")
local alice = ember.client("alice")
local top4 = alice:ref("scores"):orderByValue():limitToLast(4)
local aliceTop4 = watch("alice", top4, { "child_added", "child_removed" })
ember.flush()
-- Lowest of the window first: orderByValue sorts ascending and limitToLast keeps the end.
expect({
  "alice child_added triceratops: 22",
  "alice child_added bruhathkayosaurus after triceratops: 55",
  "alice child_added linhenykus after bruhathkayosaurus: 80",
  "alice child_added pterodactyl after linhenykus: 93",
}, "alice's first events")

-- get() on the query answers the same window; children() iterates in the query's order.
local snap = top4:get()
local order = {}
for child in snap:children() do order[#order + 1] = child.key .. "=" .. child:val() end
assert(table.concat(order, " ") == "triceratops=22 bruhathkayosaurus=55 linhenykus=80 pterodactyl=93",
  table.concat(order, " "))
assert(snap:numChildren() == 4 and not snap:hasChild("stegosaurus"))
assert(math.type(snap:child("pterodactyl"):val()) == "integer") -- integers stay integers
print("  top4:get() -> " .. table.concat(order, " "))

-- The stegosaurus scores big. Another client's write reaches alice's listener once it has
-- gone through the server: triceratops leaves the window and the stegosaurus enters it.
print("main: the stegosaurus now scores 99")
db:ref("scores/stegosaurus"):set(99)
ember.flush()
expect({
  "alice child_removed triceratops: 22",
  "alice child_added stegosaurus after pterodactyl: 99",
}, "the window moves")
-- Put it back for the rest of the story (the same two events, the other way round).
db:ref("scores/stegosaurus"):set(5)
ember.flush()
expect({
  "alice child_removed stegosaurus: 99",
  "alice child_added triceratops: 22",
}, "the window moves back")

------------------------------------------------------------------------------------------------
print("\n2. carol starts offline, with nothing cached")
local carol = ember.client("carol", { offline = true })
local carolTop4 = carol:ref("scores"):orderByValue():limitToLast(4)
-- get() offline reads the cache, and carol has none: like the Firebase SDKs ("client is
-- offline"), Ember says so with an error rather than pretending the list is empty.
local ok, err = pcall(function() return carolTop4:get() end)
-- The error is an object: err.code is stable ("offline"), and it still reads as its message.
assert(not ok and err.code == "offline" and err:find("offline and has no cached data", 1, true), tostring(err))
print("  get() offline: error: " .. err:gsub("^.-wait: ", ""))
-- A listener attached offline stays silent: there is nothing to report, not even "empty".
watch("carol", carolTop4, { "child_added", "value" })
ember.flush()
expect({}, "carol offline hears nothing")
print("  carol's listener: no events while offline")
-- Back online, the server answers the listen and the events arrive.
print("carol goes online")
carol:goOnline()
ember.flush()
expect({
  "carol child_added triceratops: 22",
  "carol child_added bruhathkayosaurus after triceratops: 55",
  "carol child_added linhenykus after bruhathkayosaurus: 80",
  "carol child_added pterodactyl after linhenykus: 93",
  "carol value: triceratops bruhathkayosaurus linhenykus pterodactyl",
}, "carol online")

------------------------------------------------------------------------------------------------
print("\n3. alice's leaderboard stays open while she goes offline")
alice:goOffline()
-- Her client holds what the limitToLast(4) listener loaded, and reads it from there:
local cached = top4:once("value")
assert(cached:numChildren() == 4 and cached:child("pterodactyl"):val() == 93)
print("  top4:once('value') offline -> from the cache: " .. cached:numChildren() .. " scores")
-- ... and a single score inside the window too.
assert(alice:ref("scores/pterodactyl"):get():val() == 93)
-- get() on that same query should also answer from the cache (LUA.md: "cache when offline"),
-- as once("value") just did.
local okGet, top4Offline = pcall(function() return top4:get() end)
assert(okGet and top4Offline:numChildren() == 4, tostring(top4Offline))
print("  top4:get() offline -> from the cache: " .. top4Offline:numChildren() .. " scores")

-- A DIFFERENT query, limitToLast(2), is not answered from that cache in memory: the cached
-- window is a filtered view (four children, not the whole list), so the client cannot know
-- that nothing scores between them. The Firebase SDKs without persistence behave the same.
-- (With persistence on disk, `ember --db DIR`, the cache also remembers which keys the
-- complete limitToLast(4) query held; that is the seeds' scenario: after a restart of the
-- process offline, limitToLast(2) gets child_added for the two best from the cache, but no
-- value event, since that query never completed online.)
local top2 = alice:ref("scores"):orderByValue():limitToLast(2)
local aliceTop2 = watch("alice top2", top2, { "child_added", "value" })
ember.flush()
expect({}, "limitToLast(2) offline, in memory")
print("  limitToLast(2) offline: no events (in memory)")
print("alice goes online")
alice:goOnline()
ember.flush()
expect({
  "alice top2 child_added linhenykus: 80",
  "alice top2 child_added pterodactyl after linhenykus: 93",
  "alice top2 value: linhenykus pterodactyl",
}, "limitToLast(2) back online")

-- alice closes her leaderboard: off() on each listener's handle stops its events.
for _, h in ipairs(aliceTop4) do h:off() end
for _, h in ipairs(aliceTop2) do h:off() end

------------------------------------------------------------------------------------------------
print("\n4. dave keeps the whole of /scores synced (the seeds' keepSynced), then goes offline")
local dave = ember.client("dave")
dave:ref("scores"):keepSynced(true) -- synced and cached, with no listener at all
ember.flush()
dave:goOffline()
-- Now the cache holds the complete list, so ANY query on it is answered offline, with
-- child_added events and a value event, exactly as online.
local top2Snap = dave:ref("scores"):orderByValue():limitToLast(2):get()
assert(top2Snap:numChildren() == 2)
assert(top2Snap:child("linhenykus"):val() == 80 and top2Snap:child("pterodactyl"):val() == 93)
print("  limitToLast(2):get() offline -> " .. top2Snap:numChildren() .. " scores, from the cache")
watch("dave top2", dave:ref("scores"):orderByValue():limitToLast(2), { "child_added", "child_removed", "value" })
watch("dave top6", dave:ref("scores"):orderByValue():limitToLast(6), { "child_added" })
ember.flush()
expect({
  "dave top2 child_added linhenykus: 80",
  "dave top2 child_added pterodactyl after linhenykus: 93",
  "dave top2 value: linhenykus pterodactyl",
  "dave top6 child_added stegosaurus: 5",
  "dave top6 child_added lambeosaurus after stegosaurus: 21",
  "dave top6 child_added triceratops after lambeosaurus: 22",
  "dave top6 child_added bruhathkayosaurus after triceratops: 55",
  "dave top6 child_added linhenykus after bruhathkayosaurus: 80",
  "dave top6 child_added pterodactyl after linhenykus: 93",
}, "dave offline, from the synced cache")
-- A write offline raises local events at once (optimistic, before set() returns) and waits
-- in dave's queue; the rest of the world hears nothing yet.
print("dave, offline, sets the lambeosaurus to 90")
dave:ref("scores/lambeosaurus"):set(90)
expect({
  "dave top2 child_removed linhenykus: 80",
  "dave top2 child_added lambeosaurus: 90",
  "dave top2 value: lambeosaurus pterodactyl",
}, "dave's offline write, seen by dave at once")
ember.flush()
expect({}, "nobody else hears an offline write")
assert(db:ref("scores/lambeosaurus"):get():val() == 21, "the server still has 21")

-- Back online, the queued write goes to the server, and carol's window (still listening to
-- the top four) changes: the triceratops drops out and the lambeosaurus comes in.
print("dave goes online: his queued write reaches the server")
dave:goOnline()
ember.flush()
expect({
  "carol child_added lambeosaurus after linhenykus: 90",
  "carol value: bruhathkayosaurus linhenykus lambeosaurus pterodactyl",
}, "carol hears dave's write")
assert(db:ref("scores/lambeosaurus"):get():val() == 90)

print("ok")
