-- A bulk job's item that could not be stored: counted once as failed, with its error, unless it
-- has a result already.
-- KEYS: 1 job results (lib/jobResults), 2 job counts hash, 3 job errors list
-- ARGV: 1 item index, 2 its error (JSON)
-- Returns 1 counted, 0 the item had a result already.
--- @include "lib/jobResults"
local index = tonumber(ARGV[1])
if readJobResults(KEYS[1], { index }, 1)[index] then return 0 end
writeJobResults(KEYS[1], { index }, { 'failed' }, 1)
redis.call('HINCRBY', KEYS[2], 'failed', 1)
redis.call('RPUSH', KEYS[3], ARGV[2])
-- The list is new when the request had no invalid items: it expires with the job's other keys.
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1
