// The Redis Query Engine's projection of a document: its analysed text (kcs's own analysis, so both
// engines stem and fold alike), filter values as TAG/NUMERIC fields and facet values, written by
// the write that stores the document (store/lua/writeProducts.lua, writeEntry.lua): an entry's into
// its own hash; a product's into its search hash, and the fields its vector search filters on
// (those a price or stock change leaves alone) into its vector hash. The indexes (schema.ts) read
// them from there.
import type { StoredEntry } from '../../store/knowledgeEntries.js';
import type { StoredProduct } from '../../store/products.js';
import type { DocumentProjection } from '../../store/projection.js';
import { analyzeWithCompounds, baseLanguage, titleFocus } from '../analysis.js';
import { attributeValues, codeKey, isInStock } from '../productValues.js';
import { CATEGORY_LEVELS, categoryLevels, categoryPaths } from '../productFacets.js';
import { sortTitle } from '../productSort.js';
import type { ProductSearchFields } from '../../store/searchFields.js';
import { ENTRY_FIELDS_VERSION, PRODUCT_FIELDS_VERSION, PROJECTION_VERSION, TAG_SEP, tagText, VECTOR_FILTER_FIELDS } from './schema.js';

/** Never: the expiry of entries that do not expire (NUMERIC fields need a number). */
export const NO_EXPIRY = 8.64e15;

/** A TAG field's value: the values joined by the separator (a value holding it has it replaced). */
export const tagValue = (values: (string | null | undefined)[]): string =>
  values.map((v) => tagText(v ?? '')).filter(Boolean).join(TAG_SEP);

const flag = (b: boolean) => (b ? '1' : '0');

/** The hash field holding the projection version a document's search fields follow. */
export const PROJECTION_VERSION_FIELD = 'f:v';

/** A layer as a TAG value: marked, so that an empty layer is a value too (a TAG value cannot be empty). */
export const layerTag = (layer: string): string => `=${layer}`;
const lower = (v: string | null) => v?.toLowerCase() ?? null;

/** Search fields as hash field/value pairs, led by the layout version they follow (not indexed). */
function pairs(version: string, fields: Record<string, string>): string[] {
  const out: string[] = [PROJECTION_VERSION_FIELD, version];
  for (const [name, value] of Object.entries(fields)) out.push(`f:${name}`, value);
  return out;
}

/**
 * A field's text as the index reads it: kcs's analysis with compound tails, each term once (a
 * field counts a term once, as in the built-in engine: builtin/textIndex.ts).
 */
const fieldText = (text: string | null, language: string): string => [...new Set(analyzeWithCompounds(text, language))].join(' ');

export function productProjection(doc: StoredProduct, parentExternalId: string | null): ProductSearchFields {
  const text = (v: string | null) => fieldText(v, doc.language);
  const title = titleFocus(doc.title);
  const attrs = [...attributeValues(doc.attributes)].flatMap(([name, values]) => values.map((v) => `${name}=${v}`));
  const levels = categoryLevels(doc.category);
  const fields: Record<string, string> = {
    title: text(title.subject), title2: text(title.minor), kw: text(doc.search_keywords.join(' ')), brand: text(doc.brand), cat: text(doc.category),
    short: text(doc.short_description), desc: text(doc.description),
    id: doc.id, lang: doc.language.toLowerCase(), lang_base: baseLanguage(doc.language),
    has_anchor: flag(doc.has_similarity_anchor), created: String(Date.parse(doc.created_at)),
    site: doc.site_id, category: tagValue([lower(doc.category)]), brand_l: tagValue([lower(doc.brand)]), avail: tagValue([lower(doc.availability)]),
    codes: tagValue([doc.sku, doc.gtin].filter((c): c is string => Boolean(c)).map(codeKey)), attrs: tagValue(attrs),
    ext: tagValue([doc.external_id]), pext: tagValue([parentExternalId]),
    brand_v: tagValue([doc.brand]), category_v: tagValue([doc.category]), avail_v: tagValue([doc.availability]),
    // No price (rating): the field is removed, so that no range matches the product and it sorts last.
    price: doc.price_current ?? '',
    rating: doc.rating_average ?? '',
    updated: String(Date.parse(doc.updated_at)),
    title_s: tagText(sortTitle(doc.title)),
    attrs_v: tagValue(writtenAttributes(doc.attributes)),
    cpath: tagValue(categoryPaths(doc.category)),
    ...Object.fromEntries(Array.from({ length: CATEGORY_LEVELS }, (_, i) => [`cat_l${i}`, tagValue([levels[i]])])),
    stock: flag(isInStock(doc.availability)), parent: flag(doc.is_parent), variant: flag(doc.is_variant),
  };
  const vectors: string[] = [];
  for (const name of VECTOR_FILTER_FIELDS) vectors.push(`f:${name}`, fields[name]);
  return { search: pairs(PRODUCT_FIELDS_VERSION, fields), vectors };
}

/** Attribute values as written, each as `<lower-case name>=<value>` (facet values are shown as written). */
function writtenAttributes(attributes: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const key in attributes) {
    const value = attributes[key];
    for (const v of Array.isArray(value) ? value : [value]) if (v !== null && typeof v !== 'object') out.add(`${key.toLowerCase()}=${String(v)}`);
  }
  return [...out];
}

export function entryProjection(doc: StoredEntry): string[] {
  const text = (v: string | null) => fieldText(v, doc.language);
  const expires = doc.type === 'memory' && typeof doc.metadata.expires_at === 'string' ? Date.parse(doc.metadata.expires_at) : NaN;
  return pairs(ENTRY_FIELDS_VERSION, {
    title: text(doc.title), kw: text(doc.search_keywords.join(' ')), tags_text: text(doc.tags.join(' ')), summary: text(doc.summary), content: text(doc.content),
    id: doc.id, lang: doc.language.toLowerCase(), lang_base: baseLanguage(doc.language),
    has_anchor: flag(Boolean(doc.similarity_text?.trim())), created: String(Date.parse(doc.created_at)),
    vis: tagValue([doc.visibility]), owner: tagValue([doc.created_by_user_id]), type: tagValue([doc.type]), category: tagValue([doc.category_id]),
    proj: tagValue(doc.project_ids ?? []), layer: doc.layer === null ? '' : tagValue([layerTag(doc.layer)]), tags: tagValue(doc.tags),
    expires: String(Number.isNaN(expires) ? NO_EXPIRY : expires),
  });
}

/** The projection the document writers use when the Redis Query Engine serves search. */
export const queryEngineProjection: DocumentProjection = {
  version: PROJECTION_VERSION, versionField: PROJECTION_VERSION_FIELD, entryVersion: ENTRY_FIELDS_VERSION, product: productProjection, entry: entryProjection,
};
