-- The tenant's documents by embedding status (store/embeddingProgress.ts), kept by every script
-- that sets or drops a status (`--- @include "lib/embeddingCounts"`): a hash of
-- `<kind>:<status>` → count. moveStatus records a document leaving one status (false: it had
-- none) for another (false: deleted); countStatus counts many at once; applyStatusMoves writes the
-- call's moves once, at the end.
local statusMoves = {}
-- n documents (negative: leaving) of a status.
local function countStatus(kind, status, n)
  local field = kind .. ':' .. status
  statusMoves[field] = (statusMoves[field] or 0) + n
end
local function moveStatus(kind, from, to)
  if from == to then return end
  if from then countStatus(kind, from, -1) end
  if to then countStatus(kind, to, 1) end
end
local function applyStatusMoves(countsKey)
  for field, n in pairs(statusMoves) do
    if n ~= 0 then redis.call('HINCRBY', countsKey, field, n) end
  end
end
