-- A live game's log entries at versions FROM up to (not including) TO,
-- as store.rs `log` reads them: none for a game absent or expired. The
-- range is cut at the game's version, so that it reads only what was
-- written. KEYS[1] is the game, KEYS[2] its log (a hash of version to
-- entry). ARGV: now, as 20 digits compared as text; FROM; TO. Answers
-- version, entry, version, entry, ...
local game = redis.call('HMGET', KEYS[1], 'v', 'e')
if not game[1] or not (ARGV[1] < game[2]) then
  return {}
end
local from = tonumber(ARGV[2])
local to = math.min(tonumber(ARGV[3]), tonumber(game[1]) + 1)
local found = {}
for version = from, to - 1 do
  local entry = redis.call('HGET', KEYS[2], tostring(version))
  if entry then
    table.insert(found, tostring(version))
    table.insert(found, entry)
  end
end
return found
