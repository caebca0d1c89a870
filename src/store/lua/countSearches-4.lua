-- Adds one process's buffered searches of a tenant, bucket and day (domain/searchCounter.ts) to the
-- day's counts, keeps the query lists bounded, and sets when they expire.
-- KEYS: 1 stats hash, 2 queries zset (query → searches), 3 no-result queries zset, 4 hit sums zset (query → Σ hits)
-- ARGV: 1 expire at (unix seconds), 2 searches, 3 searches without results, 4 members kept by a trim,
--       5 members that start a trim, 6 n hour fields, then n pairs (field, count),
--       then m, m triples (query, searches, hit sum), then k, k pairs (no-result query, searches)
-- Returns the number of queries trimmed away.
local stats, queries, noResults, hitSums = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local keep, trimAt = tonumber(ARGV[4]), tonumber(ARGV[5])
if ARGV[2] ~= '0' then redis.call('HINCRBY', stats, 'searches', ARGV[2]) end
if ARGV[3] ~= '0' then redis.call('HINCRBY', stats, 'no_result', ARGV[3]) end
local i = 6
local n = tonumber(ARGV[i])
i = i + 1
for _ = 1, n do
  redis.call('HINCRBY', stats, ARGV[i], ARGV[i + 1])
  i = i + 2
end
n = tonumber(ARGV[i])
i = i + 1
for _ = 1, n do
  redis.call('ZINCRBY', queries, ARGV[i + 1], ARGV[i])
  -- A hit sum of 0 is written too: it says the query was searched and found nothing.
  redis.call('ZINCRBY', hitSums, ARGV[i + 2], ARGV[i])
  i = i + 3
end
n = tonumber(ARGV[i])
i = i + 1
for _ = 1, n do
  redis.call('ZINCRBY', noResults, ARGV[i + 1], ARGV[i])
  i = i + 2
end

-- Trimmed in steps (a trim down to `keep` whenever `trimAt` is passed), not at every call: the
-- least searched go, and their hit sums with them.
local function trim(zset, companion)
  local card = redis.call('ZCARD', zset)
  if card <= trimAt then return 0 end
  local drop = card - keep
  if companion then
    -- unpack takes a bounded number of values: the members leave the companion in slices.
    for from = 0, drop - 1, 1000 do
      local members = redis.call('ZRANGE', zset, from, math.min(from + 999, drop - 1))
      redis.call('ZREM', companion, unpack(members))
    end
  end
  redis.call('ZREMRANGEBYRANK', zset, 0, drop - 1)
  return drop
end
local trimmed = trim(queries, hitSums)
trim(noResults, nil)
for _, key in ipairs(KEYS) do redis.call('EXPIREAT', key, ARGV[1]) end
return trimmed
