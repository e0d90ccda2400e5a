-- extend_locks.lua: re-score many job leases under one server-clock read.
--   KEYS[1]  the queue's active set   emq:{<queue>}:active
--   KEYS[2]  the queue base           emq:{<queue>}:
--   ARGV[1]  lease_ms, the lease length in milliseconds
--   ARGV[2..] (id, token) pairs; a token is the attempts the holder claimed under
-- Reply: an array of the ids not extended (no row, a stale token, not in active),
-- in input order. A trailing id with no token after it is never read.
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
    and redis.call('ZSCORE', active, id) then -- @check-active
    redis.call('ZADD', active, now + lease, id) -- @rescore
  else
    table.insert(failed, id) -- @fail
  end
  i = i + 2
end
return failed -- @reply
