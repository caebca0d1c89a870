-- Make a search index read documents stored before it (search/redisQuery/tenantIndexes.ts): each
-- hash still there has one of its fields written again, unchanged, which makes the Query Engine
-- index the hash anew, in every index over its prefix. Work in proportion to the tenant's
-- documents: an index's own initial scan reads the server's whole keyspace.
-- Called with a key count. KEYS: the document hashes. ARGV: 1 the field written again.
-- Returns the number of hashes written.
local written = 0
for _, key in ipairs(KEYS) do
  local value = redis.call('HGET', key, ARGV[1])
  if value then
    redis.call('HSET', key, ARGV[1], value)
    written = written + 1
  end
end
return written
