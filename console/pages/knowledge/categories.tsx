// Categories for the knowledge pages: their names ("Parent / Child") for lists and selects. Reading
// them takes catalog:read; without it the pages show ids and take a category id as text.
import { get } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { useAsync } from '../../components/ui.js';
import type { Category } from '../../types.js';

export interface CategoryChoice {
  id: string;
  /** The category's path of names, e.g. "Products / Lamps". */
  label: string;
}

export interface Categories {
  /** null: the credential cannot read categories (no catalog:read). */
  choices: CategoryChoice[] | null;
  error: Error | null;
  nameOf: (id: string) => string;
}

function pathsOf(categories: Category[]): CategoryChoice[] {
  const byId = new Map(categories.map((c) => [c.id, c]));
  const label = (c: Category): string => {
    const names = [c.name];
    // Up the parents; bounded, so a cycle (which the server refuses) could not hang the page.
    let parent = c.parent_id ? byId.get(c.parent_id) : undefined;
    for (let depth = 0; parent && depth < 20; depth++) {
      names.unshift(parent.name);
      parent = parent.parent_id ? byId.get(parent.parent_id) : undefined;
    }
    return names.join(' / ');
  };
  return categories.map((c) => ({ id: c.id, label: label(c) })).sort((a, b) => a.label.localeCompare(b.label));
}

export function useCategories(): Categories {
  const { can } = useSignedIn();
  const loaded = useAsync(async () => (can('catalog:read') ? pathsOf(await get<Category[]>('/api/knowledge/categories')) : null), []);
  const choices = loaded.data ?? (can('catalog:read') ? [] : null);
  const names = new Map((choices ?? []).map((c) => [c.id, c.label]));
  return { choices, error: loaded.error, nameOf: (id) => names.get(id) ?? id };
}

/** A category select, or a text input for its id when categories cannot be read. */
export function CategoryInput({ categories, value, onChange, name, required, empty, lazy }: {
  categories: Categories;
  value: string;
  onChange: (id: string) => void;
  name: string;
  required?: boolean;
  /** The label of the empty choice (a filter's "any"); none: a choice is required. */
  empty?: string;
  /** The typed id counts once the input is left (a filter), not at each key. */
  lazy?: boolean;
}) {
  if (!categories.choices) {
    const changed = (e: { currentTarget: HTMLInputElement }) => onChange(e.currentTarget.value.trim());
    return <input name={name} value={value} required={required} placeholder="category id (UUID)" {...(lazy ? { onChange: changed } : { onInput: changed })} />;
  }
  return (
    <select name={name} value={value} required={required} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">{empty ?? 'Choose a category…'}</option>
      {categories.choices.map((c) => <option key={c.id} value={c.id}>{c.label}</option>)}
    </select>
  );
}
