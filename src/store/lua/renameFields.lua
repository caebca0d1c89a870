-- Rename fields of hashes in place (layout migrations, store/layoutMigration.ts): a
-- field found under its old name moves to its new name, unless the new name is set already (a
-- write made since by the new code wins), and the old name is removed.
-- Called with a key count. KEYS: the hashes. ARGV: old/new name pairs.
-- Returns the number of hashes changed.
local changed = 0
for _, key in ipairs(KEYS) do
  local moved = false
  for i = 1, #ARGV, 2 do
    local value = redis.call('HGET', key, ARGV[i])
    if value then
      if redis.call('HEXISTS', key, ARGV[i + 1]) == 0 then redis.call('HSET', key, ARGV[i + 1], value) end
      redis.call('HDEL', key, ARGV[i])
      moved = true
    end
  end
  if moved then changed = changed + 1 end
end
return changed
