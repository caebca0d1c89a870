-- Delete a category that has no children and no knowledge entries, with its audit event.
-- KEYS: 1 category doc, 2 categories zset, 3 parent hash, 4 own children set, 5 parent's children set,
--       6 own entries zset, 7 change stream, 8-10 audit streams
-- ARGV: 1 id, 2 expected json, 3 stream maxlen, 4.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing, -1 has children, -2 changed meanwhile, -4 has entries.
--- @include "lib/audit"
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[2] then return -2 end
if redis.call('SCARD', KEYS[4]) > 0 then return -1 end
if redis.call('ZCARD', KEYS[6]) > 0 then return -4 end
redis.call('DEL', KEYS[1], KEYS[4])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('XADD', KEYS[7], 'MAXLEN', '~', ARGV[3], '*', 'op', 'delete', 'kind', 'category', 'id', ARGV[1])
appendAudit(8, 4, nil)
return 1
