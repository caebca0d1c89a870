-- Blocks a query from the tenant's suggestions (domain/searchAnalytics.ts), with its audit event,
-- while the tenant blocks fewer than `max`.
-- KEYS: 1 blocked queries (zset, score = blocked at ms), 2-4 audit streams
-- ARGV: 1 query (normalised), 2 now (ms), 3 max, 4.. the audit event (store/audit.ts)
-- Returns 1 blocked now, 2 blocked before (nothing written), -1 the list is full.
--- @include "lib/audit"
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
appendAudit(2, 4, nil)
return 1
