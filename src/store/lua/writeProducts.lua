-- Create or replace a batch of products of one site (and at most one bulk job). Each product is
-- one step of its own: its fields, its external_id and translation-group claims, its list indexes
-- and its job result, in the order of the products. The shared hashes (external_ids, groups, job
-- results, sync bookkeeping) are read once up front and written once at the end, with the steps
-- applied in between: a few commands per call instead of several per product, for the script and
-- for the append-only file. The batch adds one change entry naming every product written. A
-- single write (never a bulk one) adds its audit event.
-- KEYS: 1 change stream, 2 tenant translation-group hash, 3 tenant zset, 4 site zset,
--       5 site external_id hash, 6 synced hash, 7 item digest hash, 8 embedding status counts,
--       9 job results hash, 10 job counts hash (9 and 10 only with a job), then product hashes
--       and language/category zsets, referred to by position from ARGV
-- ARGV: 1 stream maxlen, 2 synced-at, 3 job ('1' | '0'), 4 position of the three audit stream keys
--   ('0' = no audit event; else the call writes one product and 5.. hold its event, store/audit.ts),
--   then 17 values per product:
--   +0 product hash, +1 id, +2 expected rev ('' = create), +3 new external_id ('' = none),
--   +4 old external_id ('' = none), +5 translation group to claim ('' = none), +6 created score (ms),
--   +7 language zset to add to ('0' = none), +8 category zset to add to ('0' = none),
--   +9 zsets to leave, "a,b" ('' = none), +10 job item index, +11 doc, +12 parent_external_id,
--   +13 embedding_status, +14 text_hash ('' = texts unchanged: text_hash and text_sources stay as
--   stored), +15 text_sources (the explicit embedding texts, JSON; '' = none), +16 item digest ('' = none),
--   +17 n, the number of search projection fields, then n field/value pairs (store/projection.ts;
--   an empty value removes the field)
-- Returns per product two values: 1, new rev (written); -1, owner id (external_id taken by another
-- product); -2, '' (changed meanwhile, or exists on create); -3, group (translation group differs).
--- @include "lib/audit"
--- @include "lib/embeddingCounts"
local STRIDE = 18
local synced, withJob = ARGV[2], ARGV[3] == '1'
local auditAt = tonumber(ARGV[4])
local first = 5
if auditAt > 0 then first = 9 + 2 * tonumber(ARGV[8]) end

