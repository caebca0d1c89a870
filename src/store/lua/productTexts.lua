-- What a page of search hits reads of each product, in one string: the hits' products are answered
-- as stored (domain/productDocs.ts viewText), so one bulk string replaces an array per product,
-- which the client decodes element by element.
-- Called with a key count. KEYS[1]: the tenant's sync times (products:synced); KEYS[2..]: the
-- product hashes. ARGV: the product ids, in the order of their keys.
-- Returns per product `doc US parent_external_id US embedding_status US synced`, products joined
-- by RS (0x1e, 0x1f: a JSON document never holds a raw control character); a missing product is
-- an empty record.
local US, RS = '\31', '\30'
local synced = redis.call('HMGET', KEYS[1], unpack(ARGV))
local out = {}
for i = 2, #KEYS do
  local values = redis.call('HMGET', KEYS[i], 'doc', 'parent_external_id', 'embedding_status')
  if values[1] then
    out[i - 1] = values[1] .. US .. (values[2] or '') .. US .. (values[3] or '') .. US .. (synced[i - 1] or '')
  else
    out[i - 1] = ''
  end
end
return table.concat(out, RS)
