-- Layout 5 → 6 (store/layoutMigration.ts): vectors rewritten as FLOAT16, each only where the hash
-- still holds the float32 value it was converted from (an embedding stored meanwhile stays); and
-- a product's vector hash that holds no vector goes (its first vectors make it again with the
-- fields its vector search filters on: storeVectors-7).
-- Called with a key count. KEYS: the hashes. ARGV: per hash, '1' where it is to go if it holds no
-- vector ('0': an entry's own hash), the number n of its vectors, then n triples of field, the
-- value read, the value to write.
-- Returns the number of vectors replaced and of hashes dropped.
local changed, a = 0, 1
for k = 1, #KEYS do
  local dropEmpty, n = ARGV[a] == '1', tonumber(ARGV[a + 1])
  a = a + 2
  for _ = 1, n do
    local field, read, value = ARGV[a], ARGV[a + 1], ARGV[a + 2]
    a = a + 3
    if redis.call('HGET', KEYS[k], field) == read then
      redis.call('HSET', KEYS[k], field, value)
      changed = changed + 1
    end
  end
  if dropEmpty and n == 0 then
    local holds = false
    for _, field in ipairs(redis.call('HKEYS', KEYS[k])) do
      if string.sub(field, 1, 2) == 'v:' and redis.call('HSTRLEN', KEYS[k], field) > 0 then
        holds = true
        break
      end
    end
    if not holds and redis.call('DEL', KEYS[k]) == 1 then changed = changed + 1 end
  end
end
return changed
