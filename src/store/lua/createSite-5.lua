-- Create a site: document, list index, slug lookup, default pointer and change entry in one step.
-- KEYS: site doc, sites zset, slug hash, default pointer, change stream
-- ARGV: id, slug, json, created score (ms), make default ('1'|'0'), stream maxlen
-- Returns 1 created, -1 slug taken.
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
-- The first site of a tenant becomes its default.
if ARGV[5] == '1' or redis.call('EXISTS', KEYS[4]) == 0 then redis.call('SET', KEYS[4], ARGV[1]) end
redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[6], '*', 'op', 'upsert', 'kind', 'site', 'id', ARGV[1])
return 1
