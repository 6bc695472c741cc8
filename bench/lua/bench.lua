-- CPU-bound Lua 5.4 benchmark for sampling/unwinding under codectl-run.
--
--   lua5.4 bench.lua [SCALE]   (SCALE defaults to 1: ~3 s natively;
--                               0.1 is a quick run, 2 twice as long)
--
-- Each part makes the stack go through a different path: the interpreter
-- loop (luaV_execute) and its Lua->Lua calls, the C API and the standard
-- library calling back into Lua (table.sort, string.gsub with a function,
-- pcall, coroutines), the allocator and the garbage collector, and libc
-- (malloc/free/realloc, memcpy, snprintf behind string.format).
--
-- Prints one line per part with its CPU time and a checksum, and a total;
-- the checksums are deterministic, so a run under a supervisor can be
-- compared with a native one.

local scale = tonumber(arg and arg[1]) or 1
-- repetitions of a part at this scale (at least 1: SCALE 0.1 is a quick run)
local function reps(n) return math.max(1, math.floor(n * scale + 0.5)) end
local clock = os.clock
local fmt = string.format

local results = {}

local function part(name, f)
  local t0 = clock()
  local check = f()
  local dt = clock() - t0
  results[#results + 1] = { name, dt, check }
  io.write(fmt("%-12s %7.3f s  check %s\n", name, dt, tostring(check)))
  io.flush()
end

-- 1. recursion: fib (Lua->Lua calls, which in 5.4 stay inside one
--    luaV_execute C frame), then a recursion 120 levels deep that goes
--    through C at every level -- pcall, an __index metamethod, a
--    string.gsub callback, a coroutine -- so the native stack is several
--    hundred frames deep (luaV_execute / luaD_call / lua_pcallk /
--    luaB_pcall / str_gsub / lua_resume ...) while fib works at the bottom.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local mt = {}
local proxy = setmetatable({}, mt)
local cdeep
function cdeep(n)
  if n == 0 then return fib(20) end
  local k = n % 4
  if k == 0 then
    local ok, v = pcall(cdeep, n - 1)
    if not ok then error(v, 0) end
    return v + 1
  elseif k == 1 then
    return proxy[n - 1] + 1                -- __index below
  elseif k == 2 then
    local r
    string.gsub("x", "x", function() r = cdeep(n - 1) end)
    return r + 1
  else
    return coroutine.wrap(cdeep)(n - 1) + 1
  end
end
mt.__index = function(_, k) return cdeep(k) end

part("fib", function()
  local s = 0
  for _ = 1, reps(1) do s = s + fib(32) end
  return s
end)

-- 120 levels stays under LUAI_MAXCCALLS (200 nested C calls; ~240 fails).
part("c-deep", function()
  local s = 0
  for _ = 1, reps(700) do s = s + cdeep(120) end
  return s
end)

-- 2. binary-trees: allocation and GC -----------------------------------
local function bottom_up(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottom_up(d), bottom_up(d) }
end

local function item_check(t)
  if t[1] then return 1 + item_check(t[1]) + item_check(t[2]) end
  return 1
end

part("trees", function()
  local maxd = 14
  local s = item_check(bottom_up(maxd + 1))
  local long_lived = bottom_up(maxd)
  for d = 4, maxd, 2 do
    local iters = reps(1 << (maxd - d + 4))
    for _ = 1, iters do s = s + item_check(bottom_up(d)) end
  end
  return s + item_check(long_lived)
end)

-- 3. strings: building, concat, gsub with patterns and a Lua function ----
part("strings", function()
  local s = 0
  for r = 1, reps(48) do
    local parts = {}
    for i = 1, 5000 do
      parts[#parts + 1] = "item" .. i .. "=" .. (i * r) % 97 .. ";"
    end
    local text = table.concat(parts)
    local t2 = text:gsub("(%a+)(%d+)=(%d+)", function(w, a, b)
      return w:upper() .. (tonumber(a) + tonumber(b))
    end)
    local t3, n = t2:gsub("%d%d", "#")
    s = s + #t2 + #t3 + n
    for w in text:gmatch("=(%d+);") do s = s + #w end
    local acc = ""
    for i = 1, 300 do acc = acc .. string.char(65 + i % 26) end  -- realloc/memcpy
    s = s + #acc:rep(20):lower():reverse()
  end
  return s
end)

-- 4. table.sort with a Lua comparator (C sort calling back into Lua) ----
local function make_rng(seed)
  local x = seed
  return function()
    x = (x * 1103515245 + 12345) & 0x7fffffff
    return x
  end
end

part("sort", function()
  local rnd = make_rng(42)
  local s = 0
  for _ = 1, reps(8) do
    local recs = {}
    for i = 1, 20000 do
      recs[i] = { key = rnd() % 1000, name = "n" .. rnd() % 5000, id = i }
    end
    table.sort(recs, function(a, b)
      if a.key ~= b.key then return a.key < b.key end
      if a.name ~= b.name then return a.name < b.name end
      return a.id < b.id
    end)
    s = s + recs[1].id + recs[#recs].id
    local nums = {}
    for i = 1, 20000 do nums[i] = rnd() end
    table.sort(nums, function(a, b) return a > b end)
    s = s + nums[1] % 1000
  end
  return s
end)

-- 5. string.format, pcall/error, coroutines ---------------------------------
local function risky(i)
  if i % 7 == 0 then error({ code = i }) end
  if i % 11 == 0 then error("bad " .. i) end
  return i * 2
end

local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(fmt("%05d:%x:%.3f", i, i * 31, i / 7)) end
  end)
end

part("fmt/pcall/co", function()
  local s = 0
  for _ = 1, reps(30) do
    for i = 1, 10000 do
      local ok, v = pcall(risky, i)
      if ok then s = s + v
      elseif type(v) == "table" then s = s + v.code
      else s = s + #v end
    end
    for line in gen(5000) do s = s + #line end
    local co = coroutine.create(function(a)
      local tot = a
      while true do
        local ok, r = pcall(function(x) return fib(10) + x end, tot)
        tot = coroutine.yield(ok and r or 0)
      end
    end)
    for i = 1, 2000 do
      local _, r = coroutine.resume(co, i)
      s = s + r
    end
  end
  return s
end)

local total = 0
for _, r in ipairs(results) do total = total + r[2] end
io.write(fmt("%-12s %7.3f s  (scale %g, %s, collectgarbage %d KiB)\n",
  "total", total, scale, _VERSION, math.floor(collectgarbage("count"))))
