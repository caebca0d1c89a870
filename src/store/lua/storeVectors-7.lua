-- Store vectors computed for a document's texts, unless the texts changed meanwhile; the change
-- stream hears of it, so search replicas pick the vectors up; the tenant's embedding counts and
-- rate (store/embeddingProgress.ts) count it. The first vectors of a tenant make their model the
-- tenant's (store/reembed.ts): the one search serves it with.
-- A product's vector hash exists only once it has vectors: its first ones bring the fields its
-- vector search filters on, copied from the product's search hash (where the Query Engine serves;
-- writeProducts keeps them current from then on: lib/searchFields).
-- KEYS: 1 product (or entry) hash, 2 change stream, 3 embedding status counts, 4 embedding rate,
--       5 the tenant's embedding model, 6 the hash the vectors go to (a product's vector hash, an
--       entry's own), 7 a product's search hash (an entry: its own hash again)
-- ARGV: 1 text hash the vectors were computed for, 2 model id, 3 kind (product|entry), 4 id,
--       5 stream maxlen, 6 the rate's time bucket now, 7 the oldest bucket kept,
--       8.. field/value pairs (v:<name> → FLOAT16 bytes; an empty value removes the field: that
--       text is gone)
-- Returns 1 stored, 0 discarded (stale or deleted).
--- @include "lib/embeddingCounts"
--- @include "lib/searchFields"
if redis.call('HGET', KEYS[1], 'text_hash') ~= ARGV[1] then return 0 end
moveStatus(ARGV[3], redis.call('HGET', KEYS[1], 'embedding_status'), 'ready')
redis.call('SET', KEYS[5], ARGV[2], 'NX')
-- One HSET (and one HDEL) per hash: the Query Engine indexes a hash again on each.
local status = { 'embedding_status', 'ready', 'embedding_model', ARGV[2] }
local vectors, drop = status, {}
if KEYS[6] ~= KEYS[1] then
  redis.call('HSET', KEYS[1], unpack(status))
  vectors = {}
end
for i = 8, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    drop[#drop + 1] = ARGV[i]
  else
    vectors[#vectors + 1] = ARGV[i]
    vectors[#vectors + 1] = ARGV[i + 1]
  end
end
if #drop > 0 then redis.call('HDEL', KEYS[6], unpack(drop)) end
if #vectors > 0 then
  if KEYS[7] ~= KEYS[1] and redis.call('EXISTS', KEYS[6]) == 0 then copyVectorFilterFields(KEYS[7], vectors) end
  redis.call('HSET', KEYS[6], unpack(vectors))
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'op', 'vectors', 'kind', ARGV[3], 'id', ARGV[4])
applyStatusMoves(KEYS[3])
redis.call('HINCRBY', KEYS[4], ARGV[6], 1)
redis.call('HDEL', KEYS[4], ARGV[7])
redis.call('EXPIRE', KEYS[4], 3600)
return 1
