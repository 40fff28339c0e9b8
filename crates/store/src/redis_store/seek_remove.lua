-- Removes a player's seek if it is still this ticket's: its request
-- ended unseated.
--
-- KEYS: the seeker's hash. ARGV: prefix, player, ticket.
local entry = redis.call('HMGET', KEYS[1], 'k', 't')
if entry[2] == ARGV[3] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', ARGV[1] .. ':seek-line:{' .. entry[1] .. '}', ARGV[2])
end
return 0