-- The rows' positions in ARGV, and every field of a shared hash that some row reads.
local rows = {}
local extWanted, groupWanted, resultWanted = {}, {}, {}
-- The product keys of the rows, while every row is a create: one EXISTS then answers for all of
-- them (a bulk import's new products), instead of a read of each one's revision.
local createKeys = {}
local a = first
while a <= #ARGV do
  rows[#rows + 1] = a
  if createKeys and ARGV[a + 2] == '' then createKeys[#createKeys + 1] = KEYS[tonumber(ARGV[a])] else createKeys = nil end
  local newExt, oldExt = ARGV[a + 3], ARGV[a + 4]
  if newExt ~= '' then extWanted[newExt] = true end
  if oldExt ~= '' then extWanted[oldExt] = true end
  if ARGV[a + 5] ~= '' then groupWanted[newExt] = true end
  if withJob then resultWanted[ARGV[a + 10]] = true end
  a = a + STRIDE + 2 * tonumber(ARGV[a + 17])
end

-- A hash's fields as read once: field -> value, or false where it holds none. The steps below read
-- and change these copies; `changed` lists the fields to write back at the end.
local function readFields(key, wanted)
  local names = {}
  for name in pairs(wanted) do names[#names + 1] = name end
  local copy = {}
  if #names == 0 then return copy end
  local values = redis.call('HMGET', key, unpack(names))
  for i, name in ipairs(names) do copy[name] = values[i] or false end
  return copy
end
local owners = readFields(KEYS[5], extWanted)
local groups = readFields(KEYS[2], groupWanted)
local results = withJob and readFields(KEYS[9], resultWanted) or {}
local ownersChanged, groupClaims, resultsSet, counts = {}, {}, {}, {}
local noneExists = createKeys ~= nil and #createKeys > 0 and redis.call('EXISTS', unpack(createKeys)) == 0

local out, ids, revs, adds = {}, {}, {}, {}
-- Sync bookkeeping of the call: id/time and id/digest pairs, digests to drop.
local syncs, digests, undigested = {}, {}, {}
local function add(ref, score, id)
  local list = adds[ref]
  if not list then list = {}; adds[ref] = list end
  list[#list + 1] = score
  list[#list + 1] = id
end

for _, a in ipairs(rows) do
  local pk, id, expected = KEYS[tonumber(ARGV[a])], ARGV[a + 1], ARGV[a + 2]
  local newExt, oldExt, group = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local create = expected == ''
  local rev = false
  if not noneExists then rev = redis.call('HGET', pk, 'rev') end
  local code, detail = 1, ''
  if (create and rev) or (not create and rev ~= expected) then
    code = -2
  elseif newExt ~= '' and (create or newExt ~= oldExt) then
    local owner = owners[newExt]
    if owner and owner ~= id then code, detail = -1, owner end
  end
  if code == 1 and group ~= '' then
    local claimed = groups[newExt]
    if not claimed then
      groups[newExt] = group
      groupClaims[#groupClaims + 1] = newExt
      groupClaims[#groupClaims + 1] = group
    elseif claimed ~= group then
      code, detail = -3, claimed
    end
  end
  if code == 1 then
    if newExt ~= '' and owners[newExt] ~= id then
      owners[newExt] = id
      ownersChanged[#ownersChanged + 1] = newExt
    end
    if oldExt ~= '' and oldExt ~= newExt and owners[oldExt] == id then
      owners[oldExt] = false
      ownersChanged[#ownersChanged + 1] = oldExt
    end
    local score = ARGV[a + 6]
    if create then
      add(3, score, id)
      add(4, score, id)
    end
    if ARGV[a + 7] ~= '0' then add(tonumber(ARGV[a + 7]), score, id) end
    if ARGV[a + 8] ~= '0' then add(tonumber(ARGV[a + 8]), score, id) end
    if ARGV[a + 9] ~= '' then
      for ref in string.gmatch(ARGV[a + 9], '%d+') do redis.call('ZREM', KEYS[tonumber(ref)], id) end
    end
    local newRev = (tonumber(rev) or 0) + 1
    local fields = { 'doc', ARGV[a + 11], 'parent_external_id', ARGV[a + 12], 'embedding_status', ARGV[a + 13], 'rev', newRev }
    local textHash, textSources, itemDigest = ARGV[a + 14], ARGV[a + 15], ARGV[a + 16]
    local dropSources = textHash ~= '' and textSources == ''
    if textHash ~= '' then fields[#fields + 1] = 'text_hash'; fields[#fields + 1] = textHash end
    if textSources ~= '' then fields[#fields + 1] = 'text_sources'; fields[#fields + 1] = textSources end
    syncs[#syncs + 1] = id
    syncs[#syncs + 1] = synced
    if itemDigest ~= '' then
      digests[#digests + 1] = id
      digests[#digests + 1] = itemDigest
    elseif not create then
      undigested[#undigested + 1] = id
    end
    local drop = {}
    if not create and dropSources then drop[#drop + 1] = 'text_sources' end
    for p = a + STRIDE, a + STRIDE + 2 * tonumber(ARGV[a + 17]) - 1, 2 do
      if ARGV[p + 1] ~= '' then
        fields[#fields + 1] = ARGV[p]
        fields[#fields + 1] = ARGV[p + 1]
      elseif not create then
        drop[#drop + 1] = ARGV[p]
      end
    end
    if #drop > 0 then redis.call('HDEL', pk, unpack(drop)) end
    moveStatus('product', not create and redis.call('HGET', pk, 'embedding_status'), ARGV[a + 13])
    redis.call('HSET', pk, unpack(fields))
    ids[#ids + 1] = id
    revs[#revs + 1] = newRev
    detail = newRev
    if withJob and not results[ARGV[a + 10]] then
      local result = create and 'created' or 'updated'
      results[ARGV[a + 10]] = result
      resultsSet[#resultsSet + 1] = ARGV[a + 10]
      resultsSet[#resultsSet + 1] = result
      counts[result] = (counts[result] or 0) + 1
    end
  end
  out[#out + 1] = code
  out[#out + 1] = detail
end

-- Each external_id as the steps left it: claimed by a product, or released.
local claims, released, seen = {}, {}, {}
for _, ext in ipairs(ownersChanged) do
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
if #groupClaims > 0 then redis.call('HSET', KEYS[2], unpack(groupClaims)) end
if #resultsSet > 0 then redis.call('HSET', KEYS[9], unpack(resultsSet)) end
for ref, list in pairs(adds) do redis.call('ZADD', KEYS[ref], unpack(list)) end
for result, n in pairs(counts) do redis.call('HINCRBY', KEYS[10], result, n) end
applyStatusMoves(KEYS[8])
if #syncs > 0 then redis.call('HSET', KEYS[6], unpack(syncs)) end
if #digests > 0 then redis.call('HSET', KEYS[7], unpack(digests)) end
if #undigested > 0 then redis.call('HDEL', KEYS[7], unpack(undigested)) end
if #ids > 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'op', 'upsert', 'kind', 'product', 'ids', table.concat(ids, ','), 'revs', table.concat(revs, ','))
  if auditAt > 0 then appendAudit(auditAt, 5, revs[1]) end
end
return out
