-- A heartbeat, by the rules of `downtime.rs`, in one step so that two
-- processes starting at once record one outage between them. KEYS[1] is
-- the heartbeat (a string: the last heartbeat), KEYS[2] the outages (a
-- sorted set: each `START:END`, scored by its end). ARGV: now and now
-- less the gap, as 20 digits compared as text (as the write script
-- compares times); now again and the end before which outages are
-- forgotten, as plain numbers, for scores; the most outages kept.
local now = ARGV[1]
local gap_start = ARGV[2]
local score = ARGV[3]
local forget_before = ARGV[4]
local most = tonumber(ARGV[5])
local last = redis.call('GET', KEYS[1])
local outage = {}
if last and last < gap_start then
  redis.call('ZADD', KEYS[2], score, last .. ':' .. now)
  outage = {last, now}
end
if not last or now > last then
  redis.call('SET', KEYS[1], now)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. forget_before)
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(most + 1))
return outage
