-- Append one audit event: the audit step of a MULTI write (store/audit.ts appendAudit).
-- KEYS: tenant audit stream, entity type's stream, entity's stream
-- ARGV: the event (store/audit.ts auditArgs)
--- @include "lib/audit"
return appendAudit(1, 1, nil)
