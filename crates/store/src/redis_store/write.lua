-- One write, as rules.rs `apply` makes it, atomic because Redis runs a
-- script alone: the key first (a kept answer is replayed whatever the
-- version), then the version, then the bounds on games, on the owner's
-- games and on keys; the game, its mark, its place in its owner's list,
-- the key and the entry are stored only when all pass.
--
-- KEYS: game, log, and the store's indexes and counts (`call` in
-- redis_store.rs). ARGV: now, prefix, channel (where changes are
-- announced), id, expected (the version, '' for none), max_games,
-- max_games_per_player, max_keys_per_game, max_kept_bytes; the game's
-- version, expires, score, ttl, body; with an owner (read on a create
-- alone): owner; each log entry appended as `logged_version` and
-- `logged`; with a key: kept (its name), kept_expires, kept_score,
-- kept_ttl, fingerprint, answer, charge; with an entry: board_name,
-- player, rank, entry, board_expires, board_score, board_ttl, board_size,
-- max_boards; finished ('1') when the change ends the game, and
-- keep_unarchived ('1' or '0').
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
-- A create over an expired game that waits for its archive copy.
if arg.expected == '' and stored[1] and kept_for_archive(arg.id) then
  return {'stale', ''}
end

-- Only a new id adds a game; one that replaces an expired game does not.
-- The indexes, not the record, say which ids are stored. An expired game
-- never counts, unless held for the archive: a full store removes one
-- first, the first to expire first (16 taken at most).
if not game_stored(arg.id) and game_count() >= tonumber(arg.max_games) then
  local room = false
  for _ = 1, 16 do
    local expired = next_expired_game(now)
    if not expired then
      break
    end
    if take_expired_game(expired) == 'removed' and game_count() < tonumber(arg.max_games) then
      room = true
      break
    end
  end
  if not room then
    return {'full'}
  end
end

-- Only the owner's live games count: an expired one waits for its purge.
local owner = nil
if arg.expected == '' then
  owner = arg.owner
end
if owner then
  local live = 0
  for _, owned in ipairs(redis.call('ZRANGE', player_games(owner), 0, -1)) do
    local game = string.match(owned, '^%d+ (.*)$')
    local expires = redis.call('HGET', game_record(game), 'e')
    if expires and now < expires then
      live = live + 1
    end
  end
  if live >= tonumber(arg.max_games_per_player) then
    return {'player_full'}
  end
end

if arg.kept then
  local bound = over_bound(arg.id, tonumber(arg.charge), now)
  if bound then
    return {'too_many_keys', bound}
  end
end

-- A create starts a new log, a new place in a list and a new mark: an
-- expired game's under the id go, and its entry in the held index.
if arg.expected == '' then
  redis.call('DEL', key.log)
  unown(arg.id)
  redis.call('ZREM', key.unarchived, arg.id)
  redis.call('ZREM', key.game_held, arg.id)
end
redis.call('HSET', key.game, 'v', arg.version, 'e', arg.expires, 'b', arg.body)
redis.call('ZADD', key.game_expiry, arg.score, arg.id)
-- The change that ends the game marks it for the archive, once.
if arg.finished == '1' and not redis.call('ZSCORE', key.unarchived, arg.id) then
  redis.call('ZADD', key.unarchived, now, arg.id)
end
-- A game kept for the archive has no TTL: it leaves once archived. The
-- log is a hash of version to entry, expiring with the game.
local persist = kept_for_archive(arg.id)
if persist then
  redis.call('PERSIST', key.game)
else
  redis.call('PEXPIRE', key.game, arg.ttl)
end
if owner then
  redis.call('HSET', key.game_owners, arg.id, now .. ' ' .. owner)
  redis.call('ZADD', player_games(owner), 0, owned_member(now, arg.id))
end
-- The owner's list lives as long as its longest-lived game.
local owned = redis.call('HGET', key.game_owners, arg.id)
if owned then
  outlive(player_games(string.match(owned, '^%d+ (.*)$')), arg.ttl)
end
local versions, logged = list.logged_version or {}, list.logged or {}
for i = 1, #logged do
  redis.call('HSET', key.log, versions[i], logged[i])
end
if persist then
  redis.call('PERSIST', key.log)
else
  redis.call('PEXPIRE', key.log, arg.ttl)
end
if arg.kept then
  put_kept(arg.kept, arg.id, arg.kept_expires, arg.kept_score, arg.kept_ttl,
    arg.fingerprint, arg.answer, arg.charge)
end

if arg.board_name then
  local board, player, rank, body = arg.board_name, arg.player, arg.rank, arg.entry
  local head, ranks, entries, entry_players, board_players = board_keys(board)
  local index = key.board_expiry
  local expires, score, ttl = arg.board_expires, arg.board_score, tonumber(arg.board_ttl)
  local size, max_boards = tonumber(arg.board_size), tonumber(arg.max_boards)
  local was = redis.call('HGET', head, 'e')
  -- An expired board still stored is emptied first.
  if was and not (now < was) then
    remove_board(board)
    was = false
  end
  -- A new board past the bound is not made: the entry is left out. A
  -- player's entry is replaced by a better one only.
  local held = redis.call('HGET', board_players, player)
  if (was or redis.call('ZCARD', index) < max_boards) and not (held and rank >= held) then
    if held then
      remove_entry(board, held)
    end
    -- An entry of the same rank goes, whoever its player.
    if redis.call('ZSCORE', ranks, rank) then
      remove_entry(board, rank)
    end
    if was and was > expires then
      expires, score = was, redis.call('ZSCORE', index, board)
    end
    redis.call('HSET', head, 'e', expires)
    redis.call('ZADD', index, score, board)
    -- Equal scores: the ranks sort by their bytes.
    redis.call('ZADD', ranks, 0, rank)
    redis.call('HSET', entries, rank, body)
    redis.call('HSET', entry_players, rank, player)
    redis.call('HSET', board_players, player, rank)
    redis.call('SADD', player_boards(player), board)
    if redis.call('ZCARD', ranks) > size then
      remove_entry(board, redis.call('ZRANGE', ranks, -1, -1)[1])
    end
    -- The board's TTL only grows, as its expiry does, and is given to
    -- each of its keys (one emptied above was made again with none); the
    -- player's list of boards lives as long as the longest-lived of them.
    local keep = math.max(redis.call('PTTL', head), ttl)
    for _, name in ipairs({head, ranks, entries, entry_players, board_players}) do
      redis.call('PEXPIRE', name, keep)
    end
    outlive(player_boards(player), ttl)
  end
end
-- Every process sharing the store hears of the change, in commit order:
-- `VERSION ID`.
redis.call('PUBLISH', arg.channel, arg.version .. ' ' .. arg.id)
return {'written'}
