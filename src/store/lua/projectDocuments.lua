-- Write the search projection of documents stored before it was kept (store/projection.ts), each
-- only while the document is still at the revision it was computed from (a later write carries
-- its own projection) and does not carry this version already: rewriting the same fields would
-- only make a search index re-index the document.
-- Called with a key count. KEYS: the document hashes.
-- ARGV: 1 the field holding the projection version, 2 the version, then per document (in KEYS
-- order): expected rev, n, then n field/value pairs (an empty value removes the field).
-- Returns the number of documents projected.
local projected, a = 0, 3
for _, key in ipairs(KEYS) do
  local n = tonumber(ARGV[a + 1])
  if redis.call('HGET', key, 'rev') == ARGV[a] and redis.call('HGET', key, ARGV[1]) ~= ARGV[2] then
    local fields, drop = {}, {}
    for p = a + 2, a + 1 + 2 * n, 2 do
      if ARGV[p + 1] ~= '' then
        fields[#fields + 1] = ARGV[p]
        fields[#fields + 1] = ARGV[p + 1]
      else
        drop[#drop + 1] = ARGV[p]
      end
    end
    if #drop > 0 then redis.call('HDEL', key, unpack(drop)) end
    if #fields > 0 then redis.call('HSET', key, unpack(fields)) end
    projected = projected + 1
  end
  a = a + 2 + 2 * n
end
return projected
