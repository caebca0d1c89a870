-- Create or replace a knowledge entry with its indexes, change entry and audit event, in one step.
-- Called with a key count (its index keys vary): see store/scriptCalls.ts writeEntryCall.
-- KEYS: 1 entry hash, 2 change stream, 3-5 audit streams, 6 expiring zset, 7 category doc,
--       8 embedding status counts, 9.. index zsets: the first ARGV[4] are left, the rest joined
-- ARGV: 1 id, 2 expected rev ('' = create), 3 created score (ms), 4 number of indexes to leave,
--       5 expires at (ms, '' = never), 6 stream maxlen, 7.. the audit event (store/audit.ts: three
--       lengths, n, n pairs), then field/value pairs (an empty value removes the field: the search
--       projection's, store/projection.ts)
-- Returns {1, version} written; {-1} category missing; {-2} changed meanwhile (or exists on create).
--- @include "lib/audit"
--- @include "lib/embeddingCounts"
local id = ARGV[1]
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[2] == '' then
  if rev then return {-2} end
elseif rev ~= ARGV[2] then
  return {-2}
end
if redis.call('EXISTS', KEYS[7]) == 0 then return {-1} end

local leave = tonumber(ARGV[4])
for i = 9, 8 + leave do redis.call('ZREM', KEYS[i], id) end
for i = 9 + leave, #KEYS do redis.call('ZADD', KEYS[i], ARGV[3], id) end
if ARGV[5] == '' then redis.call('ZREM', KEYS[6], id) else redis.call('ZADD', KEYS[6], ARGV[5], id) end

local fields, drop = {}, {}
for i = 11 + 2 * tonumber(ARGV[10]), #ARGV, 2 do
  if ARGV[i + 1] ~= '' then
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = ARGV[i + 1]
  elseif rev then
    drop[#drop + 1] = ARGV[i]
  end
end
if #drop > 0 then redis.call('HDEL', KEYS[1], unpack(drop)) end
local statusBefore = redis.call('HGET', KEYS[1], 'embedding_status')
redis.call('HSET', KEYS[1], unpack(fields))
moveStatus('entry', statusBefore, redis.call('HGET', KEYS[1], 'embedding_status'))
applyStatusMoves(KEYS[8])
local version = redis.call('HINCRBY', KEYS[1], 'rev', 1)

redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'op', 'upsert', 'kind', 'entry', 'id', id, 'rev', version)
appendAudit(3, 7, version)
return {1, version}
