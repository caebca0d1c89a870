-- One page of knowledge entries and the total, for any filter combination, in (created, id) order.
-- Every index set scores by created ms, so walking any of them in order is the list order.
-- Without filters it reads the caller's set directly: O(log N + page). With filters it walks the
-- smallest filter set and checks membership in the others; ZINTERCARD counts the total. Nothing
-- is stored, so concurrent lists do not queue behind large intersections.
-- Called with a key count. KEYS: 1 base set (ceiling or one visibility), 2 the caller's personal
--   set (or the base again), 3 expiring zset, 4 scratch key, 5.. filter sets
-- ARGV: 1 now (ms), 2 include expired ('1'|'0'), 3 offset, 4 limit, 5 add personal ('1'|'0')
-- Returns {total, id, id, …}.
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local useOwn = ARGV[5] == '1' and KEYS[2] ~= KEYS[1] and redis.call('ZCARD', KEYS[2]) > 0
local filters = {}
for i = 5, #KEYS do filters[#filters + 1] = KEYS[i] end

-- Expired memories stay in the sets and are skipped.
local hidden, hiddenList = {}, {}
if ARGV[2] ~= '1' then
  hiddenList = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
  for _, id in ipairs(hiddenList) do hidden[id] = true end
end

local out = {0}

if #filters == 0 then
  local base = KEYS[1]
  if useOwn then
    redis.call('ZUNIONSTORE', KEYS[4], 2, KEYS[1], KEYS[2])
    base = KEYS[4]
  end
  local ranks = {}
  for _, id in ipairs(hiddenList) do
    local rank = redis.call('ZRANK', base, id)
    if rank then ranks[#ranks + 1] = rank end
  end
  table.sort(ranks)
  out[1] = redis.call('ZCARD', base) - #ranks
  local start = offset
  for _, rank in ipairs(ranks) do
    if rank <= start then start = start + 1 else break end
  end
  if limit > 0 and offset < out[1] then
    for _, id in ipairs(redis.call('ZRANGE', base, start, start + limit + #ranks - 1)) do
      if not hidden[id] then
        out[#out + 1] = id
        if #out > limit then break end
      end
    end
  end
  if base ~= KEYS[1] then redis.call('UNLINK', base) end
  return out
end

-- The driver: the smallest filter set.
local driver, size = filters[1], redis.call('ZCARD', filters[1])
for i = 2, #filters do
  local n = redis.call('ZCARD', filters[i])
  if n < size then driver, size = filters[i], n end
end

local function visible(id)
  return redis.call('ZSCORE', KEYS[1], id) or (useOwn and redis.call('ZSCORE', KEYS[2], id))
end
local function matches(id)
  if not visible(id) then return false end
  for _, set in ipairs(filters) do
    if set ~= driver and not redis.call('ZSCORE', set, id) then return false end
  end
  return true
end
local function intercard(first)
  local args = {1 + #filters, first}
  for _, set in ipairs(filters) do args[#args + 1] = set end
  return redis.call('ZINTERCARD', unpack(args))
end

local total = intercard(KEYS[1]) + (useOwn and intercard(KEYS[2]) or 0)
for _, id in ipairs(hiddenList) do
  if redis.call('ZSCORE', driver, id) and matches(id) then total = total - 1 end
end
out[1] = total

if limit > 0 and offset < total then
  local skip, position, chunk = offset, 0, 256
  while #out <= limit do
    local ids = redis.call('ZRANGE', driver, position, position + chunk - 1)
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      if not hidden[id] and matches(id) then
        if skip > 0 then
          skip = skip - 1
        else
          out[#out + 1] = id
          if #out > limit then break end
        end
      end
    end
    position = position + chunk
  end
end
return out
