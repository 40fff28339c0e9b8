-- A page of a board, in one step so that ranks, players and bodies
-- agree, as `BoardPage::of` (board.rs) pages one. KEYS: the board's
-- head, ranks, entries, entry-players, board-players. ARGV: now (20
-- digits); how the page starts ('top', 'after' or 'around'); the rank
-- after which it starts, or the player around whom it does; how many
-- places above the player; how many entries (at most 2^40, so that every
-- sum stays an exact Lua number). Answers nothing for a board absent or
-- expired, else its first entry's place, the player's place ('' for
-- none), then each entry's rank, player ('' for an entry stored before
-- entries named their player) and body.
local was = redis.call('HGET', KEYS[1], 'e')
if not was or not (ARGV[1] < was) then
  return {}
end
local from, found = 0, ''
if ARGV[2] == 'after' then
  from = redis.call('ZLEXCOUNT', KEYS[2], '-', '[' .. ARGV[3])
elseif ARGV[2] == 'around' then
  local rank = redis.call('HGET', KEYS[5], ARGV[3])
  local place = rank and redis.call('ZRANK', KEYS[2], rank)
  if place then
    from = math.max(0, place - tonumber(ARGV[4]))
    found = tostring(place)
  end
end
local page = {tostring(from), found}
local limit = tonumber(ARGV[5])
if limit == 0 then
  return page
end
local ranks = redis.call('ZRANGE', KEYS[2], from, from + limit - 1)
if #ranks == 0 then
  return page
end
local bodies = redis.call('HMGET', KEYS[3], unpack(ranks))
local players = redis.call('HMGET', KEYS[4], unpack(ranks))
for i, rank in ipairs(ranks) do
  table.insert(page, rank)
  table.insert(page, players[i] or '')
  table.insert(page, bodies[i])
end
return page
