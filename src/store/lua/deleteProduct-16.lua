-- Delete a product: its hash, its search and vector hashes, external_id claim, list indexes, sync
-- bookkeeping, one change entry, and its audit event unless it goes with its site (the purge of a
-- deleted site).
-- KEYS: 1 product hash, 2 site external_id hash, 3 tenant zset, 4 site zset, 5 language zset,
--       6 category zset, 7 change stream, 8 synced hash, 9 item digest hash, 10-12 audit streams,
--       13 embedding status counts, 14 search hash, 15 vector hash, 16 product term dictionary
-- ARGV: 1 id, 2 external_id ('' none), 3 has category ('1'|'0'), 4 stream maxlen,
--       5 with an audit event ('1'|'0'), 6.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing.
--- @include "lib/audit"
--- @include "lib/embeddingCounts"
--- @include "lib/searchTerms"
moveStatus('product', redis.call('HGET', KEYS[1], 'embedding_status'), false)
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
local termChanges = {}
changeTerms(termChanges, KEYS[14], ARGV, 1, 0)
applyTermChanges(KEYS[16], termChanges)
redis.call('DEL', KEYS[14], KEYS[15])
applyStatusMoves(KEYS[13])
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[2], ARGV[2]) end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
if ARGV[3] == '1' then redis.call('ZREM', KEYS[6], ARGV[1]) end
redis.call('HDEL', KEYS[8], ARGV[1])
redis.call('HDEL', KEYS[9], ARGV[1])
redis.call('XADD', KEYS[7], 'MAXLEN', '~', ARGV[4], '*', 'op', 'delete', 'kind', 'product', 'id', ARGV[1])
if ARGV[5] == '1' then appendAudit(10, 6, nil) end
return 1
