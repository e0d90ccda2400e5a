-- extend_locks_no_guard.lua: a WHAT-IF, not the protocol: extend_locks.lua with the ZSCORE membership check removed.
--   KEYS[1]  the queue's active set   emq:{<queue>}:active
--   KEYS[2]  the queue base           emq:{<queue>}:
--   ARGV[1]  lease_ms   ARGV[2..] (id, token) pairs, as extend_locks.lua takes them
-- Reply: an array of the ids not extended (no row, a stale token), in input order. Without the guard a job the
-- reaper moved to pending still passes both checks and is re-scored into active: it is then in active AND pending.
-- Every line sits where it sits in extend_locks.lua, so the two read side by side.
local active = KEYS[1]
local base = KEYS[2]
local lease = tonumber(ARGV[1])
local clock = redis.call('TIME') -- @clock
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local failed = {}
local i = 2
while i < #ARGV do -- @loop
  local id = ARGV[i] -- @member
  local token = ARGV[i + 1]
  local row = base .. 'job:' .. id -- @row-key
  local att = redis.call('HGET', row, 'attempts') -- @check-row
  if att and att == token -- @check-token
    then -- what-if: "and redis.call('ZSCORE', active, id)" is removed here @guard-removed
    redis.call('ZADD', active, now + lease, id) -- @rescore
  else
    table.insert(failed, id) -- @fail
  end
  i = i + 2
end
return failed -- @reply
