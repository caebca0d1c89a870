-- One page of knowledge entries and the total, for any filter combination, in (created, id) order.
-- The common case (no personal entries of the caller, no filter, nothing expired) reads the
-- caller's ceiling set directly: O(log N + page). Otherwise it builds short-lived sets.
-- Called with a key count. KEYS: 1 base set (ceiling or one visibility), 2 the caller's personal
--   set (or the base again), 3 expiring zset, 4 and 5 scratch keys, 6.. filter sets
-- ARGV: 1 now (ms), 2 include expired ('1'|'0'), 3 offset, 4 limit, 5 add personal ('1'|'0')
-- Returns {total, id, id, …}.
local base = KEYS[1]
if ARGV[5] == '1' and redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('ZUNIONSTORE', KEYS[4], 2, KEYS[1], KEYS[2])
  base = KEYS[4]
end
if #KEYS > 5 then
  local args = {KEYS[5], 1 + #KEYS - 5, base}
  for i = 6, #KEYS do args[#args + 1] = KEYS[i] end
  args[#args + 1] = 'WEIGHTS'
  args[#args + 1] = '1'
  for _ = 6, #KEYS do args[#args + 1] = '0' end
  redis.call('ZINTERSTORE', unpack(args))
  base = KEYS[5]
end

local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local total = redis.call('ZCARD', base)
-- Expired entries stay in the sets; skip them by rank instead of copying the set.
local hidden = {}
local ranks = {}
if ARGV[2] ~= '1' then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])) do
    local rank = redis.call('ZRANK', base, id)
    if rank then
      hidden[id] = true
      ranks[#ranks + 1] = rank
    end
  end
  table.sort(ranks)
end
total = total - #ranks
local start = offset
for _, rank in ipairs(ranks) do
  if rank <= start then start = start + 1 else break end
end
local out = {total}
if limit > 0 and offset < total then
  local window = redis.call('ZRANGE', base, start, start + limit + #ranks - 1)
  for _, id in ipairs(window) do
    if not hidden[id] then
      out[#out + 1] = id
      if #out > limit then break end
    end
  end
end
if base ~= KEYS[1] then redis.call('UNLINK', KEYS[4], KEYS[5]) end
return out
