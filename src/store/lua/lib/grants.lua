-- OAuth grants (store/oauth.ts), included into the scripts that issue from a single-use credential.

-- A single-use credential (authorization code, refresh token) presented: its hash holds `state`.
-- Returns 0 when it is unknown or expired, -1 when it was used before (the grant issued from it is
-- then revoked: a replay means it leaked), nil while it is still `usable`.
local function presentSingleUse(credentialKey, usable, grantKey, clientGrantsKey, grantId)
  local state = redis.call('HGET', credentialKey, 'state')
  if not state then return 0 end
  if state ~= usable then
    redis.call('DEL', grantKey)
    redis.call('ZREM', clientGrantsKey, grantId)
    return -1
  end
  return nil
end

-- Lists the grant under its client until it expires, dropping the client's expired grants.
local function trackGrant(clientGrantsKey, grantId, now, ttlMs)
  redis.call('ZREMRANGEBYSCORE', clientGrantsKey, '-inf', now)
  redis.call('ZADD', clientGrantsKey, now + ttlMs, grantId)
end
