-- Whether a seek was seated: its seat when a pairing took it under this
-- ticket; else, while its entry is this ticket's and live, it is
-- refreshed and waits; else it is gone. Mirrors `seeks/table.rs`.
--
-- KEYS: the player's seat, the seeker's hash. ARGV: prefix, ticket,
-- expires, now, ttl.
local prefix, ticket, expires, now, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local seat = redis.call('GET', KEYS[1])
if seat then
  local taken = cjson.decode(seat)
  if taken.t == ticket and taken.u > now then
    local answer = {'seated', taken.m}
    for _, player in ipairs(taken.p) do
      table.insert(answer, player)
    end
    return answer
  end
end
local entry = redis.call('HMGET', KEYS[2], 't', 'e', 'k')
if entry[1] == ticket and tonumber(entry[2]) > now then
  redis.call('HSET', KEYS[2], 'e', expires)
  redis.call('PEXPIRE', KEYS[2], ttl)
  local line = prefix .. ':seek-line:{' .. entry[3] .. '}'
  if redis.call('PTTL', line) < ttl then
    redis.call('PEXPIRE', line, ttl)
  end
  return {'waiting'}
end
return {'gone'}
