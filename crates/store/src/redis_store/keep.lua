-- A refusal's answer kept under its key alone, as rules.rs `keep` does:
-- replayed if the key holds a live answer, refused past a bound, else
-- stored with its counts. No game changes.
--
-- KEYS: kept_expiry, kept_owners, game_keys, kept_bytes. ARGV: now,
-- prefix, id (the game), max_keys_per_game, max_kept_bytes, kept,
-- kept_expires, kept_score, kept_ttl, fingerprint, answer, charge.
local kept = live_kept(arg.kept, arg.now)
if kept then
  return {'replayed', kept[1], kept[2], kept[3]}
end
local bound = over_bound(arg.id, tonumber(arg.charge), arg.now)
if bound then
  return {'too_many_keys', bound}
end
put_kept(arg.kept, arg.id, arg.kept_expires, arg.kept_score, arg.kept_ttl,
  arg.fingerprint, arg.answer, arg.charge)
return {'written'}
