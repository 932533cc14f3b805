-- A Lua benchmark: fixed work, its result, and its CPU time (which moves).
-- tests/cli/init_cli_test.cc runs workgate init on it.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t0 = os.clock()
print("fib(20) = " .. fib(20))
print(string.format("elapsed: %.6f s", os.clock() - t0))
