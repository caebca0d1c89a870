-- Bulk items sent exactly as last applied, settled without reading their products: an item whose
-- external_id names a product whose item digest (the digest of the bulk item last applied to it)
-- is the item's own changes nothing. Its sync time is recorded and its job item counted once.
-- Every other item is left to the full upsert, with the product its external_id names.
-- KEYS: 1 site external_id hash, 2 synced hash, 3 item digest hash, 4 job results (lib/jobResults),
--       5 job counts hash
-- ARGV: 1 synced-at, then 3 values per item: +0 external_id, +1 item digest, +2 job item index
-- Returns per item two values: 1 unchanged, 2 the job item has a result already, or 0 unsettled;
-- then the id of the product its external_id names ('' = none).
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
local known = {}
for i = 1, n do
  if ids[i] then known[#known + 1] = ids[i] end
end
local digests = #known > 0 and redis.call('HMGET', KEYS[3], unpack(known)) or {}

local out, syncs, doneIndexes, doneResults = {}, {}, {}, {}
local k, nDone = 0, 0
for i = 1, n do
  local id, code = ids[i], 0
  if id then
    k = k + 1
    if hasResult[indexes[i]] then
      code = 2
    elseif digests[k] == ARGV[3 * i] then
      code = 1
      syncs[#syncs + 1] = id
      syncs[#syncs + 1] = synced
      nDone = nDone + 1
      doneIndexes[nDone] = indexes[i]
      doneResults[nDone] = 'unchanged'
    end
  end
  out[#out + 1] = code
  out[#out + 1] = id or ''
end
if nDone > 0 then
  redis.call('HSET', KEYS[2], unpack(syncs))
  writeJobResults(KEYS[4], doneIndexes, doneResults, nDone)
  redis.call('HINCRBY', KEYS[5], 'unchanged', nDone)
end
return out
