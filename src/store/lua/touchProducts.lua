-- Syncs that changed nothing: record the sync time (no revision, no change entry) of each product
-- whose revision still is the expected one, and count its job item once. The product hashes are
-- only read: a search index over them has nothing to re-index. The shared hashes are read once and
-- written once per call.
-- KEYS: 1 synced hash, 2 item digest hash, 3 job results (lib/jobResults), 4 job counts hash
--       (3 and 4 only with a job), then the product hashes, referred to by position from the rows
-- ARGV: 1 synced-at, 2 job ('1' | '0'), 3 the rows: one MessagePack array of strings
--   (store/packedRows.ts), 5 values per product:
--   +0 product hash, +1 id, +2 expected rev, +3 item digest to store ('' = leave as is),
--   +4 job item index
-- Returns per product: 1 touched; 0 the revision differs (changed meanwhile); 2 the job item
-- already has a result (skipped).
--- @include "lib/jobResults"
local STRIDE = 5
local synced, withJob = ARGV[1], ARGV[2] == '1'
local A = cmsgpack.unpack(ARGV[3])
local indexes, hasResult = {}, {}
if withJob then
  for a = 1, #A, STRIDE do indexes[#indexes + 1] = tonumber(A[a + 4]) end
  hasResult = readJobResults(KEYS[3], indexes, #indexes)
end
local out, syncs, digests, doneIndexes, doneResults = {}, {}, {}, {}, {}
for a = 1, #A, STRIDE do
  local id, index = A[a + 1], indexes[#out + 1]
  local code = 0
  if withJob and hasResult[index] then
    code = 2
  elseif redis.call('HGET', KEYS[tonumber(A[a])], 'rev') == A[a + 2] then
    code = 1
    syncs[#syncs + 1] = id
    syncs[#syncs + 1] = synced
    if A[a + 3] ~= '' then
      digests[#digests + 1] = id
      digests[#digests + 1] = A[a + 3]
    end
    if withJob then
      doneIndexes[#doneIndexes + 1] = index
      doneResults[#doneResults + 1] = 'unchanged'
    end
  end
  out[#out + 1] = code
end
if #syncs > 0 then redis.call('HSET', KEYS[1], unpack(syncs)) end
if #digests > 0 then redis.call('HSET', KEYS[2], unpack(digests)) end
if #doneIndexes > 0 then
  writeJobResults(KEYS[3], doneIndexes, doneResults, #doneIndexes)
  redis.call('HINCRBY', KEYS[4], 'unchanged', #doneIndexes)
end
return out
