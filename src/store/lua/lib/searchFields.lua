-- A product's search fields in their own hash (store/projection.ts: its search hash, or the stable
-- fields of its vector hash), written only where they changed: the hash's `_d` field keeps the
-- digest of the values written last, and every write makes the Query Engine index the hash again.
-- values: the field/value pairs from position `from`, `n` pairs; an empty value removes its field.
-- vectorDigest (a search hash only): the digest of the product's vector filter fields, kept as
-- `_vd` for the vector hash its first vectors make (storeVectors-7).
-- terms (a search hash only): term changes to add what the write changes to (lib/searchTerms).
--- @include "lib/searchTerms"
local function writeSearchFields(key, digest, values, from, n, vectorDigest, terms)
  if redis.call('HGET', key, '_d') == digest then return end
  if terms then changeTerms(terms, key, values, from, n) end
  local fields, nFields, drop, nDrop = { '_d', digest }, 2, nil, 0
  if vectorDigest then
    fields[3], fields[4], nFields = '_vd', vectorDigest, 4
  end
  for p = from, from + 2 * n - 1, 2 do
    if values[p + 1] ~= '' then
      fields[nFields + 1] = values[p]
      fields[nFields + 2] = values[p + 1]
      nFields = nFields + 2
    else
      drop = drop or {}
      nDrop = nDrop + 1
      drop[nDrop] = values[p]
    end
  end
  if nDrop > 0 then redis.call('HDEL', key, unpack(drop)) end
  redis.call('HSET', key, unpack(fields))
end

-- The search fields a product's vector search filters on (search/redisQuery/schema.ts
-- VECTOR_FILTER_FIELDS, which a test holds this list to): those a change of price or stock leaves alone.
local VECTOR_FILTER_FIELDS = {
  'f:id', 'f:site', 'f:lang', 'f:lang_base', 'f:category', 'f:brand_l', 'f:attrs', 'f:pext', 'f:has_anchor', 'f:parent', 'f:variant',
}

-- Appends to `out` the vector filter fields the search hash holds, with their digest, as
-- field/value pairs (none where it has none: the built-in engine serves).
local function copyVectorFilterFields(searchHash, out)
  local values = redis.call('HMGET', searchHash, '_vd', unpack(VECTOR_FILTER_FIELDS))
  -- A search hash written before `_vd` was kept: the fields alone (the product's next write
  -- writes them again, with their digest).
  if values[1] then
    out[#out + 1] = '_d'
    out[#out + 1] = values[1]
  end
  for i = 1, #VECTOR_FILTER_FIELDS do
    if values[i + 1] then
      out[#out + 1] = VECTOR_FILTER_FIELDS[i]
      out[#out + 1] = values[i + 1]
    end
  end
end

-- A product's search fields: its search hash, and its vector hash where that exists (it is made
-- by the first vectors, storeVectors-7, so a product without vectors costs no hash and no entry
-- in the vector index). Positions as writeSearchFields: the n search pairs from `from`, then the
-- m vector pairs; terms: the term changes of the call (lib/searchTerms), applied by the caller.
local function writeProductSearchFields(searchKey, vectorKey, searchDigest, vectorDigest, values, from, n, m, terms)
  writeSearchFields(searchKey, searchDigest, values, from, n, vectorDigest, terms)
  if redis.call('EXISTS', vectorKey) == 1 then writeSearchFields(vectorKey, vectorDigest, values, from + 2 * n, m) end
end
