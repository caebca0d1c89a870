-- The same fields of many hashes in one reply: {k1f1, k1f2, …, k2f1, …} (missing → nil).
-- One command instead of one per document: the client's per-command cost dominated list reads.
-- Called with a key count. KEYS: the hashes. ARGV: the fields.
local out = {}
local n = #ARGV
for i, key in ipairs(KEYS) do
  local values = redis.call('HMGET', key, unpack(ARGV))
  for j = 1, n do out[(i - 1) * n + j] = values[j] end
end
return out
