-- Exchange an authorization code for a grant and its tokens, exactly once (RFC 6749 §4.1.2).
-- A code presented again revokes the grant issued from it.
-- KEYS: 1 code hash (doc, state), 2 client doc, 3 grant (the code's), 4 access token, 5 refresh token,
--       6 client grants zset, 7 the API key that approved the consent
-- ARGV: 1 grant id, 2 grant json, 3 access json, 4 refresh json ('' = none), 5 access ttl ms,
--       6 grant ttl ms, 7 how long a used code is remembered (ms), 8 now ms
-- Returns 1 issued, 0 unknown or expired code or its approving API key revoked, -1 code used before
-- (its grant is revoked), -2 client gone.
--- @include "lib/grants"
local refused = presentSingleUse(KEYS[1], 'fresh', KEYS[3], KEYS[6], ARGV[1])
if refused then return refused end
if redis.call('EXISTS', KEYS[2]) == 0 then return -2 end
-- Checked in the same step as the grant is added: a key revoked now leaves no grant behind.
if redis.call('EXISTS', KEYS[7]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'state', 'used')
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[6])
redis.call('SET', KEYS[4], ARGV[3], 'PX', ARGV[5])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[5], 'doc', ARGV[4], 'state', 'active')
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
end
trackGrant(KEYS[6], ARGV[1], tonumber(ARGV[8]), tonumber(ARGV[6]))
return 1
