-- The most searched queries of some days (a report's range, the suggestions' 30 days), summed
-- here so that only the top comes back: the union of the days' zsets, its top `limit` with at
-- least `min` searches, and with hit sums their sums over the same days.
-- Called with a key count. KEYS: 1, 2 scratch keys (deleted again), then n zsets of searches,
-- then (with hit sums) the n zsets of hit sums of the same days.
-- ARGV: 1 n, 2 limit, 3 min searches, 4 '1' with hit sums
-- Returns {query, searches[, hit sum], …}, most searched first.
local n, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local withSums = ARGV[4] == '1'
local counts = {}
for j = 1, n do counts[j] = KEYS[2 + j] end
redis.call('ZUNIONSTORE', KEYS[1], n, unpack(counts))
local top = redis.call('ZRANGE', KEYS[1], '+inf', ARGV[3], 'BYSCORE', 'REV', 'LIMIT', 0, limit, 'WITHSCORES')
local out = {}
if withSums and #top > 0 then
  local sums = {}
  for j = 1, n do sums[j] = KEYS[2 + n + j] end
  redis.call('ZUNIONSTORE', KEYS[2], n, unpack(sums))
  local members = {}
  for j = 1, #top, 2 do members[#members + 1] = top[j] end
  local hitSums = redis.call('ZMSCORE', KEYS[2], unpack(members))
  for j = 1, #members do
    out[#out + 1] = members[j]
    out[#out + 1] = top[j * 2]
    out[#out + 1] = hitSums[j] or '0'
  end
else
  out = top
end
redis.call('DEL', KEYS[1], KEYS[2])
return out
