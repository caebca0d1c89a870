-- The term dictionary of a tenant's products (store/keys.ts productTerms): each term of their search
-- text fields with the number of products holding it, kept by every write and delete of a search
-- hash, so that a search plans its words from it without asking the index
-- (search/redisQuery/termDictionary.ts). A product counts while its search hash follows a layout
-- that counts (f:v at least TERMS_SINCE); one written before is counted when the projection job
-- writes it again. The text fields and TERMS_SINCE are held to search/redisQuery/schema.ts by a test.
local TEXT_FIELDS = { 'f:title', 'f:title2', 'f:kw', 'f:brand', 'f:cat', 'f:short', 'f:desc' }
local TERMS_SINCE = 5
local IS_TEXT_FIELD = {}
for _, field in ipairs(TEXT_FIELDS) do IS_TEXT_FIELD[field] = true end

-- version: a stored or written f:v (false or nil: none).
local function countsTerms(version)
  local v = version and tonumber(version) or nil
  return v ~= nil and v >= TERMS_SINCE
end

-- Adds to `changes` (term -> change) what replacing the search hash's stored text by the text of
-- `values` (field/value pairs from position `from`, `n` pairs; n = 0: the hash goes) changes: each
-- distinct term stored leaves (-1), each distinct term written joins (+1), a term in both stays.
local function changeTerms(changes, key, values, from, n)
  local stored = redis.call('HMGET', key, 'f:v', unpack(TEXT_FIELDS))
  local change = {}
  if countsTerms(stored[1]) then
    for i = 2, #TEXT_FIELDS + 1 do
      if stored[i] then
        for term in string.gmatch(stored[i], '%S+') do change[term] = -1 end
      end
    end
  end
  local version = nil
  for p = from, from + 2 * n - 1, 2 do
    if values[p] == 'f:v' then version = values[p + 1] end
  end
  if countsTerms(version) then
    local written = {}
    for p = from, from + 2 * n - 1, 2 do
      if IS_TEXT_FIELD[values[p]] then
        for term in string.gmatch(values[p + 1], '%S+') do written[term] = true end
      end
    end
    for term in pairs(written) do change[term] = (change[term] or 0) + 1 end
  end
  for term, d in pairs(change) do
    if d ~= 0 then changes[term] = (changes[term] or 0) + d end
  end
end

-- Applies the changes to the dictionary; a term no product holds any more leaves it.
local function applyTermChanges(key, changes)
  for term, d in pairs(changes) do
    if d ~= 0 and redis.call('HINCRBY', key, term, d) <= 0 then redis.call('HDEL', key, term) end
  end
end
