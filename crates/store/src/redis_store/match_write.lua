-- One match's write, as rules.rs `apply_match` makes it, atomic because
-- Redis runs a script alone: the key first (a kept answer is replayed
-- whatever the version), then the match's version, then the bound on
-- matches, then each player's version (and token's hash), then the bound
-- on keys; the match, its due index entry, its players and the key are
-- stored only when all pass, every check before the first change.
--
-- KEYS: match, and the store's indexes and counts (`call` in
-- redis_store.rs). ARGV: now, prefix, channel, id, expected (the version,
-- '' for none), max_matches; the match's version, expires, score, ttl,
-- body, and with a timer due (20 digits) and due_score; with a key as
-- write.lua has it; for each player, in order: player_id,
-- player_expected, player_version, player_expires, player_score,
-- player_ttl, player_body, player_token ('' for none).
local now, id = arg.now, arg.id

if arg.kept then
  local kept = live_kept(arg.kept, now)
  if kept then
    return {'replayed', kept[1], kept[2], kept[3]}
  end
end

local stored = redis.call('ZSCORE', key.match_expiry, id)
local record = redis.call('HMGET', key.match, 'v', 'e')
local current = ''
if record[1] and now < record[2] then
  current = record[1]
end
if current ~= arg.expected then
  return {'stale', current}
end

-- Only a new id adds a match; an expired one never counts: a full store
-- removes one first.
if not stored and redis.call('ZCARD', key.match_expiry) >= tonumber(arg.max_matches) then
  local expired = first_expired(key.match_expiry, now)
  if not expired then
    return {'full'}
  end
  remove_match(expired)
end

local players = list.player_id or {}
for i, player in ipairs(players) do
  local fields = redis.call('HMGET', player_record(player), 'v', 'e')
  local version = ''
  if fields[1] and now < fields[2] then
    version = fields[1]
  end
  if version ~= list.player_expected[i] then
    return {'player_stale', player, version}
  end
  local token = list.player_token[i]
  if token ~= '' then
    local holder = redis.call('HGET', key.token_players, token)
    if holder and holder ~= player then
      local other = redis.call('HGET', player_record(holder), 'e')
      if other then
        if now < other then
          return {'token_taken', player}
        end
        remove_player(holder)
      end
    end
  end
end

if arg.kept then
  local bound = over_bound(id, tonumber(arg.charge), now)
  if bound then
    return {'too_many_keys', bound}
  end
end

-- A create over an expired match starts it afresh.
if arg.expected == '' and stored then
  remove_match(id)
end
redis.call('HSET', key.match, 'v', arg.version, 'e', arg.expires, 'b', arg.body)
if arg.due then
  redis.call('HSET', key.match, 'd', arg.due)
  redis.call('ZADD', key.match_due, arg.due_score, id)
else
  redis.call('HDEL', key.match, 'd')
  redis.call('ZREM', key.match_due, id)
end
redis.call('PEXPIRE', key.match, arg.ttl)
redis.call('ZADD', key.match_expiry, arg.score, id)
-- The indexes live as long as the longest-lived match they list.
outlive(key.match_expiry, arg.ttl)
if arg.due then
  outlive(key.match_due, arg.ttl)
end

-- Each player as player_write.lua changes a stored one.
for i, player in ipairs(players) do
  local name, token, ttl = player_record(player), list.player_token[i], list.player_ttl[i]
  local old = redis.call('HGET', key.player_tokens, player)
  if old and old ~= token then
    untoken(old, player)
  end
  redis.call('HSET', name, 'v', list.player_version[i], 'e', list.player_expires[i],
    'b', list.player_body[i])
  if token ~= '' then
    redis.call('HSET', name, 't', token)
    redis.call('HSET', key.token_players, token, player)
    redis.call('HSET', key.player_tokens, player, token)
  else
    redis.call('HDEL', name, 't')
  end
  redis.call('PEXPIRE', name, ttl)
  redis.call('ZADD', key.player_expiry, list.player_score[i], player)
  outlive(player_boards(player), ttl)
  outlive(player_games(player), ttl)
end

if arg.kept then
  put_kept(arg.kept, id, arg.kept_expires, arg.kept_score, arg.kept_ttl,
    arg.fingerprint, arg.answer, arg.charge)
end

-- Heard by every process sharing the store, apart from games' changes:
-- `match VERSION ID`.
redis.call('PUBLISH', arg.channel, 'match ' .. arg.version .. ' ' .. id)
return {'written'}
