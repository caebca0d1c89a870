-- Write the search fields of products stored before they were kept in this layout (store/
-- projection.ts), each only while the product is still at the revision they were computed from (a
-- later write carries its own); search fields an earlier layout kept in the product hash (f:*) go.
-- Called with a key count. KEYS: per product its hash, its search hash, its vector hash and the
-- tenant's product term dictionary (lib/searchTerms).
-- ARGV: per product (in KEYS order): expected rev, the digests of its search and vector fields,
-- n and m, then the n search field pairs and the m vector field pairs.
-- Returns the number of products projected.
--- @include "lib/searchFields"
local projected, a = 0, 1
local termChanges = {}
for k = 1, #KEYS, 4 do
  local n, m = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  if redis.call('HGET', KEYS[k], 'rev') == ARGV[a] then
    writeProductSearchFields(KEYS[k + 1], KEYS[k + 2], ARGV[a + 1], ARGV[a + 2], ARGV, a + 5, n, m, termChanges)
    local old = {}
    for _, field in ipairs(redis.call('HKEYS', KEYS[k])) do
      if string.sub(field, 1, 2) == 'f:' then old[#old + 1] = field end
    end
    if #old > 0 then redis.call('HDEL', KEYS[k], unpack(old)) end
    projected = projected + 1
  end
  a = a + 5 + 2 * (n + m)
end
if #KEYS > 0 then applyTermChanges(KEYS[4], termChanges) end
return projected
