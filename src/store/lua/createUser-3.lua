-- Create a user with a tenant-unique e-mail address.
-- KEYS: user doc, users zset, e-mail hash
-- ARGV: id, lower-cased e-mail, json, created score (ms)
-- Returns 1 created, -1 e-mail taken.
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
