-- What a page of search hits reads of each product (store/productRepository.ts answerTexts): the
-- hits' products are answered as stored (domain/productDocs.ts viewText).
-- Called with a key count. KEYS[1]: the tenant's sync times (products:synced); KEYS[2..]: the
-- product hashes. ARGV: the product ids, in the order of their keys.
-- Returns per product 4 values: doc (false: the product is missing), parent_external_id,
-- embedding_status, synced ('' where none).
-- A flat array, as the values come: the reply string a page was once built into here cost Redis
-- twice this script's time (each product's record made, then joined), more than its client saved.
local synced = redis.call('HMGET', KEYS[1], unpack(ARGV))
local out = {}
for i = 2, #KEYS do
  local values = redis.call('HMGET', KEYS[i], 'doc', 'parent_external_id', 'embedding_status')
  out[#out + 1] = values[1] or false
  out[#out + 1] = values[2] or ''
  out[#out + 1] = values[3] or ''
  out[#out + 1] = synced[i - 1] or ''
end
return out
