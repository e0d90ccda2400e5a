-- The stepping harness: it runs one script a redis.call at a time in a coroutine, as Valkey's LDB sees it.
-- Globals set before it loads: BUDGET, STRIDE and RUNAWAY (the runaway guard), LDB_LINE (LDB's maxlen for a
-- printed local) and KEYFRAME (every how many frames one is sent whole).
-- Returns start(source, chunkname, KEYS, ARGV, returns) -> resume(reply), take(), hush(on, cut): resume hands the
-- script its last command's reply and returns what it wants next, ('call', line, args, watched, frame) or
-- ('done', ...) at its return; take gives the source lines run since the last take; hush quiets a replay.
local format, byte, find, gsub, sub = string.format, string.byte, string.find, string.gsub, string.sub
local concat, getinfo = table.concat, debug.getinfo
local LINE, DEPTH, EVERY = LDB_LINE, 18, KEYFRAME  -- LDB's maxlen, its LDB_MAX_VALUES_DEPTH, a whole frame
local named = {['\\'] = '\\\\', ['"'] = '\\"', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t', ['\a'] = '\\a',
               ['\b'] = '\\b'}
local function escaped(c) return named[c] or format('\\x%02x', byte(c)) end
local show
local memo = setmetatable({}, {__mode = 'k'})
local function shown_table(t, level, budget)
  -- as LDB: an array's values, or every [key]=value; cut once both are past what the line can show. The text is
  -- kept with the pairs it was made of, and reused while the table yields the same pairs (a long failed list)
  local m = memo[t]
  if m and m.budget == budget then
    local k, v, same = nil, nil, true
    for j = 1, m.n do
      k, v = next(t, k)
      if k ~= m.keys[j] or v ~= m.values[j] then same = false; break end
    end
    if same and (m.cut or next(t, k) == nil) then return m.text end
  end
  local array, expected, one, two, n1, n2, keys, values, plain, cut = true, 1, {}, {}, 0, 0, {}, {}, true, false
  for k, v in next, t do
    if array and (type(k) ~= 'number' or k ~= expected) then array = false end
    if type(k) == 'table' or type(v) == 'table' then plain = false end
    local value = show(v, level, budget)
    one[#one + 1] = value; n1 = n1 + #value + 2
    local key = show(k, level, budget)
    two[#two + 1] = '[' .. key .. ']=' .. value; n2 = n2 + #key + #value + 5
    keys[expected], values[expected] = k, v
    expected = expected + 1
    if n1 > budget and n2 > budget then cut = true; break end
  end
  local text = '{' .. concat(array and one or two, '; ') .. '}'
  if plain then memo[t] = {budget = budget, n = expected - 1, keys = keys, values = values, cut = cut, text = text} end
  return text
end
local quoted, cached = {}, 0  -- each string's printed form, for the few calls of a member that print it again
function show(v, level, budget)
  local kind = type(v)
  if kind == 'string' then
    local text = quoted[v]
    if text then return text end
    if cached > 4096 then quoted, cached = {}, 0 end
    text = v
    if find(text, '[%c"\\\128-\255]') then text = gsub(text, '[%c"\\\128-\255]', escaped) end
    text = '"' .. text .. '"'
    quoted[v], cached = text, cached + 1
    return text
  elseif kind == 'number' then return format('%.14g', v)
  elseif kind == 'boolean' then return v and 'true' or 'false'
  elseif kind == 'nil' then return 'nil'
  elseif kind == 'table' then
    if level == DEPTH then return '<max recursion level reached! Nested table?>' end
    return shown_table(v, level + 1, budget)
  end
  return '"' .. kind .. '@' .. (tostring(v):match('0x%x+') or '?') .. '"'
end
local function printed(thread, level, last)
  -- each local's name and printed text, and the ones the screen follows (now and failed); with ``last``, the
  -- frame before's values, a local that still holds the same string or number reuses its text
  local names, texts, values, vars, j, n = {}, {}, {}, {}, 1, 0
  while true do
    local name, value
    if thread then name, value = debug.getlocal(thread, level, j) else name, value = debug.getlocal(level + 1, j) end
    if not name then break end
    if name ~= '(*temporary)' then
      n = n + 1
      local text, kind = nil, type(value)
      -- not a table (its contents may change), nor a zero (0 and -0 are equal but print apart)
      local same = kind == 'string' or kind == 'number' and value ~= 0
      if same and last and last.names[n] == name and last.values[n] == value then
        text = last.texts[n]
      else
        local budget = LINE - 11 - #name
        text = show(value, 0, budget)
        if #text > budget then text = sub(text, 1, budget) .. ' ...' end
      end
      names[n], texts[n], values[n] = name, text, value
      if name == 'now' or name == 'failed' then vars[name] = value end
    end
    j = j + 1
  end
  return names, texts, values, vars
end
local function start(source, chunkname, keys, argv, returns)
  local trace = {}
  local redis = {}
  local final, final_names, final_texts, final_line = {}, nil, nil, 0
  local last_names, last_texts, framed_count = {}, {}, 0
  -- a frame as Python keeps it: ``k`` (whole) or ``d`` (only what changed since the frame before), the count of
  -- locals, then position, ``*`` when changed, name and printed value for each one sent; every EVERY-th whole
  local function framed(names, texts)
    framed_count = framed_count + 1
    local whole = framed_count % EVERY == 1
    local out = {#names}
    for k = 1, #names do
      local changed = names[k] ~= last_names[k] or texts[k] ~= last_texts[k]
      if whole or changed then
        out[#out + 1] = k; out[#out + 1] = changed and '*' or ''; out[#out + 1] = names[k]; out[#out + 1] = texts[k]
      end
    end
    last_names, last_texts = names, texts
    return (whole and 'k' or 'd') .. concat(out, '\0')
  end
  local function watched(thread, level)  -- the locals the screen follows, now and failed, at the return
    local vars, j = {}, 1
    while true do
      local name, value
      if thread then name, value = debug.getlocal(thread, level, j) else name, value = debug.getlocal(level + 1, j) end
      if not name then break end
      if name == 'now' or name == 'failed' then vars[name] = value end
      j = j + 1
    end
    return vars
  end
  local yield = coroutine.yield
  -- on one line, so the line hook stops in it once a call
  function redis.call(...)
    local r = yield('call', getinfo(2, 'l').currentline, {...}) if type(r) == 'table' and r.err then error(r, 0) end return r end
  function redis.error_reply(message) return {err = message} end
  function redis.status_reply(message) return {ok = message} end
  local env = setmetatable({KEYS = keys, ARGV = argv, redis = redis}, {__index = _G})
  local chunk = assert(loadstring(source, chunkname))
  setfenv(chunk, env)
  local function body()
    local value = chunk(); return 'done', 0, value, final, final_names, final_texts, final_line
  end
  local co = coroutine.create(body)
  -- the harness's own functions that run inside the coroutine: their lines are not the script's. A line past the
  -- script's last is theirs; only a line number the two share needs the costly look at which function runs
  local ours, shared = {[body] = true, [redis.call] = true, [redis.error_reply] = true,
                        [redis.status_reply] = true}, {}
  local last_line = select(2, gsub(source, '\n', '')) + 1
  for func in pairs(ours) do
    local info = getinfo(func, 'S')
    for n = info.linedefined, math.min(info.lastlinedefined, last_line) do shared[n] = true end
  end
  local spent, hushed, cut_at = 0, false, 0
  local last  -- the locals of the call before, by position: names, printed texts and values
  local function hook(event, line)
    -- the budget: each line run costs 1, each STRIDE instructions STRIDE; a runaway stops here, sent nowhere
    spent = spent + (event == 'count' and STRIDE or 1)
    if spent > BUDGET then
      local at = (event == 'line' and line) or trace[#trace] or debug.getinfo(2, 'l').currentline
      trace = {at}
      error(chunkname:sub(2) .. ':' .. at .. ': ' .. RUNAWAY, 0)
    end
    if event == 'line' then
      if line > last_line or shared[line] and ours[getinfo(2, 'f').func] then return end
      if hushed and line == cut_at then trace = {} end  -- a replay keeps only the lines since the step's start
      trace[#trace + 1] = line
      if hushed then return end
      -- a return line's locals are read as LDB stops there, before it runs: in a return hook, the hook's own
      -- call frame has overwritten the registers above the values returned
      if returns[line] then final_line, final_names, final_texts = line, printed(nil, 2) end
    elseif event == 'return' and getinfo(2, 'f').func == chunk then
      final = watched(nil, 2)
    end
  end
  debug.sethook(co, hook, 'lr', STRIDE)
  -- a replay of recorded replies runs hushed: no locals read, and only the lines since the last pass through
  -- line ``cut`` kept (none at all when it is 0); once it is over, the next call's locals are sent whole
  local function hush(on, cut)
    hushed, cut_at = on, cut
    debug.sethook(co, hook, on and (cut ~= 0 and 'l' or '') or 'lr', STRIDE)
    if not on then last, framed_count = nil, 0 end
  end
  local found = 0
  local function caller()  -- the script's function that called redis.call, in the suspended coroutine
    local info = debug.getinfo(co, found, 'S')
    if info and info.source == chunkname then return found end
    for level = 0, 8 do
      info = debug.getinfo(co, level, 'S')
      if info and info.source == chunkname then found = level; return level end
    end
  end
  -- a call's locals are read here, outside the coroutine, where no line hook runs for each line that prints them
  local function resume(reply)
    spent = 0
    local ok, kind, line, args, vars, names, texts, at = coroutine.resume(co, reply)
    if ok and kind == 'call' and hushed then return ok, kind, line, args end
    if ok and kind == 'call' then
      local names, texts, values, vars = printed(co, caller(), last)
      last = {names = names, texts = texts, values = values}
      return ok, kind, line, args, vars, framed(names, texts), line
    end
    if ok and kind == 'done' and names then return ok, kind, line, args, vars, framed(names, texts), at end
    return ok, kind, line, args, vars
  end
  local function take() local lines = trace; trace = {}; return lines end
  return resume, take, hush
end
return start
