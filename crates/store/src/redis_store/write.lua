-- One write, as rules.rs applies it, atomic because Redis runs a script
-- alone: the key first (a kept answer is replayed whatever the version),
-- then the version, then the bound; the game, the key and the entry are
-- stored only when all three pass.
--
-- KEYS: the game, the game expiry index; with a key: the kept answer,
-- the key expiry index; with an entry: the board's head, its ranks, its
-- entries, the board expiry index.
-- ARGV: now, id, expected version ('' for none), max games, then the
-- game (version, expires at, its score, its TTL, body), the channel that
-- announces changes, what follows ('k' a key, 'e' an entry, both, or
-- ''), then with a key the answer (key, expires at, its score, its TTL,
-- fingerprint, answer), then with an entry the entry (board, rank, body,
-- expires at, its score, its TTL, the board size, max boards).
-- Versions and times are 20-digit decimals, so that comparing them as
-- strings compares the numbers, exactly, past what Lua's doubles hold.
local now = ARGV[1]
local has_key = string.find(ARGV[11], 'k', 1, true) ~= nil
local has_entry = string.find(ARGV[11], 'e', 1, true) ~= nil
-- Where the entry's keys and arguments start, after the key's if any.
local ek, ea = 3, 12
if has_key then
  ek, ea = 5, 18
end

if has_key then
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
if has_key then
  redis.call('HSET', KEYS[3], 'e', ARGV[13], 'f', ARGV[16], 'a', ARGV[17])
  redis.call('PEXPIRE', KEYS[3], ARGV[15])
  redis.call('ZADD', KEYS[4], ARGV[14], ARGV[12])
end

if has_entry then
  local head, ranks, entries, index = KEYS[ek], KEYS[ek + 1], KEYS[ek + 2], KEYS[ek + 3]
  local board, rank, body = ARGV[ea], ARGV[ea + 1], ARGV[ea + 2]
  local expires, score, ttl = ARGV[ea + 3], ARGV[ea + 4], tonumber(ARGV[ea + 5])
  local size, max_boards = tonumber(ARGV[ea + 6]), tonumber(ARGV[ea + 7])
  local was = redis.call('HGET', head, 'e')
  -- An expired board still stored is emptied first.
  if was and not (now < was) then
    redis.call('DEL', head, ranks, entries)
    redis.call('ZREM', index, board)
    was = false
  end
  -- A new board past the bound is not made: the entry is left out.
  if was or redis.call('ZCARD', index) < max_boards then
    if was and was > expires then
      expires, score = was, redis.call('ZSCORE', index, board)
    end
    redis.call('HSET', head, 'e', expires)
    redis.call('ZADD', index, score, board)
    -- Equal scores: the ranks sort by their bytes.
    redis.call('ZADD', ranks, 0, rank)
    redis.call('HSET', entries, rank, body)
    if redis.call('ZCARD', ranks) > size then
      local worst = redis.call('ZRANGE', ranks, -1, -1)[1]
      redis.call('ZREM', ranks, worst)
      redis.call('HDEL', entries, worst)
    end
    -- The board's TTL only grows, as its expiry does.
    if redis.call('PTTL', head) < ttl then
      redis.call('PEXPIRE', head, ttl)
      redis.call('PEXPIRE', ranks, ttl)
      redis.call('PEXPIRE', entries, ttl)
    end
  end
end
-- Every process sharing the store hears of the change, in commit order:
-- `VERSION ID`.
redis.call('PUBLISH', ARGV[10], ARGV[5] .. ' ' .. ARGV[2])
return {'written'}
