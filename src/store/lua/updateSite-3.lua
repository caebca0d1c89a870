-- Replace a site document if it is still the version the caller read (compare-and-set).
-- KEYS: site doc, default pointer, change stream
-- ARGV: id, expected json, new json, make default ('1'|'0'), stream maxlen
-- Returns 1 updated, 0 missing, -2 changed meanwhile (caller retries).
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[2] then return -2 end
redis.call('SET', KEYS[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SET', KEYS[2], ARGV[1]) end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 'op', 'upsert', 'kind', 'site', 'id', ARGV[1])
return 1
