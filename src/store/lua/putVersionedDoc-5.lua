-- Create or replace a document of a versioned collection (store/versionedDocs.ts: synonym sets,
-- search rules), with its audit event, and bump the version the serve processes poll.
-- KEYS: 1 documents hash, 2 version counter, 3-5 audit streams
-- ARGV: 1 id, 2 JSON, 3.. the audit event (store/audit.ts), its action 'create'
-- Returns 1 created, 2 replaced.
--- @include "lib/audit"
local created = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) == 1
redis.call('INCR', KEYS[2])
-- A replace is an update: the action's value is the event's first field value (ARGV[3 + 5]).
if not created then ARGV[8] = 'update' end
appendAudit(3, 3, nil)
if created then return 1 end
return 2
