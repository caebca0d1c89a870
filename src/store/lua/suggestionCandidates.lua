-- The candidates of query suggestions over some days (domain/querySuggestions.ts): the queries
-- whose distinct searchers, summed over the days, reach `min`, less those the tenant blocked; the
-- most searched `limit` of them with their searches and hit sums over the same days.
-- Called with a key count. KEYS: 1, 2 scratch keys (deleted again), 3 the blocked queries (zset),
--       then n zsets of distinct searchers, n zsets of searches, n zsets of hit sums (the same days)
-- ARGV: 1 n, 2 limit, 3 min distinct searchers
-- Returns {query, searches, hit sum, …}, most searched first.
local n, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local a, b = KEYS[1], KEYS[2]
local function days(list)
  local out = {}
  for j = 1, n do out[j] = KEYS[3 + list * n + j] end
  return out
end
redis.call('ZUNIONSTORE', a, n, unpack(days(0)))
redis.call('ZREMRANGEBYSCORE', a, '-inf', '(' .. ARGV[3])
redis.call('ZDIFFSTORE', a, 2, a, KEYS[3])
-- Their searches: the searchers weigh nothing.
redis.call('ZUNIONSTORE', b, n, unpack(days(1)))
redis.call('ZINTERSTORE', a, 2, b, a, 'WEIGHTS', 1, 0)
local top = redis.call('ZRANGE', a, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, limit, 'WITHSCORES')
local out = {}
if #top > 0 then
  redis.call('ZUNIONSTORE', b, n, unpack(days(2)))
  local members = {}
  for j = 1, #top, 2 do members[#members + 1] = top[j] end
  local hitSums = redis.call('ZMSCORE', b, unpack(members))
  for j = 1, #members do
    out[#out + 1] = members[j]
    out[#out + 1] = top[j * 2]
    out[#out + 1] = hitSums[j] or '0'
  end
end
redis.call('DEL', a, b)
return out
