-- A document whose embedding was given up on (its job failed every attempt): marked failed,
-- unless its texts changed since (a newer job embeds those).
-- KEYS: 1 product (or entry) hash, 2 embedding status counts
-- ARGV: 1 text hash the job embedded ('' = whatever texts it has), 2 kind (product|entry)
-- Returns 1 marked, 0 not (stale or deleted).
--- @include "lib/embeddingCounts"
local textHash = redis.call('HGET', KEYS[1], 'text_hash')
if not textHash or (ARGV[1] ~= '' and textHash ~= ARGV[1]) then return 0 end
moveStatus(ARGV[2], redis.call('HGET', KEYS[1], 'embedding_status'), 'failed')
redis.call('HSET', KEYS[1], 'embedding_status', 'failed')
applyStatusMoves(KEYS[2])
return 1
