-- One write, as rules.rs `apply` makes it, atomic because Redis runs a
-- script alone: the key first (a kept answer is replayed whatever the
-- version), then the version, then the bounds on games and keys; the
-- game, the key and the entry are stored only when all pass.
--
-- KEYS: game, log, game_expiry, kept_expiry, kept_owners, game_keys,
-- kept_bytes; with an entry also board, ranks, entries, board_expiry.
-- ARGV: now, prefix, channel (where changes are announced), id, expected
-- (the version, '' for none), max_games, max_keys_per_game,
-- max_kept_bytes; the game's version, expires, score, ttl, body; each
-- log entry appended as `logged_version` and `logged`; with a
-- key: kept (its name), kept_expires, kept_score, kept_ttl, fingerprint,
-- answer, charge; with an entry: board_name, rank, entry, board_expires,
-- board_score, board_ttl, board_size, max_boards.
local now = arg.now

if arg.kept then
  local kept = live_kept(arg.kept, now)
  if kept then
    return {'replayed', kept[1], kept[2], kept[3]}
  end
end

local stored = redis.call('HMGET', key.game, 'v', 'e')
local current = ''
if stored[1] and now < stored[2] then
  current = stored[1]
end
if current ~= arg.expected then
  return {'stale', current}
end

-- Only a new id adds a game; one that replaces an expired game does not.
-- The index, not the record, says which ids are stored. An expired game
-- never counts: a full store removes one first.
if not redis.call('ZSCORE', key.game_expiry, arg.id)
    and redis.call('ZCARD', key.game_expiry) >= tonumber(arg.max_games) then
  local expired = first_expired(key.game_expiry, now)
  if not expired then
    return {'full'}
  end
  remove_game(expired)
end

if arg.kept then
  local bound = over_bound(arg.id, tonumber(arg.charge), now)
  if bound then
    return {'too_many_keys', bound}
  end
end

redis.call('HSET', key.game, 'v', arg.version, 'e', arg.expires, 'b', arg.body)
redis.call('PEXPIRE', key.game, arg.ttl)
redis.call('ZADD', key.game_expiry, arg.score, arg.id)
-- A create starts a new log: an expired game's under the id goes. The log
-- is a hash of version to entry, expiring with the game.
if arg.expected == '' then
  redis.call('DEL', key.log)
end
local versions, logged = list.logged_version or {}, list.logged or {}
for i = 1, #logged do
  redis.call('HSET', key.log, versions[i], logged[i])
end
redis.call('PEXPIRE', key.log, arg.ttl)
if arg.kept then
  put_kept(arg.kept, arg.id, arg.kept_expires, arg.kept_score, arg.kept_ttl,
    arg.fingerprint, arg.answer, arg.charge)
end

if arg.board_name then
  local head, ranks, entries, index = key.board, key.ranks, key.entries, key.board_expiry
  local board, rank, body = arg.board_name, arg.rank, arg.entry
  local expires, score, ttl = arg.board_expires, arg.board_score, tonumber(arg.board_ttl)
  local size, max_boards = tonumber(arg.board_size), tonumber(arg.max_boards)
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
redis.call('PUBLISH', arg.channel, arg.version .. ' ' .. arg.id)
return {'written'}
