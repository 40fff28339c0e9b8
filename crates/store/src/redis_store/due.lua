-- The ids of up to `at_most` live matches due by `now`, soonest first
-- (the due index's order: by time, then by id); an expired match's entry,
-- waiting for its purge, is passed over. Reads only.
--
-- KEYS: the due index. ARGV: now (20 digits), now as a score, prefix,
-- at_most.
local now, score, prefix, at_most = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local ids, offset = {}, 0
while #ids < at_most do
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', score, 'LIMIT', offset, 100)
  if #page == 0 then
    break
  end
  for _, id in ipairs(page) do
    local expires = redis.call('HGET', prefix .. ':match:{' .. id .. '}', 'e')
    if expires and now < expires and #ids < at_most then
      table.insert(ids, id)
    end
  end
  offset = offset + #page
end
return ids
