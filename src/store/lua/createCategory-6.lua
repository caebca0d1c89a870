-- Create a category under an existing parent (or at the top level).
-- KEYS: category doc, categories zset, parent hash, parent doc, parent's children set, change stream
-- ARGV: id, json, created score (ms), parent id ('' for top level), stream maxlen
-- Returns 1 created, -1 parent missing.
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[5], '*', 'op', 'upsert', 'kind', 'category', 'id', ARGV[1])
return 1
