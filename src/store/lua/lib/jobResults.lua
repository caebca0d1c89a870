-- A bulk job's item results (`--- @include "lib/jobResults"`): one string, a byte per item index
-- of the request, 0 (or past its end) while the item has none. A call reads its items' bytes with
-- one GETRANGE and writes one SETRANGE per run of consecutive indexes. As a hash (a field per
-- item) a 10,000-item job's results would take 677 KB instead of 10 KB, and redis-server more work
-- per item written.
-- The byte of each result; store/jobs.ts writes the same ones.
local RESULT_CODES = { created = 'c', updated = 'u', unchanged = 'n', failed = 'f' }

-- The indexes are numbers: the callers convert each ARGV string once (every tonumber is a strtod).
-- Whether each of n item indexes has a result: a table index -> true, for those that have one.
local function readJobResults(key, indexes, n)
  local has = {}
  if n == 0 then return has end
  local lo, hi = indexes[1], indexes[1]
  for i = 2, n do
    local index = indexes[i]
    if index < lo then lo = index end
    if index > hi then hi = index end
  end
  local bytes = redis.call('GETRANGE', key, lo, hi)
  for i = 1, n do
    local b = string.byte(bytes, indexes[i] - lo + 1)
    if b and b ~= 0 then has[indexes[i]] = true end
  end
  return has
end

-- Records n results: indexes with results (names of RESULT_CODES), in the order given.
local function writeJobResults(key, indexes, results, n)
  local runStart, runCodes, nCodes, previous = nil, {}, 0, nil
  for i = 1, n + 1 do
    local index = indexes[i]
    if runStart and index ~= previous + 1 then
      redis.call('SETRANGE', key, runStart, table.concat(runCodes, '', 1, nCodes))
      runStart, nCodes = nil, 0
    end
    if index then
      if not runStart then runStart = index end
      nCodes = nCodes + 1
      runCodes[nCodes] = RESULT_CODES[results[i]]
      previous = index
    end
  end
end
