-- Create a user with a tenant-unique e-mail address, with its audit event.
-- KEYS: 1 user doc, 2 users zset, 3 e-mail hash, 4-6 audit streams
-- ARGV: 1 id, 2 lower-cased e-mail, 3 json, 4 created score (ms), 5.. the audit event (store/audit.ts)
-- Returns 1 created, -1 e-mail taken.
--- @include "lib/audit"
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
appendAudit(4, 5, nil)
return 1
