-- Create or replace a batch of products of one site (and at most one bulk job). Each product is
-- one step of its own: its fields, its external_id and translation-group claims, its list indexes
-- and its job result, in the order of the products. The shared keys (external_ids, groups, job
-- results, sync bookkeeping) are read once up front and written once at the end, with the steps
-- applied in between: a few commands per call instead of several per product, for the script and
-- for the append-only file (redis-server's CPU a created product: −29% against reading and writing
-- them product by product, in `npm run bench:ingest`). The batch adds one
-- change entry naming every product written. A single write (never a bulk one) adds its audit
-- event.
-- KEYS: 1 change stream, 2 tenant translation-group hash, 3 tenant zset, 4 site zset,
--       5 site external_id hash, 6 synced hash, 7 item digest hash, 8 embedding status counts,
--       9 job results (lib/jobResults), 10 job counts hash (9 and 10 only with a job), then product
--       hashes (with their search and vector hashes) and language/category zsets, referred to by
--       position from the rows
-- ARGV: 1 stream maxlen, 2 synced-at, 3 job ('1' | '0'), 4 position of the three audit stream keys
--   ('0' = no audit event; else the call writes one product and 5.. hold its event, store/audit.ts),
--   then the rows: one MessagePack array of strings (store/packedRows.ts), 17 values per product
--   and its projection pairs, at positions (in that array) from +0:
--   +0 product hash, +1 id, +2 expected rev ('' = create), +3 new external_id ('' = none),
--   +4 old external_id ('' = none), +5 translation group to claim ('' = none), +6 created score (ms),
--   +7 language zset to add to ('0' = none), +8 category zset to add to ('0' = none),
--   +9 zsets to leave, "a,b" ('' = none), +10 job item index, +11 parent_external_id,
--   +12 embedding_status, +13 text_hash ('' = texts unchanged: text_hash and text_sources stay as
--   stored), +14 text_sources (the explicit embedding texts, JSON; '' = none), +15 item digest ('' = none),
--   +16 the product's search hash, +17 its vector hash (positions in KEYS; '0' = no search fields:
--   the built-in engine serves), +18 and +19 the digests of their search fields, +20 n and +21 m,
--   the numbers of their field/value pairs, +22 the tenant's product term dictionary (a position in
--   KEYS, '0' with no search fields; lib/searchTerms), then the n pairs and the m pairs
--   (store/projection.ts; lib/searchFields); then each row's doc (its JSON), an argument of its own.
--   The docs are not in the array: each Lua string made is hashed over all its bytes (Redis's Lua),
--   and a doc there would be hashed twice, in the array's argument and as the value unpacked from
--   it (~5% of redis-server's instructions a create).
-- Returns two values per product, a code and its detail: 1, new rev (written); -1, owner id
-- (external_id taken by another product); -2, '' (changed meanwhile, or exists on create); -3,
-- group (translation group differs).
--- @include "lib/audit"
--- @include "lib/embeddingCounts"
--- @include "lib/jobResults"
--- @include "lib/searchFields"
local STRIDE = 23
local synced, withJob = ARGV[2], ARGV[3] == '1'
local auditAt = tonumber(ARGV[4])
local rowsAt = 5
if auditAt > 0 then rowsAt = 9 + 2 * tonumber(ARGV[8]) end
-- The rows' values, one MessagePack array (store/packedRows.ts).
local A = cmsgpack.unpack(ARGV[rowsAt])

-- The hot loops below keep their own counters instead of `#t + 1` and call no helper per product:
-- in Redis's Lua every table length, call and concatenation is interpreted.
-- The rows' positions in A and their product keys, every field of a shared hash that some row
-- reads, and the rows' job item indexes.
local rows, rowKeys, nRows = {}, {}, 0
local extWanted, groupWanted, jobIndexes = {}, {}, {}
-- The product keys of the rows, while every row is a create: one EXISTS then answers for all of
-- them (a bulk import's new products), instead of a read of each one's revision.
local createKeys, nCreateKeys = {}, 0
local a = 1
local nValues = #A
while a <= nValues do
  nRows = nRows + 1
  rows[nRows] = a
  local pairCount = tonumber(A[a + 20]) + tonumber(A[a + 21])
  local pk = KEYS[tonumber(A[a])]
  rowKeys[nRows] = pk
  if createKeys and A[a + 2] == '' then
    nCreateKeys = nCreateKeys + 1
    createKeys[nCreateKeys] = pk
  else
    createKeys = nil
  end
  local newExt, oldExt = A[a + 3], A[a + 4]
  if newExt ~= '' then extWanted[newExt] = true end
  if oldExt ~= '' then extWanted[oldExt] = true end
  if A[a + 5] ~= '' then groupWanted[newExt] = true end
  if withJob then jobIndexes[nRows] = tonumber(A[a + 10]) end
  a = a + STRIDE + 2 * pairCount
end

-- A hash's fields as read once: field -> value, or false where it holds none. The steps below read
-- and change these copies; the lists below name what is written back at the end.
local function readFields(key, wanted)
  local names, n = {}, 0
  for name in pairs(wanted) do
    n = n + 1
    names[n] = name
  end
  local copy = {}
  if n == 0 then return copy end
  local values = redis.call('HMGET', key, unpack(names))
  for i = 1, n do copy[names[i]] = values[i] or false end
  return copy
end
local owners = readFields(KEYS[5], extWanted)
local groups = readFields(KEYS[2], groupWanted)
local results = withJob and readJobResults(KEYS[9], jobIndexes, nRows) or {}
local noneExists = createKeys ~= nil and nCreateKeys > 0 and redis.call('EXISTS', unpack(createKeys)) == 0

-- What the steps change, each list with its length: external_ids claimed or released, groups
-- claimed, job results, the call's output.
local ownersChanged, nOwnersChanged = {}, 0
local groupClaims, nGroupClaims = {}, 0
local resultIndexes, resultNames, nResults, counts = {}, {}, 0, {}
local out, nOut, ids, revs, nIds = {}, 0, {}, {}, 0
-- Sync bookkeeping of the call: id/time and id/digest pairs, digests to drop.
local syncs, digests, nDigests, undigested, nUndigested = {}, {}, 0, {}, 0
-- Score/id pairs: of the created products (the tenant's and the site's lists), and per other list.
local created, nCreated = {}, 0
local adds, addLengths = {}, {}
-- New documents by embedding status, counted once at the end.
local createdStatuses = {}
-- The changes to the term dictionary (lib/searchTerms), applied once at the end.
local termChanges, termsKey = {}, nil

for r = 1, nRows do
  local a = rows[r]
  local pk, id, expected = rowKeys[r], A[a + 1], A[a + 2]
  local newExt, oldExt, group = A[a + 3], A[a + 4], A[a + 5]
  local create = expected == ''
  local rev = false
  if not noneExists then rev = redis.call('HGET', pk, 'rev') end
  local code, detail = '1', ''
  if (create and rev) or (not create and rev ~= expected) then
    code = '-2'
  elseif newExt ~= '' and (create or newExt ~= oldExt) then
    local owner = owners[newExt]
    if owner and owner ~= id then code, detail = '-1', owner end
  end
  if code == '1' and group ~= '' then
    local claimed = groups[newExt]
    if not claimed then
      groups[newExt] = group
      groupClaims[nGroupClaims + 1] = newExt
      groupClaims[nGroupClaims + 2] = group
      nGroupClaims = nGroupClaims + 2
    elseif claimed ~= group then
      code, detail = '-3', claimed
    end
  end
  if code == '1' then
    if newExt ~= '' and owners[newExt] ~= id then
      owners[newExt] = id
      nOwnersChanged = nOwnersChanged + 1
      ownersChanged[nOwnersChanged] = newExt
    end
    if oldExt ~= '' and oldExt ~= newExt and owners[oldExt] == id then
      owners[oldExt] = false
      nOwnersChanged = nOwnersChanged + 1
      ownersChanged[nOwnersChanged] = oldExt
    end
    local score = A[a + 6]
    if create then
      created[nCreated + 1] = score
      created[nCreated + 2] = id
      nCreated = nCreated + 2
    end
    for at = a + 7, a + 8 do
      local ref = A[at]
      if ref ~= '0' then
        local list = adds[ref]
        local n = addLengths[ref]
        if not list then
          list, n = {}, 0
          adds[ref] = list
        end
        list[n + 1] = score
        list[n + 2] = id
        addLengths[ref] = n + 2
      end
    end
    if A[a + 9] ~= '' then
      for ref in string.gmatch(A[a + 9], '%d+') do redis.call('ZREM', KEYS[tonumber(ref)], id) end
    end
    -- A string, written and answered (Redis would format a Lua number with printf).
    local newRev = create and '1' or tostring(tonumber(rev) + 1)
    local status = A[a + 12]
    local fields = { 'doc', ARGV[rowsAt + r], 'parent_external_id', A[a + 11], 'embedding_status', status, 'rev', newRev }
    local nFields = 8
    local textHash, textSources, itemDigest = A[a + 13], A[a + 14], A[a + 15]
    if textHash ~= '' then
      fields[nFields + 1] = 'text_hash'
      fields[nFields + 2] = textHash
      nFields = nFields + 2
    end
    if textSources ~= '' then
      fields[nFields + 1] = 'text_sources'
      fields[nFields + 2] = textSources
      nFields = nFields + 2
    end
    nIds = nIds + 1
    ids[nIds] = id
    revs[nIds] = newRev
    syncs[2 * nIds - 1] = id
    syncs[2 * nIds] = synced
    if itemDigest ~= '' then
      digests[nDigests + 1] = id
      digests[nDigests + 2] = itemDigest
      nDigests = nDigests + 2
    elseif not create then
      nUndigested = nUndigested + 1
      undigested[nUndigested] = id
    end
    if create then
      createdStatuses[status] = (createdStatuses[status] or 0) + 1
    else
      -- Explicit texts no longer sent are removed.
      if textHash ~= '' and textSources == '' then redis.call('HDEL', pk, 'text_sources') end
      moveStatus('product', redis.call('HGET', pk, 'embedding_status'), status)
    end
    redis.call('HSET', pk, unpack(fields))
    local searchRef = tonumber(A[a + 16])
    if searchRef > 0 then
      termsKey = KEYS[tonumber(A[a + 22])]
      writeProductSearchFields(KEYS[searchRef], KEYS[tonumber(A[a + 17])], A[a + 18], A[a + 19], A, a + STRIDE, tonumber(A[a + 20]), tonumber(A[a + 21]), termChanges)
    end
    detail = newRev
    if withJob then
      local index = jobIndexes[r]
      if not results[index] then
        local result = create and 'created' or 'updated'
        results[index] = true
        nResults = nResults + 1
        resultIndexes[nResults] = index
        resultNames[nResults] = result
        counts[result] = (counts[result] or 0) + 1
      end
    end
  end
  out[nOut + 1] = code
  out[nOut + 2] = detail
  nOut = nOut + 2
end
for status, n in pairs(createdStatuses) do countStatus('product', status, n) end
if termsKey then applyTermChanges(termsKey, termChanges) end

-- Each external_id as the steps left it: claimed by a product, or released.
local claims, released, seen = {}, {}, {}
for i = 1, nOwnersChanged do
  local ext = ownersChanged[i]
  if not seen[ext] then
    seen[ext] = true
    if owners[ext] then
      claims[#claims + 1] = ext
      claims[#claims + 1] = owners[ext]
    else
      released[#released + 1] = ext
    end
  end
end
if #claims > 0 then redis.call('HSET', KEYS[5], unpack(claims)) end
if #released > 0 then redis.call('HDEL', KEYS[5], unpack(released)) end
if nGroupClaims > 0 then redis.call('HSET', KEYS[2], unpack(groupClaims)) end
if nResults > 0 then writeJobResults(KEYS[9], resultIndexes, resultNames, nResults) end
if nCreated > 0 then
  redis.call('ZADD', KEYS[3], unpack(created))
  redis.call('ZADD', KEYS[4], unpack(created))
end
for ref, list in pairs(adds) do redis.call('ZADD', KEYS[tonumber(ref)], unpack(list)) end
for result, n in pairs(counts) do redis.call('HINCRBY', KEYS[10], result, n) end
applyStatusMoves(KEYS[8])
if nIds > 0 then redis.call('HSET', KEYS[6], unpack(syncs)) end
if nDigests > 0 then redis.call('HSET', KEYS[7], unpack(digests)) end
if nUndigested > 0 then redis.call('HDEL', KEYS[7], unpack(undigested)) end
if nIds > 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'op', 'upsert', 'kind', 'product', 'ids', table.concat(ids, ','), 'revs', table.concat(revs, ','))
  if auditAt > 0 then appendAudit(auditAt, 5, revs[1]) end
end
return out
