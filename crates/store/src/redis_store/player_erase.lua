-- Erases a live player at the expected version, as rules.rs
-- `erase_player` does: the player with its token's hash, its entries on
-- every board and the list of its games (common.lua's `remove_player`).
--
-- KEYS: player, and the store's indexes and counts (`call` in
-- redis_store.rs). ARGV: now, prefix, id, expected (the version).
local record = redis.call('HMGET', key.player, 'v', 'e')
local current = ''
if record[1] and arg.now < record[2] then
  current = record[1]
end
if current == '' or current ~= arg.expected then
  return {'stale', current}
end
remove_player(arg.id)
return {'written'}
