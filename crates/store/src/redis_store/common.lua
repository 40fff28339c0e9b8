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
local function player_record(id)
  return arg.prefix .. ':player:{' .. id .. '}'
end
local function match_record(id)
  return arg.prefix .. ':match:{' .. id .. '}'
end
local function player_boards(id)
  return arg.prefix .. ':player-boards:{' .. id .. '}'
end
local function player_games(id)
  return arg.prefix .. ':player-games:{' .. id .. '}'
end
-- A board's keys: its head, its ranks, its bodies by rank, its players
-- by rank, and its ranks by player.
local function board_keys(board)
  local tag = '{' .. board .. '}'
  return arg.prefix .. ':board:' .. tag, arg.prefix .. ':ranks:' .. tag,
    arg.prefix .. ':entries:' .. tag, arg.prefix .. ':entry-players:' .. tag,
    arg.prefix .. ':board-players:' .. tag
end

-- Gives `name` at least `ttl` ms to live: a key that several records
-- keep alive lives as long as the longest of them.
local function outlive(name, ttl)
  if redis.call('PTTL', name) < tonumber(ttl) then
    redis.call('PEXPIRE', name, ttl)
  end
end

-- An owned game's place in its owner's list: `CREATED ID`, the creation
-- as 20 digits, so that the list sorts by creation then id.
local function owned_member(created, id)
  return created .. ' ' .. id
end

-- Takes the game `id` out of its owner's list, if it is in one.
local function unown(id)
  local owned = redis.call('HGET', key.game_owners, id)
  if owned then
    local created, owner = string.match(owned, '^(%d+) (.*)$')
    redis.call('ZREM', player_games(owner), owned_member(created, id))
    redis.call('HDEL', key.game_owners, id)
  end
end

-- Removes a game, its log, its index entry (expiry or held), its place in
-- its owner's list and its mark for the archive.
local function remove_game(id)
  redis.call('DEL', game_record(id), log_record(id))
  redis.call('ZREM', key.game_expiry, id)
  redis.call('ZREM', key.game_held, id)
  redis.call('ZREM', key.unarchived, id)
  unown(id)
end

-- Removes the entry of `rank` from `board`, and its player's links to it.
local function remove_entry(board, rank)
  local _, ranks, entries, entry_players, board_players = board_keys(board)
  redis.call('ZREM', ranks, rank)
  redis.call('HDEL', entries, rank)
  local player = redis.call('HGET', entry_players, rank)
  if player then
    redis.call('HDEL', entry_players, rank)
    redis.call('HDEL', board_players, player)
    redis.call('SREM', player_boards(player), board)
  end
end

-- Removes a board, its entries, their players' links and its index entry.
local function remove_board(board)
  local head, ranks, entries, entry_players, board_players = board_keys(board)
  local players = redis.call('HKEYS', board_players)
  for _, player in ipairs(players) do
    redis.call('SREM', player_boards(player), board)
  end
  redis.call('DEL', head, ranks, entries, entry_players, board_players)
  redis.call('ZREM', key.board_expiry, board)
end

-- Takes `token`'s hash out of the index if it is `id`'s.
local function untoken(token, id)
  if redis.call('HGET', key.token_players, token) == id then
    redis.call('HDEL', key.token_players, token)
  end
  redis.call('HDEL', key.player_tokens, id)
end

-- Removes a player, its index entry, and what goes with it: its token's
-- hash, its entries on every board and the list of its games (the games
-- stay). The token is read from `player_tokens`, which has no TTL, so
-- that it goes even when Redis dropped the player's record first.
local function remove_player(id)
  local token = redis.call('HGET', key.player_tokens, id)
  if token then
    untoken(token, id)
  end
  local boards = player_boards(id)
  for _, board in ipairs(redis.call('SMEMBERS', boards)) do
    local _, _, _, _, board_players = board_keys(board)
    local rank = redis.call('HGET', board_players, id)
    if rank then
      remove_entry(board, rank)
    end
  end
  local games = player_games(id)
  for _, owned in ipairs(redis.call('ZRANGE', games, 0, -1)) do
    local created, game = string.match(owned, '^(%d+) (.*)$')
    if redis.call('HGET', key.game_owners, game) == created .. ' ' .. id then
      redis.call('HDEL', key.game_owners, game)
    end
  end
  redis.call('DEL', player_record(id), boards, games)
  redis.call('ZREM', key.player_expiry, id)
end

-- Removes a match, its expiry index entry and its due index entry (the
-- due index's member is the match's id, so it goes even when Redis
-- dropped the record first).
local function remove_match(id)
  redis.call('DEL', match_record(id))
  redis.call('ZREM', key.match_expiry, id)
  redis.call('ZREM', key.match_due, id)
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

-- Whether a game is stored under `id`. The indexes, not the record, say
-- which ids are stored: Redis may have dropped an expired record by its
-- TTL before a purge took it out.
local function game_stored(id)
  return redis.call('ZSCORE', key.game_expiry, id) or redis.call('ZSCORE', key.game_held, id)
end

-- How many games are stored: those held for the archive count.
local function game_count()
  return redis.call('ZCARD', key.game_expiry) + redis.call('ZCARD', key.game_held)
end

-- Whether the game `id` stays for the archive once expired, as
-- rules/archive.rs `kept` says: marked, and marked games kept.
local function kept_for_archive(id)
  return arg.keep_unarchived == '1' and redis.call('ZSCORE', key.unarchived, id) ~= false
end

-- The first entry of `index`, id and score, if it has expired by `now`.
local function first_expired_entry(index, now)
  local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if first[1] and tonumber(first[2]) <= tonumber(now) then
    return first[1], tonumber(first[2])
  end
  return nil, nil
end

-- The next expired game a walk takes, the first to expire first (by
-- expiry, then by id), as rules/archive.rs `next_expired`: the first of
-- the expiry index; with marked games not kept, the first of it and of
-- the held index.
local function next_expired_game(now)
  local id, expires = first_expired_entry(key.game_expiry, now)
  if arg.keep_unarchived == '1' then
    return id
  end
  local held, held_expires = first_expired_entry(key.game_held, now)
  if held and (not id or held_expires < expires or (held_expires == expires and held < id)) then
    return held
  end
  return id
end

-- Takes the expired game `id`, as rules/archive.rs `take`: holds it if
-- it stays for the archive (out of the expiry index into the held one,
-- its record and log with no TTL, so that Redis keeps them too), else
-- removes it. Answers 'held' or 'removed'.
local function take_expired_game(id)
  if kept_for_archive(id) then
    local expires = redis.call('ZSCORE', key.game_expiry, id)
    redis.call('ZREM', key.game_expiry, id)
    redis.call('ZADD', key.game_held, expires, id)
    redis.call('PERSIST', game_record(id))
    redis.call('PERSIST', log_record(id))
    return 'held'
  end
  remove_game(id)
  return 'removed'
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

