-- Delete a knowledge entry permanently, with its indexes, change entry and audit event.
-- KEYS: 1 entry hash, 2 change stream, 3 tenant audit stream, 4 entity audit stream,
--       5 expiring zset, 6.. index zsets
-- ARGV: 1 id, 2 expected rev, 3 user id, 4 credential id, 5 client id, 6 audit source, 7 stream maxlen
-- Returns 1 deleted, 0 missing, -2 changed meanwhile.
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return 0 end
if rev ~= ARGV[2] then return -2 end
redis.call('DEL', KEYS[1])
for i = 5, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], '*', 'op', 'delete', 'kind', 'entry', 'id', ARGV[1])
local event = {'action', 'delete', 'entity_type', 'knowledge_entry', 'entity_id', ARGV[1], 'version', rev,
  'user_id', ARGV[3], 'credential_id', ARGV[4], 'client_id', ARGV[5], 'audit_source', ARGV[6]}
local eventId = redis.call('XADD', KEYS[3], 'MAXLEN', '~', '1000000', '*', unpack(event))
redis.call('XADD', KEYS[4], 'MAXLEN', '~', '1000', eventId, unpack(event))
return 1
