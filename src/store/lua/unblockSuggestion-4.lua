-- Lets a blocked query be suggested again (domain/searchAnalytics.ts), with its audit event.
-- KEYS: 1 blocked queries (zset), 2-4 audit streams
-- ARGV: 1 query (normalised), 2.. the audit event (store/audit.ts)
-- Returns 1 unblocked, 0 not blocked (nothing written).
--- @include "lib/audit"
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
appendAudit(2, 2, nil)
return 1
