-- A player's live games, newest created first, as
-- `Store::player_games` lists them. KEYS: the player's list (members
-- `CREATED ID`, all of score 0). ARGV: now (20 digits), prefix, the
-- member after which the page starts ('' for the first), how many (at
-- most 2^40). Answers the members listed.
local from = '+'
if ARGV[3] ~= '' then
  from = '(' .. ARGV[3]
end
local limit = tonumber(ARGV[4])
local listed = {}
if limit == 0 then
  return listed
end
for _, owned in ipairs(redis.call('ZREVRANGEBYLEX', KEYS[1], from, '-')) do
  local id = string.match(owned, '^%d+ (.*)$')
  local expires = redis.call('HGET', ARGV[2] .. ':game:{' .. id .. '}', 'e')
  if expires and ARGV[1] < expires then
    table.insert(listed, owned)
    if #listed == limit then
      break
    end
  end
end
return listed
