// The audit log, newest first, filtered by entity type and id. It pages back with `before=<the
// last event id>` (the log has no offsets); the filters and the page live in the address
// (`#/admin/audit?entity_type=api_key&before=…`), so the browser's Back returns to newer events.
import { get } from '../../api.js';
import { ErrorBox, formatDate, Loading, useAsync } from '../../components/ui.js';
import { href, navigate } from '../../router.js';
import type { ApiKey, AuditEvent, User } from '../../types.js';

const LIMIT = 50;
/** Copied from AUDIT_ENTITY_TYPES in src/schemas/knowledgeEntries.ts. */
const ENTITY_TYPES = ['site', 'category', 'product', 'bulk_job', 'settings', 'user', 'api_key', 'oauth_client', 'knowledge_entry'] as const;
/** Where an entity of a type can be opened in the console. */
const LINKS: Partial<Record<string, (id: string) => string>> = {
  knowledge_entry: (id) => href(`knowledge/${id}`),
  oauth_client: (id) => href('admin/clients', { client: id }),
};

export function AuditTab({ params }: { params: URLSearchParams }) {
  const entityType = params.get('entity_type') ?? '';
  const entityId = params.get('entity_id') ?? '';
  const before = params.get('before') ?? '';
  const events = useAsync(
    () => get<AuditEvent[]>('/api/knowledge/audit', { entity_type: entityType, entity_id: entityId, before, limit: LIMIT }),
    [entityType, entityId, before],
  );
  const go = (changes: Record<string, string | undefined>) =>
    navigate('admin/audit', { entity_type: entityType, entity_id: entityId, ...changes });
  const list = events.data;
  // Users and keys by id, so that an event names them (a revoked key or a grant stays an id).
  const names = useAsync(async () => {
    const [users, keys] = await Promise.all([get<User[]>('/api/knowledge/users', { limit: 200 }), get<ApiKey[]>('/api/knowledge/api-keys')]);
    return new Map<string, string>([...users.map((u): [string, string] => [u.id, u.email]), ...keys.map((k): [string, string] => [k.id, `key “${k.name}”`])]);
  }, []);
  const nameOf = (id: string | null, none: string) => (id ? names.data?.get(id) ?? short(id) : none);

  return (
    <div class="audit">
      <form class="card row" aria-label="Filters" onSubmit={(e) => {
        e.preventDefault();
        const id = new FormData(e.currentTarget).get('entity_id');
        go({ entity_id: typeof id === 'string' ? id.trim() : '' });
      }}>
        <label class="field">
          <span>Entity type</span>
          <select name="entity_type" value={entityType} onChange={(e) => go({ entity_type: e.currentTarget.value })}>
            <option value="">any</option>
            {ENTITY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label class="field">
          <span>Entity id</span>
          <input name="entity_id" key={entityId} defaultValue={entityId} placeholder="UUID" />
        </label>
        <button type="submit">Filter</button>
        {entityType || entityId ? <button type="button" class="link" onClick={() => navigate('admin/audit')}>Clear filters</button> : null}
      </form>
      <ErrorBox error={events.error} />
      <Loading when={events.loading} />
      {list ? (
        list.length === 0 ? <p class="muted">{before ? 'No older event.' : 'No event.'}</p> : (
          <table class="events">
            <thead><tr><th>when</th><th>action</th><th>entity</th><th>version</th><th>user</th><th>credential</th><th>client</th><th>source</th></tr></thead>
            <tbody>
              {list.map((ev) => <EventRow key={ev.id} ev={ev} nameOf={nameOf} onEntity={() => go({ entity_type: ev.entity_type, entity_id: ev.entity_id })} />)}
            </tbody>
          </table>
        )
      ) : null}
      <div class="pager">
        <button type="button" disabled={!before} onClick={() => go({})}>‹ Newest</button>
        <button type="button" disabled={!list || list.length < LIMIT} onClick={() => list && go({ before: list[list.length - 1].id })}>Older ›</button>
      </div>
    </div>
  );
}

/** The first part of a UUID: enough to tell entities apart on a page (the whole id is its title). */
const short = (id: string) => `${id.slice(0, 8)}…`;

function EventRow({ ev, nameOf, onEntity }: { ev: AuditEvent; nameOf: (id: string | null, none: string) => string; onEntity: () => void }) {
  const link = LINKS[ev.entity_type];
  return (
    <tr>
      <td title={ev.id}>{formatDate(ev.at)}</td>
      <td><span class={`status ${ev.action}`}>{ev.action}</span></td>
      <td>
        {ev.entity_type}{' '}
        <button type="button" class="link" title={`${ev.entity_id}: only this entity's events`} onClick={onEntity}><code>{short(ev.entity_id)}</code></button>
        {link && ev.action !== 'delete' ? <> <a href={link(ev.entity_id)}>open</a></> : null}
        {ev.details ? <div class="muted small">{Object.entries(ev.details).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(' · ')}</div> : null}
      </td>
      <td>{ev.version ?? '—'}</td>
      <td title={ev.user_id ?? undefined}>{nameOf(ev.user_id, 'system')}</td>
      <td title={ev.credential_id ?? undefined}>{nameOf(ev.credential_id, '—')}</td>
      <td title={ev.client_id ?? undefined}>{ev.client_id ? short(ev.client_id) : '—'}</td>
      <td>{ev.audit_source}</td>
    </tr>
  );
}
