-- Delete a site from reads at once; its products are purged by a background job, and search leaves
-- them out until then (the site joins the set of sites being purged). One audit event: the purge
-- of its products is part of this delete.
-- KEYS: 1 site doc, 2 sites zset, 3 slug hash, 4 default pointer, 5 change stream,
--       6 sites being purged (set), 7-9 audit streams
-- ARGV: 1 id, 2 slug, 3 stream maxlen, 4.. the audit event (store/audit.ts)
-- Returns 1 deleted, 0 missing.
--- @include "lib/audit"
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
-- Deleting the default site makes the oldest remaining site the default.
if redis.call('GET', KEYS[4]) == ARGV[1] then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if oldest[1] then redis.call('SET', KEYS[4], oldest[1]) else redis.call('DEL', KEYS[4]) end
end
redis.call('SADD', KEYS[6], ARGV[1])
redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[3], '*', 'op', 'delete', 'kind', 'site', 'id', ARGV[1])
appendAudit(7, 4, nil)
return 1
