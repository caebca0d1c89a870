-- Syncs that changed nothing: record the sync time (no revision, no change entry) of each product
-- whose revision or item digest still holds the expected value, and count its job item once. The
-- product hashes are only read: a search index over them has nothing to re-index.
-- KEYS: 1 synced hash, 2 item digest hash, 3 job results hash, 4 job counts hash (3 and 4 only
--       with a job), then the product hashes, referred to by position from ARGV
-- ARGV: 1 synced-at, 2 job ('1' | '0'), then 6 values per product:
--   +0 product hash, +1 id, +2 what to compare ('rev', or 'item_digest': the digest of the bulk
--   item last applied), +3 expected value, +4 item digest to store ('' = leave as is), +5 job item index
-- Returns per product: 1 touched; 0 the value differs (changed meanwhile, or not the same item);
-- 2 the job item already has a result (skipped).
local STRIDE = 6
local synced, withJob = ARGV[1], ARGV[2] == '1'
local out, touched = {}, 0
for a = 3, #ARGV, STRIDE do
  local id = ARGV[a + 1]
  local code = 0
  if withJob and redis.call('HEXISTS', KEYS[3], ARGV[a + 5]) == 1 then
    code = 2
  else
    local current
    if ARGV[a + 2] == 'rev' then current = redis.call('HGET', KEYS[tonumber(ARGV[a])], 'rev')
    else current = redis.call('HGET', KEYS[2], id) end
    if current == ARGV[a + 3] then
      code = 1
      redis.call('HSET', KEYS[1], id, synced)
      if ARGV[a + 4] ~= '' then redis.call('HSET', KEYS[2], id, ARGV[a + 4]) end
      if withJob then
        redis.call('HSET', KEYS[3], ARGV[a + 5], 'unchanged')
        touched = touched + 1
      end
    end
  end
  out[#out + 1] = code
end
if touched > 0 then redis.call('HINCRBY', KEYS[4], 'unchanged', touched) end
return out
