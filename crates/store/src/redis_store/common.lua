-- What every script of the store begins with: its named arguments, and
-- the removals that keep the counts right. Scripts mirror rules.rs.
--
-- Arguments are named: ARGV is NAME VALUE pairs, read into `arg` (and,
-- for a name given more than once, every value in order into `list`),
-- and the argument `keys` names the KEYS in their order, read into `key`.
-- Versions and times are 20-digit decimals, so that comparing them as
-- strings compares the numbers, exactly, past what Lua's doubles hold;
-- index scores are plain numbers.
local arg, key, list = {}, {}, {}
for i = 1, #ARGV, 2 do
  local name, value = ARGV[i], ARGV[i + 1]
  arg[name] = value
  list[name] = list[name] or {}
  table.insert(list[name], value)
end
do
  local k = 1
  for name in string.gmatch(arg.keys or '', '%S+') do
    key[name] = KEYS[k]
    k = k + 1
  end
end

-- The records a removal reaches by name (an expired game or answer found
-- while making room, a purged answer's counts). Their names are made
-- here, not passed: the store runs on one Redis primary, never a Cluster.
local function game_record(id)
  return arg.prefix .. ':game:{' .. id .. '}'
end
local function kept_record(name)
  return arg.prefix .. ':kept:{' .. name .. '}'
end

local function log_record(id)
  return arg.prefix .. ':log:{' .. id .. '}'
end

-- Removes a game, its log and its index entry.
local function remove_game(id)
  redis.call('DEL', game_record(id), log_record(id))
  redis.call('ZREM', key.game_expiry, id)
end

-- Removes a kept answer, its index entry and its counts: its game's
-- count and its charge in the bytes kept. An answer kept before the
-- counts existed has no owner and counts for nothing.
local function remove_kept(name)
  redis.call('DEL', kept_record(name))
  redis.call('ZREM', key.kept_expiry, name)
  local owner = redis.call('HGET', key.kept_owners, name)
  if owner then
    redis.call('HDEL', key.kept_owners, name)
    local charge, game = string.match(owner, '^(%d+) (.*)$')
    if redis.call('HINCRBY', key.game_keys, game, -1) <= 0 then
      redis.call('HDEL', key.game_keys, game)
    end
    redis.call('DECRBY', key.kept_bytes, charge)
  end
end

-- The first record of `index` to expire, if it has expired by `now`.
local function first_expired(index, now)
  local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if first[1] and tonumber(first[2]) <= tonumber(now) then
    return first[1]
  end
  return nil
end

-- The live answer kept under `name` as {expires, fingerprint, answer};
-- an expired one still stored is removed, as a purge would. The index,
-- not the record, says what is stored: Redis may have dropped an expired
-- record by its TTL before a purge took it out.
local function live_kept(name, now)
  if not redis.call('ZSCORE', key.kept_expiry, name) then
    return nil
  end
  local kept = redis.call('HMGET', kept_record(name), 'e', 'f', 'a')
  if kept[1] and now < kept[1] then
    return kept
  end
  remove_kept(name)
  return nil
end

-- The bound a new answer for `game` of `charge` bytes would pass
-- ('game' or 'store'), or nil; expired answers are removed, the first to
-- expire first, to make room in the bytes (16 at most).
local function over_bound(game, charge, now)
  if tonumber(redis.call('HGET', key.game_keys, game) or '0') >= tonumber(arg.max_keys_per_game) then
    return 'game'
  end
  local room = 16
  while tonumber(redis.call('GET', key.kept_bytes) or '0') + charge > tonumber(arg.max_kept_bytes) do
    local expired = first_expired(key.kept_expiry, now)
    if room == 0 or not expired then
      return 'store'
    end
    remove_kept(expired)
    room = room - 1
  end
  return nil
end

-- Stores an answer under `name` for `game`, with its counts.
local function put_kept(name, game, expires, score, ttl, fingerprint, answer, charge)
  local record = kept_record(name)
  redis.call('HSET', record, 'e', expires, 'f', fingerprint, 'a', answer)
  redis.call('PEXPIRE', record, ttl)
  redis.call('ZADD', key.kept_expiry, score, name)
  redis.call('HSET', key.kept_owners, name, charge .. ' ' .. game)
  redis.call('HINCRBY', key.game_keys, game, 1)
  redis.call('INCRBY', key.kept_bytes, charge)
end

