-- Replace a site document if it is still the version the caller read (compare-and-set).
-- KEYS: 1 site doc, 2 default pointer, 3 change stream, 4-6 audit streams
-- ARGV: 1 id, 2 expected json, 3 new json, 4 make default ('1'|'0'), 5 stream maxlen,
--       6.. the audit event (store/audit.ts)
-- Returns 1 updated, 0 missing, -2 changed meanwhile (caller retries).
--- @include "lib/audit"
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[2] then return -2 end
redis.call('SET', KEYS[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SET', KEYS[2], ARGV[1]) end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 'op', 'upsert', 'kind', 'site', 'id', ARGV[1])
appendAudit(4, 6, nil)
return 1
