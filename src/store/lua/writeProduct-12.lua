-- Create or replace a product: document fields, external_id claim, translation group claim,
-- list indexes and one change entry, in one step. Optionally records a bulk item's result once.
-- KEYS: 1 product hash, 2 site external_id hash, 3 tenant translation-group hash, 4 tenant zset,
--       5 site zset, 6 new language zset, 7 new category zset, 8 old language zset,
--       9 old category zset, 10 change stream, 11 job results hash, 12 job counts hash
-- ARGV: 1 id, 2 expected rev ('' = create), 3 new external_id, 4 old external_id,
--       5 translation group id to claim ('' = none), 6 created score (ms), 7 stream maxlen,
--       8 has category ('1'|'0'), 9 had category ('1'|'0'), 10 job item index ('' = none),
--       11 result name (created|updated), 12.. field/value pairs
-- Returns {1, rev} written; {-1, owner id} external_id taken by another product;
--         {-2, ''} changed meanwhile (or exists on create); {-3, group} translation group differs.
local id = ARGV[1]
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[2] == '' then
  if rev then return {-2, ''} end
elseif rev ~= ARGV[2] then
  return {-2, ''}
end

local newExt, oldExt = ARGV[3], ARGV[4]
if newExt ~= '' and (ARGV[2] == '' or newExt ~= oldExt) then
  local owner = redis.call('HGET', KEYS[2], newExt)
  if owner and owner ~= id then return {-1, owner} end
end
if ARGV[5] ~= '' then
  local group = redis.call('HGET', KEYS[3], newExt)
  if group and group ~= ARGV[5] then return {-3, group} end
  if not group then redis.call('HSET', KEYS[3], newExt, ARGV[5]) end
end

if newExt ~= '' then redis.call('HSET', KEYS[2], newExt, id) end
if oldExt ~= '' and oldExt ~= newExt and redis.call('HGET', KEYS[2], oldExt) == id then
  redis.call('HDEL', KEYS[2], oldExt)
end

local score = ARGV[6]
redis.call('ZADD', KEYS[4], score, id)
redis.call('ZADD', KEYS[5], score, id)
if ARGV[2] ~= '' and KEYS[8] ~= KEYS[6] then redis.call('ZREM', KEYS[8], id) end
redis.call('ZADD', KEYS[6], score, id)
if ARGV[2] ~= '' and ARGV[9] == '1' and (ARGV[8] ~= '1' or KEYS[9] ~= KEYS[7]) then redis.call('ZREM', KEYS[9], id) end
if ARGV[8] == '1' then redis.call('ZADD', KEYS[7], score, id) end

local fields = {}
for i = 12, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
local newRev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('XADD', KEYS[10], 'MAXLEN', '~', ARGV[7], '*', 'op', 'upsert', 'kind', 'product', 'id', id, 'rev', newRev)

if ARGV[10] ~= '' and redis.call('HSETNX', KEYS[11], ARGV[10], ARGV[11]) == 1 then
  redis.call('HINCRBY', KEYS[12], ARGV[11], 1)
end
return {1, newRev}
