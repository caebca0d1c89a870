// A section of tabs (`#/<section>/<tab>`): a heading, the tabs' links and the open tab (the
// address's second segment; the first tab when it names none), given the address's query.
import type { ComponentType } from 'preact';
import { href, useLocation } from '../router.js';

export interface SectionTab {
  path: string;
  title: string;
  tab: ComponentType<{ params: URLSearchParams }>;
}

/** `label`: the tabs' accessible name; a labelled nav also marks the open tab (aria-current). */
export function TabbedSection({ section, title, tabs, label }: { section: string; title: string; tabs: readonly SectionTab[]; label?: string }) {
  const at = useLocation();
  const current = tabs.find((t) => t.path === at.path[1]) ?? tabs[0];
  const Tab = current.tab;
  return (
    <div class={section}>
      <h1>{title}</h1>
      <nav class="tabs" aria-label={label}>
        {tabs.map((t) => (
          <a key={t.path} href={href(`${section}/${t.path}`)} class={t === current ? 'active' : ''} aria-current={label && t === current ? 'page' : undefined}>{t.title}</a>
        ))}
      </nav>
      <Tab params={at.params} />
    </div>
  );
}
