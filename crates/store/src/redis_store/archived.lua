-- Clears the marks of the games named by the arguments `id`, as
-- rules/archive.rs `archived` does: a held game goes back to the expiry
-- index, so the next purge removes it, and its record and log get their
-- TTL again (what is left of the game's life by `now`, and the grace);
-- an id with no mark is passed over. Answers how many marks it cleared.
--
-- KEYS: the store's indexes and counts (`call` in redis_store.rs). ARGV:
-- now, prefix, grace and max_ttl (ms), then `id` once for each game.
local cleared = 0
for _, id in ipairs(list.id or {}) do
  if redis.call('ZSCORE', key.unarchived, id) then
    redis.call('ZREM', key.unarchived, id)
    local held = redis.call('ZSCORE', key.game_held, id)
    if held then
      redis.call('ZREM', key.game_held, id)
      redis.call('ZADD', key.game_expiry, held, id)
    end
    local expires = redis.call('HGET', game_record(id), 'e')
    if expires then
      local left = math.max(tonumber(expires) - tonumber(arg.now), 0)
      local ttl = string.format('%d', math.min(left + tonumber(arg.grace), tonumber(arg.max_ttl)))
      redis.call('PEXPIRE', game_record(id), ttl)
      redis.call('PEXPIRE', log_record(id), ttl)
    end
    cleared = cleared + 1
  end
end
return cleared
