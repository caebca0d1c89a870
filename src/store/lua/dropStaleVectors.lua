-- Drop the vectors search no longer reads (store/reembed.ts): every `v:*` field of the hashes but
-- those named, i.e. vectors of a model the tenant has moved on from, and of texts ranking does not
-- use (properties, attributes: computed by earlier builds). Only while the tenant is searched with
-- the model and no re-embed runs: one that starts meanwhile writes vectors this must not touch.
-- Called with a key count. KEYS: 1 the tenant's embedding model, 2 its re-embed hash, then product vector
-- and entry hashes. ARGV: 1 the model, then the vector fields to keep.
-- Returns the number of hashes changed, or -1 (not now: nothing changed).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local reembedding = redis.call('HMGET', KEYS[2], 'model', 'finished_at')
if reembedding[1] and (reembedding[1] ~= ARGV[1] or not reembedding[2]) then return -1 end
local keep = {}
for i = 2, #ARGV do keep[ARGV[i]] = true end
local changed = 0
for k = 3, #KEYS do
  local drop = {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[k])) do
    if string.sub(field, 1, 2) == 'v:' and not keep[field] then drop[#drop + 1] = field end
  end
  if #drop > 0 then
    redis.call('HDEL', KEYS[k], unpack(drop))
    changed = changed + 1
  end
end
return changed
