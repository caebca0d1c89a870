// Admin (admin scope; the app shows this section only then): the tenant's API keys, OAuth clients,
// settings, audit log and users, one tab each: `#/admin/keys` (default), `#/admin/clients`,
// `#/admin/settings`, `#/admin/audit`, `#/admin/users`.
import { TabbedSection, type SectionTab } from '../components/tabs.js';
import { AuditTab } from './admin/audit.js';
import { ClientsTab } from './admin/clients.js';
import { KeysTab } from './admin/keys.js';
import { SettingsTab } from './admin/settings.js';
import { UsersTab } from './admin/users.js';

const TABS: SectionTab[] = [
  { path: 'keys', title: 'API keys', tab: KeysTab },
  { path: 'clients', title: 'OAuth clients', tab: ClientsTab },
  { path: 'settings', title: 'Settings', tab: SettingsTab },
  { path: 'audit', title: 'Audit log', tab: AuditTab },
  { path: 'users', title: 'Users', tab: UsersTab },
];

export function AdminPage() {
  return <TabbedSection section="admin" title="Admin" tabs={TABS} />;
}
