-- Layout 5 → 6 (store/layoutMigration.ts): vectors rewritten as FLOAT16, each only where the hash
-- still holds the float32 value it was converted from (an embedding stored meanwhile stays).
-- Called with a key count. KEYS: the hashes. ARGV: per hash, the number n of its vectors, then n
-- triples of field, the value read, the value to write.
-- Returns the number of vectors replaced.
local replaced, a = 0, 1
for k = 1, #KEYS do
  local n = tonumber(ARGV[a])
  a = a + 1
  for _ = 1, n do
    local field, read, value = ARGV[a], ARGV[a + 1], ARGV[a + 2]
    a = a + 3
    if redis.call('HGET', KEYS[k], field) == read then
      redis.call('HSET', KEYS[k], field, value)
      replaced = replaced + 1
    end
  end
end
return replaced
