-- The tenant's documents by embedding status (store/embeddingProgress.ts), kept by every script
-- that sets or drops a status (`--- @include "lib/embeddingCounts"`): a hash of
-- `<kind>:<status>` → count. moveStatus records a document leaving one status (false: it had
-- none) for another (false: deleted); applyStatusMoves writes the call's moves once, at the end.
local statusMoves = {}
local function moveStatus(kind, from, to)
  if from == to then return end
  if from then statusMoves[kind .. ':' .. from] = (statusMoves[kind .. ':' .. from] or 0) - 1 end
  if to then statusMoves[kind .. ':' .. to] = (statusMoves[kind .. ':' .. to] or 0) + 1 end
end
local function applyStatusMoves(countsKey)
  for field, n in pairs(statusMoves) do
    if n ~= 0 then redis.call('HINCRBY', countsKey, field, n) end
  end
end
