-- Create a category under an existing parent (or at the top level), with its audit event.
-- KEYS: 1 category doc, 2 categories zset, 3 parent hash, 4 parent doc, 5 parent's children set,
--       6 change stream, 7-9 audit streams
-- ARGV: 1 id, 2 json, 3 created score (ms), 4 parent id ('' for top level), 5 stream maxlen,
--       6.. the audit event (store/audit.ts)
-- Returns 1 created, -1 parent missing.
--- @include "lib/audit"
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[5], '*', 'op', 'upsert', 'kind', 'category', 'id', ARGV[1])
appendAudit(7, 6, nil)
return 1
