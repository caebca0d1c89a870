-- Make a search index read documents stored before it (search/redisQuery/schema.ts): each hash
-- still there has its `rev` written again, unchanged, which makes the Query Engine index the hash
-- anew, in every index over its prefix. Work in proportion to the tenant's documents: an index's
-- own initial scan reads the server's whole keyspace.
-- Called with a key count. KEYS: the document hashes. No ARGV.
-- Returns the number of hashes written.
local written = 0
for _, key in ipairs(KEYS) do
  local rev = redis.call('HGET', key, 'rev')
  if rev then
    redis.call('HSET', key, 'rev', rev)
    written = written + 1
  end
end
return written
