-- Syncs that changed nothing: record the sync time (no revision, no change entry) of each product
-- whose field still holds the expected value, and count its job item once.
-- KEYS: 1 job results hash, 2 job counts hash (both only with a job), then the product hashes,
--       referred to by position from ARGV
-- ARGV: 1 synced-at, 2 job ('1' | '0'), then 5 values per product:
--   +0 product hash, +1 field to compare ('rev', or 'ih': the digest of the bulk item last
--   applied), +2 expected value, +3 ih to store ('' = leave as is), +4 job item index
-- Returns per product: 1 touched; 0 the field differs (changed meanwhile, or not the same item);
-- 2 the job item already has a result (skipped).
local STRIDE = 5
local synced, withJob = ARGV[1], ARGV[2] == '1'
local out, touched = {}, 0
for a = 3, #ARGV, STRIDE do
  local pk = KEYS[tonumber(ARGV[a])]
  local code = 0
  if withJob and redis.call('HEXISTS', KEYS[1], ARGV[a + 4]) == 1 then
    code = 2
  elseif redis.call('HGET', pk, ARGV[a + 1]) == ARGV[a + 2] then
    code = 1
    if ARGV[a + 3] ~= '' then redis.call('HSET', pk, 'synced', synced, 'ih', ARGV[a + 3])
    else redis.call('HSET', pk, 'synced', synced) end
    if withJob then
      redis.call('HSET', KEYS[1], ARGV[a + 4], 'unchanged')
      touched = touched + 1
    end
  end
  out[#out + 1] = code
end
if touched > 0 then redis.call('HINCRBY', KEYS[2], 'unchanged', touched) end
return out
