-- Store vectors computed for a document's texts, unless the texts changed meanwhile; the change
-- stream hears of it, so search replicas pick the vectors up.
-- KEYS: 1 product (or entry) hash, 2 change stream
-- ARGV: 1 text hash the vectors were computed for, 2 model id, 3 kind (product|entry), 4 id,
--       5 stream maxlen, 6.. field/value pairs
--       (v:<name> → float32 bytes; an empty value removes the field: that text is gone)
-- Returns 1 stored, 0 discarded (stale or deleted).
if redis.call('HGET', KEYS[1], 'thash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'estatus', 'ready', 'emodel', ARGV[2])
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'op', 'vectors', 'kind', ARGV[3], 'id', ARGV[4])
return 1
