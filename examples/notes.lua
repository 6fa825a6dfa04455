-- notes.lua: the seeds' notes app: fan-out writes, counters, collaborative edits.
--
-- Run it:  ember --memory --no-rc examples/notes.lua
--
-- The data, as the seeds lay it out (flat, one list per kind of thing):
--   /folders/FOLDER = {name = "...", notesCount = N}
--   /notes/FOLDER/NOTE = {title, content, created, lastModified, revision}
--
-- What it shows:
--   * one multi-path update writes a note AND its folder's count atomically: all or nothing,
--     and other clients see both changes together;
--   * ServerValue.increment(1) adds on the server, so two clients adding notes at the same
--     time both count (no lost update), without a transaction;
--   * a transaction for a collaborative edit: the server accepts it only if the note has not
--     changed since the client read it; otherwise the client re-runs the function on the new
--     value. Both edits survive;
--   * child_added / child_changed / child_removed, heard by a collaborator on another device,
--     in their exact order.

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

-- Short names for the push ids of notes, so the log reads well.
local names = {}
local function name(key) return names[key] or key end

-- bob, on another device, lists the folders (with their counts) and the notes of "work".
local bob = ember.client("bob")
for _, event in ipairs({ "child_added", "child_changed", "child_removed" }) do
  bob:ref("folders"):on(event, function(snap, prevKey)
    record("bob folders " .. event .. " " .. snap.key .. (prevKey and (" after " .. prevKey) or "") ..
      " (notesCount " .. tostring(snap:child("notesCount"):val()) .. ")")
  end)
end
-- For the list of notes, only arrivals and departures (edits are watched in part 4). Note:
-- a child_changed listener here would sometimes fire for bob's own new note in part 3: its
-- TIMESTAMP fields show bob's local estimate at first, then the server's time, which may
-- differ by a millisecond or two (see clock.lua).
for _, event in ipairs({ "child_added", "child_removed" }) do
  bob:ref("notes/work"):on(event, function(snap)
    record("bob notes " .. event .. " " .. name(snap.key) .. ": " .. tostring(snap:child("title"):val()))
  end)
end
-- The main client (our user) shows the count of the "work" folder.
db:ref("folders/work/notesCount"):on("value", function(snap)
  record("main work notesCount = " .. tostring(snap:val()))
end)
ember.flush()
expect({ "main work notesCount = nil" }, "start") -- value fires at once, even for no data

------------------------------------------------------------------------------------------------
print("1. two folders")
db:ref("folders/work"):set({ name = "Work", notesCount = 0 })
db:ref("folders/home"):set({ name = "Home", notesCount = 0 })
ember.flush()
-- Folders sort by key: "home" comes before "work", so neither has a previous sibling when
-- it arrives (work came first, and home sorts before it).
expect({
  "main work notesCount = 0",
  "bob folders child_added work (notesCount 0)",
  "bob folders child_added home (notesCount 0)",
}, "folders")

------------------------------------------------------------------------------------------------
print("2. a new note and its folder's count, in ONE atomic multi-path update")
-- push() without a value only makes a new time-ordered key; nothing is written yet.
local groceries = db:ref("notes/work"):push().key
names[groceries] = "groceries"
local now = ember.ServerValue.TIMESTAMP
local h = db:ref():update({
  ["notes/work/" .. groceries] = {
    title = "Groceries", content = "eggs", created = now, lastModified = now, revision = 1,
  },
  ["folders/work/notesCount"] = ember.ServerValue.increment(1),
})
-- Optimistic: our own listener heard the new count before update() returned (the increment
-- resolved locally against the cached 0), long before the server answered.
expect({ "main work notesCount = 1" }, "optimistic count")
assert(h:wait(), "the server accepted the update")
ember.flush()
-- bob gets both changes together, from one message: the folder's count and the note.
expect({
  "bob folders child_changed work after home (notesCount 1)",
  "bob notes child_added groceries: Groceries",
}, "bob sees the note and the count together")
-- The TIMESTAMP placeholders became the server's time, the same for both fields.
local note = db:ref("notes/work/" .. groceries):get():val()
assert(math.type(note.created) == "integer" and note.created == note.lastModified)
assert(math.abs(note.created - os.time() * 1000) < 5000)

-- All or nothing: an update with one bad path is refused as a whole (a key cannot contain
-- "."), and the good half is not written either.
local ok, err = pcall(function()
  return db:ref():update({
    ["notes/work/broken"] = { title = "Broken" },
    ["folders/work/bad.key"] = 1,
  })
end)
assert(not ok and err.code == "invalid_path" and err:find("must not contain", 1, true), tostring(err))
print("  a bad update is refused: " .. err:gsub("^.-ref:update: ", ""))
ember.flush()
assert(not db:ref("notes/work/broken"):get():exists(), "nothing of the bad update was written")
expect({}, "no events for a refused update")

