-- Moves a product's embedding status from one to another where it is still the first (a status a
-- write or the embed worker set meanwhile stands): a product skipped for its language made
-- pending for a model that serves it, one embedded by a model that does not serve its language
-- marked skipped (store/reembed.ts).
-- KEYS: 1 product hash, 2 embedding status counts
-- ARGV: 1 kind (product|entry), 2 the status expected, 3 the new status
-- Returns 1 moved, 0 not (another status, or deleted).
--- @include "lib/embeddingCounts"
if redis.call('HGET', KEYS[1], 'embedding_status') ~= ARGV[2] then return 0 end
moveStatus(ARGV[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[1], 'embedding_status', ARGV[3])
applyStatusMoves(KEYS[2])
return 1
