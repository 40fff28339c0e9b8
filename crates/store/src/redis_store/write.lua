-- One write, as rules.rs applies it, atomic because Redis runs a script
-- alone: the key first (a kept answer is replayed whatever the version),
-- then the version, then the bound; the game and the key are stored
-- only when all three pass.
--
-- KEYS: the game, the game expiry index, and with a key: the kept
-- answer, the key expiry index.
-- ARGV: now, id, expected version ('' for none), max games, then the
-- game (version, expires at, its score, its TTL, body), the channel that
-- announces changes, then with a key the answer (key, expires at, its
-- score, its TTL, fingerprint, answer).
-- Versions and times are 20-digit decimals, so that comparing them as
-- strings compares the numbers, exactly, past what Lua's doubles hold.
local now = ARGV[1]

if #KEYS == 4 then
  local kept = redis.call('HMGET', KEYS[3], 'e', 'f', 'a')
  if kept[1] and now < kept[1] then
    return {'replayed', kept[1], kept[2], kept[3]}
  end
end

local stored = redis.call('HMGET', KEYS[1], 'v', 'e')
local current = ''
if stored[1] and now < stored[2] then
  current = stored[1]
end
if current ~= ARGV[3] then
  return {'stale', current}
end

-- Only a new id adds a game; one that replaces an expired game does not.
-- The index, not the record, says which ids are stored: Redis may have
-- dropped an expired record by its TTL before a purge took it out.
if not redis.call('ZSCORE', KEYS[2], ARGV[2])
    and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return {'full'}
end

redis.call('HSET', KEYS[1], 'v', ARGV[5], 'e', ARGV[6], 'b', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[2])
if #KEYS == 4 then
  redis.call('HSET', KEYS[3], 'e', ARGV[12], 'f', ARGV[15], 'a', ARGV[16])
  redis.call('PEXPIRE', KEYS[3], ARGV[14])
  redis.call('ZADD', KEYS[4], ARGV[13], ARGV[11])
end
-- Every process sharing the store hears of the change, in commit order:
-- `VERSION ID`.
redis.call('PUBLISH', ARGV[10], ARGV[5] .. ' ' .. ARGV[2])
return {'written'}
