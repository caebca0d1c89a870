-- Refresh-token rotation with reuse detection: the presented token is retired and a new pair is
-- issued; a retired token presented again revokes the whole grant (OAuth 2.1 §4.3.1).
-- KEYS: 1 presented refresh hash (doc, state), 2 grant, 3 new refresh hash, 4 new access token,
--       5 client doc, 6 client grants zset
-- ARGV: 1 grant id, 2 new refresh json, 3 new access json, 4 access ttl ms, 5 refresh ttl ms, 6 now ms
-- Returns 1 rotated, 0 unknown, expired or revoked, -1 reused (the grant is revoked), -2 client gone.
--- @include "lib/grants"
local refused = presentSingleUse(KEYS[1], 'active', KEYS[2], KEYS[6], ARGV[1])
if refused then return refused end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[5]) == 0 then return -2 end
-- The retired token keeps its own expiry, so that a late replay is still recognised.
redis.call('HSET', KEYS[1], 'state', 'rotated')
redis.call('HSET', KEYS[3], 'doc', ARGV[2], 'state', 'active')
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('SET', KEYS[4], ARGV[3], 'PX', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
trackGrant(KEYS[6], ARGV[1], tonumber(ARGV[6]), tonumber(ARGV[5]))
return 1
