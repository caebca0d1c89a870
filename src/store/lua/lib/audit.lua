-- Audit events (store/audit.ts), included into the scripts that write one (`--- @include "lib/audit"`).
-- appendAudit(keyAt, argAt, version): the event whose arguments (auditArgs) start at ARGV[argAt]
-- goes to the streams KEYS[keyAt] (tenant), KEYS[keyAt + 1] (entity type), KEYS[keyAt + 2]
-- (entity), under one stream id; version (nil: none) is the document version the write made.
local function appendAudit(keyAt, argAt, version)
  local fields = {}
  for i = argAt + 4, argAt + 3 + 2 * tonumber(ARGV[argAt + 3]) do fields[#fields + 1] = ARGV[i] end
  if version then
    fields[#fields + 1] = 'version'
    fields[#fields + 1] = version
  end
  local id = redis.call('XADD', KEYS[keyAt], 'MAXLEN', '~', ARGV[argAt], '*', unpack(fields))
  redis.call('XADD', KEYS[keyAt + 1], 'MAXLEN', '~', ARGV[argAt + 1], id, unpack(fields))
  redis.call('XADD', KEYS[keyAt + 2], 'MAXLEN', '~', ARGV[argAt + 2], id, unpack(fields))
  return id
end
