-- An upsert that changed nothing: record the sync time only (no revision, no change entry).
-- KEYS: 1 product hash, 2 job results hash, 3 job counts hash
-- ARGV: 1 expected rev, 2 synced-at, 3 job item index ('' = none)
-- Returns 1 done, -2 changed meanwhile.
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return -2 end
redis.call('HSET', KEYS[1], 'synced', ARGV[2])
if ARGV[3] ~= '' and redis.call('HSETNX', KEYS[2], ARGV[3], 'unchanged') == 1 then
  redis.call('HINCRBY', KEYS[3], 'unchanged', 1)
end
return 1
