-- Takes `seats` live seekers of one key whose ratings are within `range`
-- of the first's, and records the seat of each: the players taken, or
-- none. The first seeker is the oldest in line with enough partners, and
-- its partners the nearest in line to it (`choose` in `seeks.rs`);
-- expired entries met in line are dropped.
--
-- KEYS: the key's line. ARGV: prefix, key, seats, range, match id, now,
-- seat kept until, seat ttl, how many in line are looked at.
local prefix, key, seats, range = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local id, now, until_ms, ttl, scan = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local players, ratings, tickets = {}, {}, {}
for _, player in ipairs(redis.call('ZRANGE', KEYS[1], 0, scan - 1)) do
  local seeker = prefix .. ':seeker:{' .. player .. '}'
  local entry = redis.call('HMGET', seeker, 'k', 't', 'r', 'e')
  if entry[1] == key and entry[4] and tonumber(entry[4]) > now then
    table.insert(players, player)
    table.insert(ratings, tonumber(entry[3]))
    table.insert(tickets, entry[2])
  else
    redis.call('ZREM', KEYS[1], player)
    if entry[1] == key then
      redis.call('DEL', seeker)
    end
  end
end
if #players < seats then
  return {}
end
local taken = nil
for first = 1, #players do
  local chosen = {first}
  for other = 1, #players do
    if #chosen == seats then
      break
    end
    if other ~= first and math.abs(ratings[other] - ratings[first]) <= range then
      table.insert(chosen, other)
    end
  end
  if #chosen == seats then
    taken = chosen
    break
  end
end
if not taken then
  return {}
end
local names = {}
for _, i in ipairs(taken) do
  table.insert(names, players[i])
end
for _, i in ipairs(taken) do
  redis.call('DEL', prefix .. ':seeker:{' .. players[i] .. '}')
  redis.call('ZREM', KEYS[1], players[i])
  local seat = cjson.encode({t = tickets[i], m = id, u = until_ms, p = names})
  redis.call('SET', prefix .. ':seat:{' .. players[i] .. '}', seat, 'PX', ttl)
end
return names
