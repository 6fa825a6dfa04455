-- plugin-example.lua: a plugin that adds two shell commands, `seed` and `top`.
--
-- As a plugin: copy this file to ~/.config/ember/plugins/ (every *.lua there is loaded when
-- the shell starts), or start the shell with `ember --plugins DIR` for a directory holding it.
-- The commands are then there from the start, like built-in ones:
--
--   main:/> seed 20            -- fill /demo with 20 players and their scores
--   main:/> top 3 /demo        -- the 3 best, by the child "score", best first
--   main:/> help seed          -- `help` and `plugins` list the commands a plugin added
--
-- As a script (`ember --memory --no-rc examples/plugin-example.lua`), it adds the commands
-- for the length of the run and then tests them through ember.exec, the way a script runs any
-- shell command.
--
-- What a command is: ember.command{ name =, args =, help =, run = function(args, text) }.
-- `args` is the sequence of words after the command's name, `text` the rest of the line as
-- typed. What `run` returns is printed (tables as JSON); an error() is reported as the
-- command's error. `run` may use the whole Lua API, including calls that wait.

local function usage(command, syntax)
  error("usage: " .. command .. " " .. syntax, 0) -- level 0: no "file:line:" in the message
end

-- seed COUNT: replace /demo with COUNT players p001, p002, ... with made-up scores.
ember.command{
  name = "seed",
  args = "COUNT",
  help = "Replaces /demo with COUNT players and their scores (for trying queries).",
  run = function(args)
    local count = math.tointeger(tonumber(args[1] or ""))
    if #args ~= 1 or not count or count < 1 or count > 1000 then usage("seed", "COUNT (1 to 1000)") end
    local players = {}
    for i = 1, count do
      -- Deterministic "random" scores, so that the results can be checked.
      players[string.format("p%03d", i)] = { name = "player " .. i, score = (i * 37) % 101 }
    end
    -- One set: the whole list lands at once. Wait for the server, so that the command
    -- reports success only when the data is really there.
    local ok, err = db:ref("demo"):set(players):wait()
    if not ok then error("seed: " .. tostring(err), 0) end
    return { path = "/demo", count = count }
  end,
}

-- top N PATH [CHILD]: the N children of PATH with the highest CHILD (default "score"), best
-- first, as {key =, value =} like `ls` prints them.
ember.command{
  name = "top",
  args = "N PATH [CHILD]",
  help = "Lists the N children of PATH with the highest CHILD (default: score), best first.",
  run = function(args)
    local n = math.tointeger(tonumber(args[1] or ""))
    if (#args ~= 2 and #args ~= 3) or not n or n < 1 then usage("top", "N PATH [CHILD]") end
    local child = args[3] or "score"
    -- The query keeps the N highest; it lists them in ascending order, so reverse.
    local snap = db:ref(args[2]):orderByChild(child):limitToLast(n):get()
    local rows = {}
    for c in snap:children() do table.insert(rows, 1, { key = c.key, value = c:child(child):val() }) end
    return rows
  end,
}

------------------------------------------------------------------------------------------------
-- The self-test, for when this file runs as a script. A plugin is loaded at every start of
-- the shell, and must not write anything then; `plugins` tells the two cases apart: it names
-- the file a command came from, or "lua" for a command added by a script or at the prompt.
local function addedByScript()
  for _, entry in ipairs(ember.exec("plugins")) do
    if entry.command == "seed" then return entry.plugin == "lua" end
  end
  return false
end
if not addedByScript() then return end

print("seed 5")
-- ember.exec runs a shell command and returns its result as Lua values. A Lua command's
-- results come back as a list (a Lua function may return several values): the first is ours.
local result = ember.exec("seed 5")
assert(type(result) == "table" and #result == 1, "one result")
result = result[1]
assert(result.path == "/demo" and result.count == 5)
print("  -> seeded " .. result.count .. " players at " .. result.path)

-- The data is on the server (seed waited for it).
local demo = db:ref("demo"):get()
assert(demo:numChildren() == 5)
assert(demo:child("p001/name"):val() == "player 1" and demo:child("p001/score"):val() == 37)
-- Scores: p001 37, p002 74, p003 10, p004 47, p005 84.

print("top 3 /demo")
local top = ember.exec("top 3 /demo")[1]
local shown = {}
for i, row in ipairs(top) do shown[i] = row.key .. "=" .. row.value end
print("  -> " .. table.concat(shown, " "))
assert(table.concat(shown, " ") == "p005=84 p002=74 p004=47", table.concat(shown, " "))

-- Another child to order by: the top 2 by name (strings sort as strings: "player 5" is the
-- highest, then "player 4").
local byName = ember.exec("top 2 /demo name")[1]
assert(byName[1].key == "p005" and byName[2].key == "p004")

-- A bad call is the command's error; through ember.exec it is a Lua error to catch.
local ok, err = pcall(ember.exec, "seed lots")
assert(not ok and err.code == "lua_error" and err:find("usage: seed COUNT", 1, true), tostring(err))
print("seed lots\n  -> error: " .. err:gsub("^.-: '", "'"))

-- The commands are listed with their help, like the built-in ones.
local listed = {}
for _, entry in ipairs(ember.exec("plugins")) do listed[#listed + 1] = entry.command end
table.sort(listed)
assert(table.concat(listed, " ") == "seed top", table.concat(listed, " "))

-- Running it again replaces /demo: a smaller seed leaves only its own players.
assert(ember.exec("seed 2")[1].count == 2)
assert(db:ref("demo"):get():numChildren() == 2)

print("ok")
