-- Delete a knowledge entry permanently, with its indexes, change entry and audit event.
-- KEYS: 1 entry hash, 2 change stream, 3-5 audit streams, 6 embedding status counts,
--       7 expiring zset, 8.. index zsets
-- ARGV: 1 id, 2 expected rev, 3 stream maxlen, 4.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing, -2 changed meanwhile.
--- @include "lib/audit"
--- @include "lib/embeddingCounts"
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return 0 end
if rev ~= ARGV[2] then return -2 end
moveStatus('entry', redis.call('HGET', KEYS[1], 'embedding_status'), false)
redis.call('DEL', KEYS[1])
applyStatusMoves(KEYS[6])
for i = 7, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'op', 'delete', 'kind', 'entry', 'id', ARGV[1])
appendAudit(3, 4, rev)
return 1
