-- Forget the console's recorded client id only while it is still `expected` (an admin deleted
-- that client): a load that claimed a new one meanwhile keeps its claim.
-- KEYS: 1 the console client key
-- ARGV: 1 expected client id
-- Returns 1 forgotten, 0 another id is recorded.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
