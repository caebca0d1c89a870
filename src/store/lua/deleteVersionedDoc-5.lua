-- Delete a document of a versioned collection (store/versionedDocs.ts), with its audit event, only
-- when it exists, and bump the version.
-- KEYS: 1 documents hash, 2 version counter, 3-5 audit streams
-- ARGV: 1 id, 2.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing.
--- @include "lib/audit"
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
appendAudit(3, 2, nil)
return 1
