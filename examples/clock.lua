-- clock.lua: server timestamps and .info/serverTimeOffset under a skewed server clock.
--
-- Run it:  ember --memory --no-rc examples/clock.lua
--
-- Clients' clocks are wrong all the time. The realtime model's answers:
--   * ember.ServerValue.TIMESTAMP is a placeholder that the SERVER replaces with its own time
--     (ms since 1970) when the write lands, so every client's writes share one clock;
--   * since writes are optimistic, the writing client must show something at once: it shows
--     its ESTIMATE of the server's time, local time + .info/serverTimeOffset, and replaces it
--     with the server's value when that comes back;
--   * .info/serverTimeOffset is that estimated difference (server clock - local clock, in ms),
--     measured when the client connects. The seeds warn that network latency makes it
--     imprecise: it is for spotting large (> 1 s) skews.
--
-- `server clock skew MS` makes Ember's simulated server run MS milliseconds ahead.

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

-- Local time in ms. Lua's os.time() has whole seconds only, so comparisons below allow a few
-- seconds of slack; the skew we look for is a whole minute.
local function localNow() return os.time() * 1000 end
local function near(value, target, slack) return math.abs(value - target) <= slack end

-- Watch the offset, as the seeds do.
local offset
db:ref(".info/serverTimeOffset"):on("value", function(snap)
  offset = snap:val()
  record("main .info/serverTimeOffset = " .. offset)
end)
ember.flush()
-- About 0: no skew yet. (The offset is measured on the real clock as the connection opens,
-- so it can be a millisecond off; the seeds say it is only good for spotting large skews.)
assert(#log == 1 and near(offset, 0, 50), "no skew yet: " .. table.concat(log, "; "))
log = {}

------------------------------------------------------------------------------------------------
print("1. the server's clock jumps one minute ahead")
assert(ember.exec("server clock skew 60000").ok)
ember.flush()
-- Nothing happens: the client measured the offset when it connected, and does not know.
expect({}, "the offset is only measured on connecting")
assert(near(db:ref(".info/serverTimeOffset"):get():val(), 0, 50), "still about 0")

-- Reconnect (goOffline/goOnline): the handshake tells the client the server's time.
print("main reconnects")
db:goOffline()
db:goOnline()
ember.flush()
-- One offset event: 60000 (the measurement runs on the real clock, so allow a ms or two).
assert(#log == 1 and math.type(offset) == "integer" and near(offset, 60000, 50),
  "the offset after reconnecting: " .. table.concat(log, "; "))
log = {}
-- A client that connects from now on measures the same.
local bob = ember.client("bob")
ember.flush()
assert(near(bob:ref(".info/serverTimeOffset"):get():val(), 60000, 50))

-- The estimate of the server's time: local time + offset.
print("  estimated server time: local time + " .. offset .. " ms")

------------------------------------------------------------------------------------------------
print("2. writing ServerValue.TIMESTAMP")
local seen = {} -- every value main's listener hears at /lastSeen/main
local stamp = db:ref("lastSeen/main")
stamp:on("value", function(snap) seen[#seen + 1] = snap:exists() and snap:val() or "none" end)
ember.flush()
assert(#seen == 1 and seen[1] == "none") -- the first value event: no data yet
local h = stamp:set(ember.ServerValue.TIMESTAMP)
-- Optimistic: before set() returned, the listener heard main's estimate of the server time.
local estimate = seen[2]
assert(math.type(estimate) == "integer", "the placeholder is shown as a number at once")
assert(near(estimate - localNow(), 60000, 2000), "the estimate is a minute ahead of local time")
assert(h:wait())
ember.flush()
-- The stored value is the server's clock: a minute ahead of ours.
local stored = stamp:get():val()
assert(math.type(stored) == "integer")
assert(near(stored - localNow(), 60000, 2000), "stored " .. stored .. " vs local " .. localNow())
assert(seen[#seen] == stored, "the listener ends on the server's value")
print(string.format("  local time ~%d, main's estimate %d, the server's value %d",
  localNow(), estimate, stored))
-- bob, who reads it, sees the server's value; his clock agrees once he adds his offset.
assert(bob:ref("lastSeen/main"):get():val() == stored)
-- Here the estimate and the server's value are within a few ms (no network latency), so the
-- listener may hear one value or two: when they are equal there is no second event.
assert(#seen == 2 or #seen == 3)

------------------------------------------------------------------------------------------------
print("3. with network latency, the estimate is visibly off, and corrected")
-- 100 ms each way. The client's offset estimate now misses the one-way delay ...
assert(ember.exec("server latency 100").ok)
db:goOffline()
db:goOnline()
ember.flush()
-- (One offset event; its value is about 60000 - 100, give or take a ms of real time.)
assert(#log == 1 and near(offset, 59900, 50), "the offset with latency: " .. table.concat(log, "; "))
log = {}
-- ... and a TIMESTAMP is stamped when the write ARRIVES at the server, 100 ms after it was
-- made. So main first shows its estimate, then the server's value 200 ms later.
seen = {}
local h2 = stamp:set(ember.ServerValue.TIMESTAMP)
assert(#seen == 1, "the estimate at once")
assert(h2:wait())
ember.flush()
assert(#seen == 2, "then the server's value: exactly two events")
local gap = seen[2] - seen[1]
print(string.format("  main's estimate %d, then the server's value %d (%d ms later)", seen[1], seen[2], gap))
assert(gap >= 150 and gap <= 1000, "the server's value is about 200 ms after the estimate: " .. gap)
assert(stamp:get():val() == seen[2])
assert(ember.exec("server latency 0").ok)

print("ok")
