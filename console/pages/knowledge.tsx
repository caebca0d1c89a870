// Knowledge: the entries of the tenant (filters and pages), one entry, and the form per entry type
// to create or edit one. Addresses: `#/knowledge?type=…`, `#/knowledge/new?type=skill`,
// `#/knowledge/<id>`, `#/knowledge/<id>/edit`.
import { useLocation } from '../router.js';
import { EntryEditor } from './knowledge/editor.js';
import { EntryList } from './knowledge/list.js';
import { ENTRY_TYPES } from './knowledge/model.js';
import { EntryView } from './knowledge/view.js';

export function KnowledgePage() {
  const at = useLocation();
  const [, id, action] = at.path;
  if (id === 'new') {
    const asked = at.params.get('type');
    const type = ENTRY_TYPES.find((t) => t === asked) ?? 'knowledge';
    return <EntryEditor key={`new-${type}`} id={null} type={type} />;
  }
  if (id && action === 'edit') return <EntryEditor key={id} id={id} type="knowledge" />;
  if (id) return <EntryView key={id} id={id} />;
  return <EntryList params={at.params} />;
}
