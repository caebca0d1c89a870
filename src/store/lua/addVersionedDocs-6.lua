-- Add new documents to a versioned collection in one step (a small import, store/versionedDocs.ts),
-- within its caps, with one audit event for them all, and bump the version once.
-- KEYS: 1 documents hash, 2 version counter, 3 weights hash, 4-6 audit streams
-- ARGV: 1 most documents, 2 most weight in all ('' without weights), 3 n, then n triples
--       (id, JSON, weight ('' without weights)), then the audit event (store/audit.ts)
-- Returns 1 added, -1 too many documents, -2 too much weight.
--- @include "lib/audit"
local docs, weights = KEYS[1], KEYS[3]
local n = tonumber(ARGV[3])
if redis.call('HLEN', docs) + n > tonumber(ARGV[1]) then return -1 end
local weighed = ARGV[2] ~= ''
local total = 0
if weighed then
  total = tonumber(redis.call('HGET', weights, '*total') or '0')
  for i = 1, n do total = total + tonumber(ARGV[3 + i * 3]) end
  if total > tonumber(ARGV[2]) then return -2 end
end
for i = 0, n - 1 do
  local at = 4 + i * 3
  redis.call('HSET', docs, ARGV[at], ARGV[at + 1])
  if weighed then redis.call('HSET', weights, ARGV[at], ARGV[at + 2]) end
end
if weighed then redis.call('HSET', weights, '*total', total) end
redis.call('INCR', KEYS[2])
appendAudit(4, 4 + n * 3, nil)
return 1
