-- A product's search fields in their own hash (store/projection.ts: its search hash, or the stable
-- fields of its vector hash), written only where they changed: the hash's `_d` field keeps the
-- digest of the values written last, and every write makes the Query Engine index the hash again.
-- values: the field/value pairs from position `from`, `n` pairs; an empty value removes its field.
local function writeSearchFields(key, digest, values, from, n)
  if redis.call('HGET', key, '_d') == digest then return end
  local fields, nFields, drop, nDrop = { '_d', digest }, 2, nil, 0
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
