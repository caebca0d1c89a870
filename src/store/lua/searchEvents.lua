-- The click and conversion events of one request (domain/searchAnalytics.ts), all or nothing: an
-- event id taken in the last day counts once (a retry after a timeout counts nothing twice), and
-- a search counts once as clicked and once as converted however many events name it.
-- Called with a key count. KEYS: the stats hashes the events count in, the event id keys, the
-- keys marking a search clicked or converted (each once).
-- ARGV: 1 event id lifetime (s), 2 mark lifetime (s), 3 n stats hashes, then n pairs
--       (key position, expire at in unix seconds), then per event 6 values: event id key position,
--       the positions of its two stats hashes (its site's, the tenant's), mark key position,
--       type (click | conversion), position ('' for none)
-- Returns {accepted, duplicates}.
local eventTtl, markTtl = ARGV[1], ARGV[2]
local n = tonumber(ARGV[3])
local i = 4 + n * 2
local accepted, duplicates = 0, 0
while i <= #ARGV do
  local eventKey, siteStats, allStats, mark = KEYS[tonumber(ARGV[i])], KEYS[tonumber(ARGV[i + 1])], KEYS[tonumber(ARGV[i + 2])], KEYS[tonumber(ARGV[i + 3])]
  local kind, position = ARGV[i + 4], ARGV[i + 5]
  i = i + 6
  if redis.call('SET', eventKey, '1', 'NX', 'EX', eventTtl) then
    accepted = accepted + 1
    local first = redis.call('SET', mark, '1', 'NX', 'EX', markTtl)
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
