-- One player's write, as rules.rs `apply_player` makes it: the version
-- first, then the bound on players, then the token's hash; the player
-- and its hash are stored only when all pass. A hash indexed for an
-- expired player erases that player, as a purge would.
--
-- KEYS: player, and the store's indexes and counts (`call` in
-- redis_store.rs). ARGV: now, prefix, id, expected (the version, '' for
-- none), max_players; the player's version, expires, score, ttl, body,
-- and its token's hash if it has one: token.
local now, id = arg.now, arg.id
local stored = redis.call('ZSCORE', key.player_expiry, id)
local record = redis.call('HMGET', key.player, 'v', 'e')
local current = ''
if record[1] and now < record[2] then
  current = record[1]
end
if current ~= arg.expected then
  return {'stale', current}
end

-- Only a new id adds a player; an expired one never counts: a full store
-- removes one first.
if not stored and redis.call('ZCARD', key.player_expiry) >= tonumber(arg.max_players) then
  local expired = first_expired(key.player_expiry, now)
  if not expired then
    return {'full'}
  end
  remove_player(expired)
end

if arg.token then
  local holder = redis.call('HGET', key.token_players, arg.token)
  if holder and holder ~= id then
    local other = redis.call('HGET', player_record(holder), 'e')
    if other then
      if now < other then
        return {'token_taken'}
      end
      remove_player(holder)
    end
  end
end

if arg.expected == '' then
  -- A create over an expired player erases it first.
  if stored then
    remove_player(id)
  end
else
  local old = redis.call('HGET', key.player_tokens, id)
  if old and old ~= arg.token then
    untoken(old, id)
  end
end
redis.call('HSET', key.player, 'v', arg.version, 'e', arg.expires, 'b', arg.body)
if arg.token then
  redis.call('HSET', key.player, 't', arg.token)
  redis.call('HSET', key.token_players, arg.token, id)
  redis.call('HSET', key.player_tokens, id, arg.token)
else
  redis.call('HDEL', key.player, 't')
end
redis.call('PEXPIRE', key.player, arg.ttl)
redis.call('ZADD', key.player_expiry, arg.score, id)
-- The player's lists live at least as long as the player.
outlive(player_boards(id), arg.ttl)
outlive(player_games(id), arg.ttl)
return {'written'}
