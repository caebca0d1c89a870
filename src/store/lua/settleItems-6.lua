-- Bulk items sent exactly as last applied, settled without reading their products: an item whose
-- external_id names a product whose item digest (the digest of the bulk item last applied to it)
-- is the item's own changes nothing. Its sync time is recorded and its job item counted once.
-- Every other item is left to the full upsert, with the product its external_id names or, where
-- it names none (a new product), the tenant's translation group of that external_id: the upsert
-- then reads neither again.
-- KEYS: 1 site external_id hash, 2 synced hash, 3 item digest hash, 4 job results (lib/jobResults),
--       5 job counts hash, 6 tenant translation-group hash
-- ARGV: 1 synced-at, then 3 values per item: +0 external_id, +1 item digest, +2 job item index
-- Returns two values per item: 1 unchanged, 2 the job item has a result already, or 0 unsettled,
-- each with the id of the product its external_id names; or 3 new (no product) with the
-- external_id's translation group ('' = none).
--- @include "lib/jobResults"
local synced = ARGV[1]
local exts, indexes = {}, {}
local n = 0
for a = 2, #ARGV, 3 do
  n = n + 1
  exts[n] = ARGV[a]
  indexes[n] = tonumber(ARGV[a + 2])
end
local ids = redis.call('HMGET', KEYS[1], unpack(exts))
local hasResult = readJobResults(KEYS[4], indexes, n)
local known, unknown = {}, {}
for i = 1, n do
  if ids[i] then known[#known + 1] = ids[i] else unknown[#unknown + 1] = exts[i] end
end
local digests = #known > 0 and redis.call('HMGET', KEYS[3], unpack(known)) or {}
local groups = #unknown > 0 and redis.call('HMGET', KEYS[6], unpack(unknown)) or {}

local out, syncs, doneIndexes, doneResults = {}, {}, {}, {}
local k, u, nDone = 0, 0, 0
for i = 1, n do
  local id, code = ids[i], '0'
  if not id then
    u = u + 1
    code, id = '3', groups[u] or ''
  else
    k = k + 1
    if hasResult[indexes[i]] then
      code = '2'
    elseif digests[k] == ARGV[3 * i] then
      code = '1'
      syncs[#syncs + 1] = id
      syncs[#syncs + 1] = synced
      nDone = nDone + 1
      doneIndexes[nDone] = indexes[i]
      doneResults[nDone] = 'unchanged'
    end
  end
  out[2 * i - 1] = code
  out[2 * i] = id
end
if nDone > 0 then
  redis.call('HSET', KEYS[2], unpack(syncs))
  writeJobResults(KEYS[4], doneIndexes, doneResults, nDone)
  redis.call('HINCRBY', KEYS[5], 'unchanged', nDone)
end
return out
