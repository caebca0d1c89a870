-- Delete a document of a versioned collection (store/versionedDocs.ts), with its audit event, only
-- when it exists, and bump the version.
-- KEYS: 1 documents hash, 2 version counter, 3 weights hash, 4-6 audit streams
-- ARGV: 1 id, 2.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing.
--- @include "lib/audit"
local weights, id = KEYS[3], ARGV[1]
if redis.call('HDEL', KEYS[1], id) == 0 then return 0 end
local weight = redis.call('HGET', weights, id)
if weight then
  redis.call('HDEL', weights, id)
  redis.call('HINCRBY', weights, '*total', -tonumber(weight))
end
redis.call('INCR', KEYS[2])
appendAudit(4, 2, nil)
return 1
