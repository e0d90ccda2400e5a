-- extend_lock.lua: re-score one job lease, or say exactly why not.
--   KEYS[1]  the queue's active set   emq:{<queue>}:active
--   KEYS[2]  the job's row            emq:{<queue>}:job:<id>
--   ARGV[1]  lease_ms   ARGV[2] id   ARGV[3] token (the attempts it was claimed under)
-- Reply: 1 when re-scored to now + lease; otherwise an error reply whose class
-- names the check that refused, tried in this order:
--   EMQGONE       the row does not exist
--   EMQSTALE      the row's attempts differ from the token
--   EMQNOTACTIVE  the id is not a member of active
local active = KEYS[1]
local row = KEYS[2]
local lease = tonumber(ARGV[1])
local id = ARGV[2]
local token = ARGV[3]
local clock = redis.call('TIME') -- @clock
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local att = redis.call('HGET', row, 'attempts') -- @check-row
if not att then
  return redis.error_reply('EMQGONE job row does not exist') -- @gone
end
if att ~= token then -- @check-token
  return redis.error_reply('EMQSTALE token does not match attempts') -- @stale
end
if not redis.call('ZSCORE', active, id) then -- @check-active
  return redis.error_reply('EMQNOTACTIVE job is not in active') -- @not-active
end
redis.call('ZADD', active, now + lease, id) -- @rescore
return 1 -- @reply
