-- A board's best entries, in one step so that ranks and bodies agree.
-- KEYS: the board's head, its ranks, its entries. ARGV: now (20 digits),
-- the index of the last entry wanted (how many, less one), passed on as
-- text: as a Lua number, a limit past 2^53 became a float that Redis
-- refused as an index. Nothing for a board absent or expired.
local was = redis.call('HGET', KEYS[1], 'e')
if not was or not (ARGV[1] < was) then
  return {}
end
local ranks = redis.call('ZRANGE', KEYS[2], 0, ARGV[2])
if #ranks == 0 then
  return {}
end
return redis.call('HMGET', KEYS[3], unpack(ranks))
