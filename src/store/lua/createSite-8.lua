-- Create a site: document, list index, slug lookup, default pointer, change entry and audit event in one step.
-- KEYS: 1 site doc, 2 sites zset, 3 slug hash, 4 default pointer, 5 change stream, 6-8 audit streams
-- ARGV: 1 id, 2 slug, 3 json, 4 created score (ms), 5 make default ('1'|'0'), 6 stream maxlen,
--       7.. the audit event (store/audit.ts)
-- Returns 1 created, -1 slug taken.
--- @include "lib/audit"
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
-- The first site of a tenant becomes its default.
if ARGV[5] == '1' or redis.call('EXISTS', KEYS[4]) == 0 then redis.call('SET', KEYS[4], ARGV[1]) end
redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[6], '*', 'op', 'upsert', 'kind', 'site', 'id', ARGV[1])
appendAudit(6, 7, nil)
return 1
