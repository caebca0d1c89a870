// Merchandising (admin scope; the app shows this section only then): what product search does
// with shoppers' queries. Synonym sets, search rules (pinned, hidden and filtered products for a
// query) and search analytics, one tab each: `#/merchandising/synonyms` (default),
// `#/merchandising/rules`, `#/merchandising/analytics`.
import { TabbedSection, type SectionTab } from '../components/tabs.js';
import { AnalyticsTab } from './merchandising/analytics.js';
import { RulesTab } from './merchandising/rules.js';
import { SynonymsTab } from './merchandising/synonyms.js';

const TABS: SectionTab[] = [
  { path: 'synonyms', title: 'Synonyms', tab: SynonymsTab },
  { path: 'rules', title: 'Rules', tab: RulesTab },
  { path: 'analytics', title: 'Analytics', tab: AnalyticsTab },
];

export function MerchandisingPage() {
  return <TabbedSection section="merchandising" title="Merchandising" tabs={TABS} label="Merchandising" />;
}