------------------------------------------------------------------------------------------------
print("3. main and bob each add a note at the same moment: both counted")
-- Each client increments from what it has: both see 1 locally and would write 2 with a plain
-- set. increment() is applied by the server to the current value, so the result is 3.
local function addNote(client, title)
  local key = client:ref("notes/work"):push().key
  names[key] = title:lower()
  client:ref():update({
    ["notes/work/" .. key] = { title = title, content = "", created = now, lastModified = now, revision = 1 },
    ["folders/work/notesCount"] = ember.ServerValue.increment(1),
  })
  return key
end
local todo = addNote(db, "Todo")
local ideas = addNote(bob, "Ideas")
-- (Push ids start with the creation time, so they sort chronologically; two clients that
-- push in the same millisecond may sort either way. See chat.lua.)
assert(#todo == 20 and #ideas == 20)
ember.flush()
expect({
  -- Each client sees its own note at once, with its local count: 1 + 1 = 2.
  "main work notesCount = 2",
  "bob folders child_changed work after home (notesCount 2)",
  "bob notes child_added ideas: Ideas",
  -- main's update reached the server first. bob receives main's note; the count stays 2 for
  -- him: his own pending write (resolved locally to 2 when he made it) still covers it.
  "bob notes child_added todo: Todo",
  -- Then the server applies bob's increment to ITS value, 2: 3, which both clients hear.
  "main work notesCount = 3",
  "bob folders child_changed work after home (notesCount 3)",
}, "two notes at once")
assert(db:ref("folders/work/notesCount"):get():val() == 3, "no lost update")

------------------------------------------------------------------------------------------------
print("4. a collaborative edit: main and bob append a line to the same note, as transactions")
-- Both have the note open (a value listener), so both clients have it cached.
local function openNote(client, who)
  return client:ref("notes/work/" .. groceries):on("value", function(snap)
    local v = snap:val()
    record(who .. " sees r" .. v.revision .. ": " .. v.content:gsub("\n", " / "))
  end)
end
local mainOpen = openNote(db, "main")
ember.flush() -- (one at a time, so that the two first events come in a known order)
local bobOpen = openNote(bob, "bob")
ember.flush()
expect({ "main sees r1: eggs", "bob sees r1: eggs" }, "note open on both")

-- The update function gets the value the client knows, returns the new one. It can be
-- called several times (it must not wait, and must not have side effects besides counting
-- here). As the seeds say, it must cope with nil: nothing may be cached yet. Returning
-- ember.null then proposes "still nothing", which the server rejects when the note exists,
-- and the function runs again with the real note.
local attempts = { main = 0, bob = 0 }
local function appendLine(who, line)
  return function(current)
    attempts[who] = attempts[who] + 1
    if current == nil then return ember.null end
    current.content = current.content .. "\n" .. line
    current.revision = current.revision + 1
    return current
  end
end
local results = {}
local function done(who)
  return function(err, committed, snap)
    results[who] = { err = err, committed = committed, content = snap:val().content }
  end
end
-- With a completion callback, transaction() returns at once: both run concurrently.
db:ref("notes/work/" .. groceries):transaction(appendLine("main", "milk"), done("main"))
bob:ref("notes/work/" .. groceries):transaction(appendLine("bob", "bread"), done("bob"))
ember.flush()
expect({
  -- Each client applies its own edit locally at once.
  "main sees r2: eggs / milk",
  "bob sees r2: eggs / bread",
  -- main's reached the server first and was accepted. bob's was based on r1, which is no
  -- longer current: rejected. bob's client re-runs his function on the server's note and
  -- shows the result at once (his first attempt goes only after: as in Firebase, the
  -- server's r2 never shows on his screen) ...
  "bob sees r3: eggs / milk / bread",
  -- ... which the server accepts this time; main receives it.
  "main sees r3: eggs / milk / bread",
}, "the collaborative edit")
assert(results.main.committed == true and results.main.err == nil)
assert(results.bob.committed == true and results.bob.err == nil)
assert(attempts.main == 1 and attempts.bob == 2, "main ran once, bob twice")
assert(results.bob.content == "eggs\nmilk\nbread")
assert(db:ref("notes/work/" .. groceries .. "/content"):get():val() == "eggs\nmilk\nbread", "no lost edit")
print("  both committed; bob's function ran twice; content: eggs / milk / bread")
mainOpen:off()
bobOpen:off()

------------------------------------------------------------------------------------------------
print("5. delete a note (and decrement the count) in one update; delete a folder")
-- ember.null in an update deletes that location.
db:ref():update({
  ["notes/work/" .. todo] = ember.null,
  ["folders/work/notesCount"] = ember.ServerValue.increment(-1),
})
ember.flush()
expect({
  "main work notesCount = 2",
  "bob folders child_changed work after home (notesCount 2)",
  "bob notes child_removed todo: Todo",
}, "a note deleted")
db:ref("folders/home"):remove()
ember.flush()
-- child_removed carries the data as it was before the removal.
expect({ "bob folders child_removed home (notesCount 0)" }, "a folder deleted")

local final = db:ref():get()
print("\nfinal data:\n" .. tostring(final))
assert(final:child("folders"):numChildren() == 1)
assert(final:child("folders/work/notesCount"):val() == final:child("notes/work"):numChildren())

print("ok")
