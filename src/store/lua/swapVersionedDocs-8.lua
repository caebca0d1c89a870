-- Put a staged copy of a versioned collection in its place (a large import, store/versionedDocs.ts):
-- the copy was written in slices beside it (the collection as it was, plus the new documents), so
-- that no call is long; here it replaces the collection in one step, if nothing changed it since
-- the copy began, within the caps. The old hashes are freed in the background (UNLINK).
-- KEYS: 1 documents hash, 2 version counter, 3 weights hash, 4 staged documents, 5 staged weights, 6-8 audit streams
-- ARGV: 1 the version the copy began at, 2 most documents, 3 weight in all of the copy ('' without
--       weights), 4 most weight in all, 5.. the audit event (store/audit.ts)
-- Returns 1 swapped, 0 the collection changed meanwhile, -1 too many documents, -2 too much weight.
--- @include "lib/audit"
local docs, version, weights, staged, stagedWeights = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local function drop(result)
  redis.call('UNLINK', staged, stagedWeights)
  return result
end
if (redis.call('GET', version) or '0') ~= ARGV[1] then return drop(0) end
if redis.call('HLEN', staged) > tonumber(ARGV[2]) then return drop(-1) end
if ARGV[3] ~= '' and tonumber(ARGV[3]) > tonumber(ARGV[4]) then return drop(-2) end
redis.call('UNLINK', docs, weights)
redis.call('RENAME', staged, docs)
redis.call('PERSIST', docs)
if ARGV[3] ~= '' then
  redis.call('HSET', stagedWeights, '*total', ARGV[3])
  redis.call('RENAME', stagedWeights, weights)
  redis.call('PERSIST', weights)
end
redis.call('INCR', version)
appendAudit(6, 5, nil)
return 1
