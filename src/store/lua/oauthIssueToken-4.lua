-- A grant with one access token and no refresh token (client_credentials), for a client that exists.
-- KEYS: 1 client doc, 2 grant, 3 access token, 4 client grants zset
-- ARGV: 1 grant id, 2 grant json, 3 access json, 4 access ttl ms, 5 now ms
-- Returns 1 issued, -2 client gone.
--- @include "lib/grants"
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
trackGrant(KEYS[4], ARGV[1], tonumber(ARGV[5]), tonumber(ARGV[4]))
return 1
