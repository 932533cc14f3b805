-- strings.lua: string-heavy work that sizes itself from the clock, the way
-- self-calibrating benchmarks do, for counting the Debian lua5.4 interpreter
-- through workgate's clock shim (workloads/lua.toml).
--
--   lua5.4 strings.lua          rounds until TARGET seconds of os.clock()
--                               have passed (at least one)
--   lua5.4 strings.lua ROUNDS   exactly ROUNDS rounds, no calibration
--
-- Under the shim's default step (1 s per clock call) the first round already
-- takes "1 s", so the pinned run prints `rounds: 1` every time. Lua also
-- seeds its string hash from time() and addresses, which the shim and
-- ASLR-off pin as well; the checksum is independent of that seed.

local TARGET = 0.25

-- A small linear congruential generator: the workload's own, so the words
-- do not depend on math.random's seed.
local function lcg(state)
  return (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
end

local syllables = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua", "ster", "ban"}

local function round(seed)
  local state = seed + 1
  local words = {}
  for i = 1, 600 do
    local parts = {}
    state = lcg(state)
    for j = 1, 2 + (state >> 40) % 3 do
      state = lcg(state)
      parts[j] = syllables[1 + (state >> 33) % #syllables]
    end
    words[i] = table.concat(parts)
  end
  -- Hash-table work on strings: word frequencies.
  local counts = {}
  for _, w in ipairs(words) do counts[w] = (counts[w] or 0) + 1 end
  local unique = {}
  for w in pairs(counts) do unique[#unique + 1] = w end
  table.sort(unique)
  -- Pattern matching, substitution and formatting over one long text.
  local text = table.concat(words, " ")
  local upper = text:gsub("[aeiou]", string.upper)
  local vowels = select(2, text:gsub("[aeiou]", ""))
  local lines = {}
  for i, w in ipairs(unique) do lines[i] = string.format("%-12s %5d", w, counts[w]) end
  local report = table.concat(lines, "\n")
  local sum = #upper + vowels + #report
  for k = 1, #unique, 7 do sum = sum + unique[k]:byte(1) * k end
  return sum
end

local fixed = tonumber(arg[1])
print("started: " .. os.date("!%Y-%m-%d %H:%M:%S", os.time()))
local start = os.clock()
local rounds, checksum = 0, 0
repeat
  checksum = (checksum * 31 + round(rounds)) % 1000000007
  rounds = rounds + 1
until (fixed and rounds >= fixed) or (not fixed and os.clock() - start >= TARGET)
print("rounds: " .. rounds)
print("checksum: " .. checksum)
