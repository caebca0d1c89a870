-- Replace a category if unchanged since read (with its audit event); moving it checks the new parent and refuses cycles.
-- KEYS: 1 category doc, 2 parent hash, 3 old parent's children set, 4 new parent's children set,
--       5 new parent doc, 6 change stream, 7-9 audit streams
-- ARGV: 1 id, 2 expected json, 3 new json, 4 new parent id ('' for top level), 5 stream maxlen,
--       6.. the audit event (store/audit.ts)
-- Returns 1 updated, 0 missing, -1 parent missing, -2 changed meanwhile, -3 cycle.
--- @include "lib/audit"
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[2] then return -2 end
local parent = ARGV[4]
if parent ~= '' then
  if redis.call('EXISTS', KEYS[5]) == 0 then return -1 end
  -- Walk up from the new parent: meeting this category again would close a cycle.
  local cursor, steps = parent, 0
  while cursor and cursor ~= '' do
    if cursor == ARGV[1] then return -3 end
    steps = steps + 1
    if steps > 100000 then return -3 end
    cursor = redis.call('HGET', KEYS[2], cursor)
  end
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], parent)
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[5], '*', 'op', 'upsert', 'kind', 'category', 'id', ARGV[1])
appendAudit(7, 6, nil)
return 1
