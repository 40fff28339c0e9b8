-- Removes the records of one kind, each named by an argument `name`,
-- whose entry in their expiry index has expired by `now`, as rules.rs
-- `purge` does, with what goes with each (common.lua); an entry moved
-- since it was listed (the game was played on, or created again) is
-- left. Answers how many it removed.
--
-- KEYS: the store's indexes and counts (`call` in redis_store.rs). ARGV:
-- now, prefix, kind ('game', 'kept', 'board', 'player' or 'match'), then `name`
-- once for each record.
local now = tonumber(arg.now)
local index = ({game = key.game_expiry, kept = key.kept_expiry, board = key.board_expiry,
  player = key.player_expiry, match = key.match_expiry})[arg.kind]
local purged = 0
for _, name in ipairs(list.name or {}) do
  local expires_at = redis.call('ZSCORE', index, name)
  if expires_at and tonumber(expires_at) <= now then
    if arg.kind == 'game' then
      remove_game(name)
    elseif arg.kind == 'kept' then
      remove_kept(name)
    elseif arg.kind == 'board' then
      remove_board(name)
    elseif arg.kind == 'match' then
      remove_match(name)
    else
      remove_player(name)
    end
    purged = purged + 1
  end
end
return purged
