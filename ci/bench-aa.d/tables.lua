-- A/A subject for ci/bench-aa: Lua seeds its string hash from the clock and
-- addresses, so the layout of this table, and the work of pairs(), moves
-- from run to run unless the clock is pinned.
local t = {}
for i = 1, 30000 do t[tostring(i * 7919 % 100003)] = i end
local n = 0
for k, _ in pairs(t) do n = n + #k end
print(n)
