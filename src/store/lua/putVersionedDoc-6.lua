-- Create or replace a document of a versioned collection (store/versionedDocs.ts: synonym sets,
-- search rules), with its audit event, and bump the version the serve processes poll. The
-- collection's caps are checked here, in the step that writes, so that concurrent writes cannot
-- pass them together.
-- KEYS: 1 documents hash, 2 version counter, 3 weights hash (id → weight, '*total' → their sum), 4-6 audit streams
-- ARGV: 1 id, 2 JSON, 3 most documents, 4 the document's weight ('' for a collection without
--       weights), 5 most weight in all, 6.. the audit event (store/audit.ts), its action 'create'
-- Returns 1 created, 2 replaced, -1 too many documents, -2 too much weight.
--- @include "lib/audit"
local docs, weights, id = KEYS[1], KEYS[3], ARGV[1]
local exists = redis.call('HEXISTS', docs, id) == 1
if not exists and redis.call('HLEN', docs) >= tonumber(ARGV[3]) then return -1 end
if ARGV[4] ~= '' then
  local weight = tonumber(ARGV[4])
  local total = tonumber(redis.call('HGET', weights, '*total') or '0') - tonumber(redis.call('HGET', weights, id) or '0') + weight
  if total > tonumber(ARGV[5]) then return -2 end
  redis.call('HSET', weights, id, weight, '*total', total)
end
redis.call('HSET', docs, id, ARGV[2])
redis.call('INCR', KEYS[2])
-- A replace is an update: the action's value is the event's first field value (ARGV[6 + 5]).
if exists then ARGV[11] = 'update' end
appendAudit(4, 6, nil)
if exists then return 2 end
return 1
