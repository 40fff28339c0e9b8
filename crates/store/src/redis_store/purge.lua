-- Deletes the records named in ARGV (after `now` and how many keys each
-- record has) whose entry in the expiry index KEYS[1] has expired by
-- `now`; KEYS[2..] are their keys, that many a record, in the same
-- order. An entry moved since it was listed (the game was played on, or
-- created again) is left.
local now = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local purged = 0
for i = 3, #ARGV do
  local name = ARGV[i]
  local expires_at = redis.call('ZSCORE', KEYS[1], name)
  if expires_at and tonumber(expires_at) <= now then
    local first = 2 + (i - 3) * per
    for k = first, first + per - 1 do
      redis.call('DEL', KEYS[k])
    end
    redis.call('ZREM', KEYS[1], name)
    purged = purged + 1
  end
end
return purged
