-- A board's best entries, in one step so that ranks and bodies agree.
-- KEYS: the board's head, its ranks, its entries. ARGV: now (20 digits),
-- how many. Nothing for a board absent or expired.
local was = redis.call('HGET', KEYS[1], 'e')
if not was or not (ARGV[1] < was) then
  return {}
end
local ranks = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
if #ranks == 0 then
  return {}
end
return redis.call('HMGET', KEYS[3], unpack(ranks))
