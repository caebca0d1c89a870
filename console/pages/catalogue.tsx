// Catalogue: the tenant's sites, its category tree and its products, one tab each
// (`#/catalogue/sites`, `#/catalogue/categories`, `#/catalogue/products`; sites by default).
import { TabbedSection, type SectionTab } from '../components/tabs.js';
import { SitesTab } from './catalogue/sites.js';
import { CategoriesTab } from './catalogue/categories.js';
import { ProductsTab } from './catalogue/products.js';

const TABS: SectionTab[] = [
  { path: 'sites', title: 'Sites', tab: SitesTab },
  { path: 'categories', title: 'Categories', tab: CategoriesTab },
  { path: 'products', title: 'Products', tab: ProductsTab },
];

export function CataloguePage() {
  return <TabbedSection section="catalogue" title="Catalogue" tabs={TABS} label="Catalogue sections" />;
}
