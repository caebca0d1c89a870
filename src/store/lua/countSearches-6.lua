-- Adds one process's buffered searches of a tenant, bucket and day (domain/searchCounter.ts) to the
-- day's counts and distinct searchers, keeps the query lists bounded, and sets when they expire.
-- KEYS: 1 stats hash, 2 queries zset (query → searches), 3 no-result queries zset, 4 hit sums zset
--       (query → Σ hits), 5 searchers zset (query → distinct searchers), 6 searcher tags hash
--       (query → the 8-byte records of the searchers counted)
-- ARGV: 1 expire at (unix seconds), 2 searches, 3 searches without results, 4 members kept by a trim,
--       5 members that start a trim, 6 searcher tags expire at, 7 distinct searchers counted at most
--       (a query's count stops there for the day), 8 n hour fields, then n pairs (field, count),
--       then m, m triples (query, searches, hit sum), then k, k pairs (no-result query, searches),
--       then s, s pairs (query, the records of its searchers held: 4 bytes key-and-address tag,
--       4 bytes user_token tag or zeros). A searcher counts unless its caller tag or its user_token
--       tag is stored already (a stored record without a user_token takes its caller's next one).
-- Returns the number of queries trimmed away.
local stats, queries, noResults, hitSums, searchers, tags = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local keep, trimAt, most = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[7])
if ARGV[2] ~= '0' then redis.call('HINCRBY', stats, 'searches', ARGV[2]) end
if ARGV[3] ~= '0' then redis.call('HINCRBY', stats, 'no_result', ARGV[3]) end
local i = 8
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

-- Where a tag is stored at its place (part 0: a caller's, 1: a user_token's): the start of its record, or nil.
local NONE = '\0\0\0\0'
local function recordOf(stored, tag, part)
  local from = 1
  while true do
    local found = string.find(stored, tag, from, true)
    if not found then return nil end
    if (found - 1) % 8 == part * 4 then return found - part * 4 end
    from = found + 1
  end
end
n = tonumber(ARGV[i])
i = i + 1
for _ = 1, n do
  local query, records = ARGV[i], ARGV[i + 1]
  i = i + 2
  local stored = redis.call('HGET', tags, query) or ''
  local count, added, changed = #stored / 8, 0, false
  for at = 1, #records - 7, 8 do
    local caller, token = string.sub(records, at, at + 3), string.sub(records, at + 4, at + 7)
    local mine = recordOf(stored, caller, 0)
    if mine then
      -- Its caller counted before without a user_token: the user_token is the same searcher's (it moves with the shopper).
      if token ~= NONE and string.sub(stored, mine + 4, mine + 7) == NONE and not recordOf(stored, token, 1) then
        stored = string.sub(stored, 1, mine + 3) .. token .. string.sub(stored, mine + 8)
        changed = true
      end
    elseif count < most and (token == NONE or not recordOf(stored, token, 1)) then
      stored = stored .. caller .. token
      count = count + 1
      added = added + 1
      changed = true
    end
  end
  if changed then redis.call('HSET', tags, query, stored) end
  if added > 0 then redis.call('ZINCRBY', searchers, added, query) end
end

-- Trimmed in steps (a trim down to `keep` whenever `trimAt` is passed), not at every call: the
-- least searched go, and their hit sums, searchers and searcher tags with them.
local function trim(zset, companions)
  local card = redis.call('ZCARD', zset)
  if card <= trimAt then return 0 end
  local drop = card - keep
  -- unpack takes a bounded number of values: the members leave the companions in slices.
  for from = 0, drop - 1, 1000 do
    if #companions == 0 then break end
    local members = redis.call('ZRANGE', zset, from, math.min(from + 999, drop - 1))
    for _, companion in ipairs(companions) do redis.call(companion[1], companion[2], unpack(members)) end
  end
  redis.call('ZREMRANGEBYRANK', zset, 0, drop - 1)
  return drop
end
local trimmed = trim(queries, { { 'ZREM', hitSums }, { 'ZREM', searchers }, { 'HDEL', tags } })
trim(noResults, {})
for j = 1, 5 do redis.call('EXPIREAT', KEYS[j], ARGV[1]) end
redis.call('EXPIREAT', tags, ARGV[6])
return trimmed
