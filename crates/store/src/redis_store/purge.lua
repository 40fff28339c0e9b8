-- Removes the records of one kind, each named by an argument `name`,
-- whose entry in their expiry index has expired by `now`, as rules.rs
-- `purge` does, with what goes with each (common.lua); an entry moved
-- since it was listed (the answer was kept again, the board entered) is
-- left. Answers how many it removed. Games are walked in the script.
--
-- KEYS: the store's indexes and counts (`call` in redis_store.rs). ARGV:
-- now, prefix, keep_unarchived, kind ('game', 'kept', 'board', 'player'
-- or 'match'), then for games at_most, for the others `name` once for
-- each record.
local now = tonumber(arg.now)
-- Games are walked here, as rules/archive.rs `purge_games` walks them:
-- at most `at_most` taken, each removed or held for the archive. Answers
-- how many of each.
if arg.kind == 'game' then
  local removed, held = 0, 0
  while removed + held < tonumber(arg.at_most) do
    local id = next_expired_game(now)
    if not id then
      break
    end
    if take_expired_game(id) == 'held' then
      held = held + 1
    else
      removed = removed + 1
    end
  end
  return {removed, held}
end
local index = ({kept = key.kept_expiry, board = key.board_expiry,
  player = key.player_expiry, match = key.match_expiry})[arg.kind]
local purged = 0
for _, name in ipairs(list.name or {}) do
  local expires_at = redis.call('ZSCORE', index, name)
  if expires_at and tonumber(expires_at) <= now then
    if arg.kind == 'kept' then
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
