-- Delete a document kept as a string key with a list index (an API key, an OAuth client), with its
-- audit event, only when it exists: a second delete is no second event.
-- KEYS: 1 document, 2 index zset, 3-5 audit streams
-- ARGV: 1 id, 2.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing.
--- @include "lib/audit"
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
appendAudit(3, 2, nil)
return 1
