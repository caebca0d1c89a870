-- Create or replace a knowledge entry with its indexes, change entry and audit event, in one step.
-- Called with a key count (its index keys vary): see store/knowledge.ts.
-- KEYS: 1 entry hash, 2 change stream, 3 tenant audit stream, 4 entity audit stream,
--       5 expiring zset, 6 category doc, 7.. index zsets: the first ARGV[4] are left, the rest joined
-- ARGV: 1 id, 2 expected rev ('' = create), 3 created score (ms), 4 number of indexes to leave,
--       5 expires at (ms, '' = never), 6 audit action, 7 user id, 8 credential id, 9 client id,
--       10 audit source, 11 stream maxlen, 12.. field/value pairs (an empty value removes the field:
--       the search projection's, store/projection.ts)
-- Returns {1, version} written; {-1} category missing; {-2} changed meanwhile (or exists on create).
local id = ARGV[1]
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[2] == '' then
  if rev then return {-2} end
elseif rev ~= ARGV[2] then
  return {-2}
end
if redis.call('EXISTS', KEYS[6]) == 0 then return {-1} end

local leave = tonumber(ARGV[4])
for i = 7, 6 + leave do redis.call('ZREM', KEYS[i], id) end
for i = 7 + leave, #KEYS do redis.call('ZADD', KEYS[i], ARGV[3], id) end
if ARGV[5] == '' then redis.call('ZREM', KEYS[5], id) else redis.call('ZADD', KEYS[5], ARGV[5], id) end

local fields, drop = {}, {}
for i = 12, #ARGV, 2 do
  if ARGV[i + 1] ~= '' then
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = ARGV[i + 1]
  elseif rev then
    drop[#drop + 1] = ARGV[i]
  end
end
if #drop > 0 then redis.call('HDEL', KEYS[1], unpack(drop)) end
redis.call('HSET', KEYS[1], unpack(fields))
local version = redis.call('HINCRBY', KEYS[1], 'rev', 1)

redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[11], '*', 'op', 'upsert', 'kind', 'entry', 'id', id, 'rev', version)
local event = {'action', ARGV[6], 'entity_type', 'knowledge_entry', 'entity_id', id, 'version', version,
  'user_id', ARGV[7], 'credential_id', ARGV[8], 'client_id', ARGV[9], 'audit_source', ARGV[10]}
local eventId = redis.call('XADD', KEYS[3], 'MAXLEN', '~', '1000000', '*', unpack(event))
redis.call('XADD', KEYS[4], 'MAXLEN', '~', '1000', eventId, unpack(event))
return {1, version}
