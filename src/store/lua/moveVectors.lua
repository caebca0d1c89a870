-- Layout 4 → 5 (store/layoutMigration.ts): a product's vectors (v:*) move from its hash to its
-- vector hash.
-- Called with a key count. KEYS: pairs of a product hash and its vector hash.
-- Returns the number of products whose vectors moved.
local moved = 0
for k = 1, #KEYS, 2 do
  local fields, names = {}, {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[k])) do
    if string.sub(field, 1, 2) == 'v:' then
      names[#names + 1] = field
      fields[#fields + 1] = field
      fields[#fields + 1] = redis.call('HGET', KEYS[k], field)
    end
  end
  if #names > 0 then
    redis.call('HSET', KEYS[k + 1], unpack(fields))
    redis.call('HDEL', KEYS[k], unpack(names))
    moved = moved + 1
  end
end
return moved
