-- Counts the documents a re-embed (store/reembed.ts) has embedded with its model; once every one
-- is, the model becomes the tenant's, and the change stream tells search replicas.
-- KEYS: 1 re-embed hash, 2 the tenant's embedding model, 3 change stream
-- ARGV: 1 model, 2 documents done, 3 stream maxlen, 4 now (ISO)
-- Returns 0 (another model's re-embed runs now), 1 counted, 2 counted and finished.
if redis.call('HGET', KEYS[1], 'model') ~= ARGV[1] then return 0 end
local done = redis.call('HINCRBY', KEYS[1], 'done', ARGV[2])
if done < tonumber(redis.call('HGET', KEYS[1], 'total')) or redis.call('HEXISTS', KEYS[1], 'finished_at') == 1 then return 1 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'finished_at', ARGV[4])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'op', 'model', 'model', ARGV[1])
return 2
