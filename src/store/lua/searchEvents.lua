-- The click and conversion events of one request (domain/searchAnalytics.ts), all or nothing.
-- First, each new event's product must be one of the tenant's (of the search's site when the
-- search named one): if any is not, nothing is counted and those events are answered. Then an
-- event id taken in the last day counts once (a retry after a timeout counts nothing twice), a
-- search counts one click and one conversion per product (further ones are duplicates whatever
-- their event ids), and counts once as clicked and once as converted.
-- Called with a key count. KEYS: the stats hashes the events count in, the event id keys, the
-- hashes of what each search's events counted (one per query_id), the zsets of product ids.
-- ARGV: 1 event id lifetime (s), 2 search hash lifetime (s), 3 n stats hashes, then n pairs
--       (key position, expire at in unix seconds), then per event 8 values: event id key position,
--       the positions of its two stats hashes (its site's, the tenant's), its search's hash position,
--       its product zset position, type (click | conversion), product id, position ('' for none)
-- Returns {accepted, duplicates}, or {-1, i, …}: the 0-based indexes of the events whose product
-- is unknown (nothing counted).
local eventTtl, searchTtl = ARGV[1], ARGV[2]
local n = tonumber(ARGV[3])
local from = 4 + n * 2
local unknown = { -1 }
local index = 0
for i = from, #ARGV, 8 do
  local eventKey, products = KEYS[tonumber(ARGV[i])], KEYS[tonumber(ARGV[i + 4])]
  -- An event counted before is a duplicate, whatever became of its product since.
  if redis.call('EXISTS', eventKey) == 0 and not redis.call('ZSCORE', products, ARGV[i + 6]) then unknown[#unknown + 1] = index end
  index = index + 1
end
if #unknown > 1 then return unknown end

local accepted, duplicates = 0, 0
for i = from, #ARGV, 8 do
  local eventKey, siteStats, allStats, search = KEYS[tonumber(ARGV[i])], KEYS[tonumber(ARGV[i + 1])], KEYS[tonumber(ARGV[i + 2])], KEYS[tonumber(ARGV[i + 3])]
  local kind, product, position = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7]
  if redis.call('SET', eventKey, '1', 'NX', 'EX', eventTtl) and redis.call('HSETNX', search, kind .. ':' .. product, '1') == 1 then
    accepted = accepted + 1
    local first = redis.call('HSETNX', search, kind, '1') == 1
    redis.call('EXPIRE', search, searchTtl)
    for _, stats in ipairs({ siteStats, allStats }) do
      if kind == 'click' then
        redis.call('HINCRBY', stats, 'clicks', 1)
        redis.call('HINCRBY', stats, 'click_position_sum', position)
        if first then redis.call('HINCRBY', stats, 'clicked_searches', 1) end
      else
        redis.call('HINCRBY', stats, 'conversions', 1)
        if first then redis.call('HINCRBY', stats, 'converted_searches', 1) end
      end
    end
  else
    duplicates = duplicates + 1
  end
end
-- A day's hash may not hold its searches yet (they are written within a second): it expires as they would.
for j = 0, n - 1 do
  local key = KEYS[tonumber(ARGV[4 + j * 2])]
  if redis.call('EXISTS', key) == 1 then redis.call('EXPIREAT', key, ARGV[5 + j * 2]) end
end
return { accepted, duplicates }
