-- Adds a player's seek, or refreshes it when the ticket is its entry's
-- already (keeping its place in line); a seek of another ticket replaces
-- the player's entry, whatever its key. Mirrors `seeks/table.rs`.
--
-- KEYS: the seeker's hash. ARGV: prefix, key, player, ticket, rating,
-- now (unused: the caller's time), expires, ttl.
local prefix, key, player, ticket, rating = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local expires, ttl = ARGV[7], tonumber(ARGV[8])
local seeker = KEYS[1]
local line = prefix .. ':seek-line:{' .. key .. '}'
local old = redis.call('HMGET', seeker, 'k', 't')
if old[1] == key and old[2] == ticket then
  redis.call('HSET', seeker, 'e', expires, 'r', rating)
else
  if old[1] then
    redis.call('ZREM', prefix .. ':seek-line:{' .. old[1] .. '}', player)
  end
  redis.call('DEL', seeker)
  redis.call('HSET', seeker, 'k', key, 't', ticket, 'r', rating, 'e', expires)
  -- Scored by arrival, a count: seeks in one millisecond keep their order.
  local arrivals = prefix .. ':seek-arrivals'
  redis.call('ZADD', line, redis.call('INCR', arrivals), player)
  if redis.call('PTTL', arrivals) < ttl then
    redis.call('PEXPIRE', arrivals, ttl)
  end
end
redis.call('PEXPIRE', seeker, ttl)
-- The line lives as long as its longest-lived seeker.
if redis.call('PTTL', line) < ttl then
  redis.call('PEXPIRE', line, ttl)
end
return 0
