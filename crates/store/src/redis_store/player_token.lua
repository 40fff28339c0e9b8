-- The live player whose current token hashes to ARGV[3], as
-- `Store::player_by_token` answers it: its id, version, expiry and body;
-- nothing for a hash no live player has. KEYS: token-players. ARGV: now
-- (20 digits), prefix, the hash.
local id = redis.call('HGET', KEYS[1], ARGV[3])
if not id then
  return {}
end
local player = redis.call('HMGET', ARGV[2] .. ':player:{' .. id .. '}', 'v', 'e', 't', 'b')
if not player[1] or not (ARGV[1] < player[2]) or player[3] ~= ARGV[3] then
  return {}
end
return {id, player[1], player[2], player[4]}
