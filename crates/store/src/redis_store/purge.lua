-- Deletes the records named in ARGV (after `now`) whose entry in the
-- expiry index KEYS[1] has expired by `now`; KEYS[2..] are their keys,
-- in the same order. An entry moved since it was listed (the game was
-- played on, or created again) is left.
local now = tonumber(ARGV[1])
local purged = 0
for i = 2, #KEYS do
  local name = ARGV[i]
  local expires_at = redis.call('ZSCORE', KEYS[1], name)
  if expires_at and tonumber(expires_at) <= now then
    redis.call('DEL', KEYS[i])
    redis.call('ZREM', KEYS[1], name)
    purged = purged + 1
  end
end
return purged
