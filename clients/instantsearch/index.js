// An InstantSearch `searchClient` over kcs product search (POST /api/knowledge/search/products,
// /search/multi for a batch, /search/facet-values for a searchable refinement list).
// Plain ESM without a build step or a runtime dependency: it runs as-is in browsers and Node ≥ 18.
// The index name is a kcs site (slug or id), optionally with a sort (`shop-de/sort/price_current:asc`);
// the Algolia parameters InstantSearch sends are mapped to kcs's search body, and kcs's answer back
// to Algolia's result shape.

const PATHS = {
  events: '/api/knowledge/search/events',
  products: '/api/knowledge/search/products',
  multi: '/api/knowledge/search/multi',
  facetValues: '/api/knowledge/search/facet-values',
};
/** The value facets kcs counts by these names; besides them category.lvl0–3 and attributes.<name>. */
const FACETS = ['brand', 'category', 'availability'];
const HIERARCHY_LEVELS = 4;
const HIERARCHY = /^category\.lvl([0-9]+)$/;
const ATTRIBUTE_PREFIX = 'attributes.';
/** Numeric facets (kcs answers facets_stats for them): the name InstantSearch asks → kcs's. */
const STATS_FACETS = { price_current: 'price_current', price: 'price_current', rating_average: 'rating_average' };
/** Numeric filters: the attribute → kcs's filter pair (`price` → price_min / price_max). */
const RANGE_FILTERS = { price: 'price', price_current: 'price', rating_average: 'rating' };
/** Sort fields in an index name (`<site>/sort/<field>:<asc|desc>[,…]`). */
const SORT_FIELDS = ['price_current', 'rating_average', 'created_at', 'updated_at', 'title'];
const SORT_ALIASES = { price: 'price_current' };
const SORT_SEPARATOR = '/sort/';
const MAX_SORT = 3;
const MAX_FACETS = 10;
/** Searches per POST /search/multi. */
const MAX_MULTI = 10;
/** kcs's paging bounds: limit 1–100, offset 0–1000. */
const MAX_HITS_PER_PAGE = 100;
const MAX_OFFSET = 1000;
const MAX_QUERY_LENGTH = 500;
const MAX_TAG_LENGTH = 50;
const MAX_FACET_QUERY_LENGTH = 100;
/** kcs's user_token (Algolia's userToken is 1–129 of [A-Za-z0-9_=/+-]). */
const USER_TOKEN = /^[A-Za-z0-9_=/+.:-]{1,129}$/;
const DEFAULT_HITS_PER_PAGE = 20;
const DEFAULT_MAX_FACET_HITS = 10;
const DEFAULT_PRE_TAG = '<em>';
const DEFAULT_POST_TAG = '</em>';
/** The tags kcs's facet value search marks the typed prefix with (the adapter puts the request's in their place). */
const KCS_PRE_TAG = '<mark>';
const KCS_POST_TAG = '</mark>';
/** Facet filters on these map to kcs filters of the same name; each product has one value. */
const LIST_FILTERS = ['brand', 'availability'];
/** The fields kcs highlights (`highlight: true`), and those the browser highlights when an answer has no highlight. */
const HIGHLIGHTED = ['title', 'brand', 'description'];
const FALLBACK_SNIPPET_WORDS = 20;

/**
 * @param {import('./index.js').KcsSearchClientOptions} options
 * @returns {import('./index.js').KcsSearchClient}
 */
export function createSearchClient(options) {
  const { baseUrl, apiKey, mode, language } = options ?? {};
  if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl)) throw new TypeError('createSearchClient: baseUrl must be the tenant base URL, e.g. https://acme.api.example.com');
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('createSearchClient: apiKey must be a kcs API key (a search key for browsers)');
  const base = baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((...args) => globalThis.fetch(...args));
  const extra = { ...(mode ? { mode } : {}), ...(language ? { language } : {}) };

  const post = async (path, body) => {
    const res = await fetchImpl(base + path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (a proxy's error page): the status says enough.
    }
    if (!res.ok) throw kcsError(res.status, data && data.detail !== undefined ? data.detail : text || res.statusText);
    return data;
  };

  /** kcs's answers to product search bodies, in order: one alone by /search/products, more by /search/multi (10 a call). */
  const searchAll = async (bodies) => {
    if (bodies.length === 0) return [];
    if (bodies.length === 1) return [await post(PATHS.products, bodies[0])];
    const chunks = [];
    for (let i = 0; i < bodies.length; i += MAX_MULTI) chunks.push(bodies.slice(i, i + MAX_MULTI));
    const answers = await Promise.all(chunks.map((searches) => post(PATHS.multi, { searches })));
    return answers.flatMap((answer, i) => {
      const results = answer && Array.isArray(answer.results) ? answer.results : [];
      if (results.length !== chunks[i].length) throw kcsError(502, `kcs answered ${results.length} results for ${chunks[i].length} searches`);
      return results.map((result) => {
        // One failing search fails the batch, as a lone search's error would.
        if (result && result.error) throw kcsError(result.error.status, result.error.detail);
        return result;
      });
    });
  };

  const facetValues = async (request, facetName = paramsOf(request).facetName) => {
    const started = Date.now();
    const params = paramsOf(request);
    if (typeof facetName !== 'string' || !isValueFacet(facetName)) {
      throw kcsError(400, `kcs counts the facets ${FACETS.join(', ')}, category.lvl0–${HIERARCHY_LEVELS - 1} and attributes.<name>, not '${facetName}'`);
    }
    const plan = planSearch(request.indexName, { ...params, facets: [], hitsPerPage: 0, page: 0 });
    const facetQuery = typeof params.facetQuery === 'string' ? params.facetQuery : '';
    const maxValues = Math.max(1, Math.min(integer(params.maxFacetHits, DEFAULT_MAX_FACET_HITS), 100));
    const preTag = params.highlightPreTag ?? DEFAULT_PRE_TAG;
    const postTag = params.highlightPostTag ?? DEFAULT_POST_TAG;
    if (plan.impossible) return { facetHits: [], exhaustiveFacetsCount: true, processingTimeMS: 0 };
    // The search's own scope (query, site, category, filters), without paging, facets, sort or highlight.
    const { limit, offset, facets, sort, highlight: _h, highlight_pre_tag, highlight_post_tag, snippet_words, analytics, user_token, ...scope } = plan.body;
    const answer = await post(PATHS.facetValues, {
      ...extra,
      ...scope,
      facet: facetName,
      facet_query: facetQuery.slice(0, MAX_FACET_QUERY_LENGTH),
      max_values: maxValues,
    });
    const facetHits = (answer?.values ?? []).map(({ value, count, highlighted }) => ({
      value,
      highlighted: typeof highlighted === 'string' ? retag(highlighted, KCS_PRE_TAG, KCS_POST_TAG, preTag, postTag) : value,
      count,
    }));
    return { facetHits, exhaustiveFacetsCount: answer?.facets_exhaustive !== false, processingTimeMS: Date.now() - started };
  };

  return {
    /**
     * InstantSearch's multi-query: the searches of the batch go to kcs together (one POST
     * /search/multi for up to 10), facet value searches to /search/facet-values; answered in order.
     */
    async search(requests) {
      const list = Array.from(requests ?? []);
      const planned = list.map((r) => {
        if (r.type === 'facet') return { facet: true, request: r };
        const params = paramsOf(r);
        return { facet: false, request: r, params, plan: planSearch(r.indexName, params) };
      });
      const asked = planned.filter((p) => !p.facet && !p.plan.impossible);
      const [answers, facetResults] = await Promise.all([
        searchAll(asked.map((p) => ({ ...extra, ...p.plan.body }))),
        Promise.all(planned.filter((p) => p.facet).map((p) => facetValues(p.request, p.request.facet))),
      ]);
      let nextAnswer = 0;
      let nextFacet = 0;
      const results = planned.map((p) => {
        if (p.facet) return facetResults[nextFacet++];
        const answer = p.plan.impossible ? null : answers[nextAnswer++];
        return toResult(p.request.indexName, p.params, p.plan, answer);
      });
      return { results };
    },
    /** Search in a refinement list's values (`searchable: true`): kcs's facet value search. */
    searchForFacetValues(requests) {
      return Promise.all(Array.from(requests ?? []).map((r) => facetValues(r)));
    },
    /** Nothing is cached here; InstantSearch calls this on refresh(). */
    clearCache() {
      return Promise.resolve();
    },
    /**
     * Click and conversion events for kcs's search analytics, as search-insights' `aa(method, payload)`:
     * pass it as `instantsearch({ insights: { insightsClient: searchClient.insightsClient } })` and
     * InstantSearch's `sendEvent('click' | 'conversion', hit, name)` reach POST /search/events.
     * Other methods (init, user tokens, views) are accepted and do nothing: kcs keeps nothing of a shopper (a search's
     * userToken parameter, where InstantSearch's insights set one, goes to kcs as user_token, kept only as a keyed tag).
     */
    insightsClient(method, payload) {
      const type = INSIGHTS_METHODS[method];
      if (!type || !payload || typeof payload.queryID !== 'string') return Promise.resolve();
      const ids = Array.isArray(payload.objectIDs) ? payload.objectIDs : [];
      const events = ids.map((productId, i) => ({
        event_id: eventId(), type, query_id: payload.queryID, product_id: productId,
        ...(Array.isArray(payload.positions) && Number.isInteger(payload.positions[i]) ? { position: payload.positions[i] } : {}),
      }));
      return sendEvents(events).catch(() => undefined);
    },
    /** Events in kcs's shape (`{event_id, type, query_id, product_id, position}`), sent once; a failed send is retried once with the same ids. */
    sendEvents,
  };

  async function sendEvents(events) {
    if (events.length === 0) return { accepted: 0, duplicates: 0 };
    try {
      return await post(PATHS.events, { events });
    } catch (error) {
      // The same event ids: kcs counts an event once however often it arrives.
      if (error && typeof error.status === 'number' && error.status < 500 && error.status !== 429) throw error;
      return post(PATHS.events, { events });
    }
  }
}

/** search-insights methods → kcs event types. */
const INSIGHTS_METHODS = { clickedObjectIDsAfterSearch: 'click', convertedObjectIDsAfterSearch: 'conversion' };

function eventId() {
  if (globalThis.crypto && typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** A rejected search: `message` is kcs's detail as one line, `detail` the detail as answered, `status` the HTTP status. */
function kcsError(status, detail) {
  const message = Array.isArray(detail)
    ? detail.map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${d.msg}`).join('; ')
    : typeof detail === 'string' ? detail : JSON.stringify(detail);
  return Object.assign(new Error(message), { name: 'KcsSearchError', status, detail });
}

/** The request's parameters as an object: InstantSearch sends one; older clients a query string. */
function paramsOf(request) {
  const params = request.params ?? {};
  if (typeof params !== 'string') return params;
  const out = {};
  for (const [key, value] of new URLSearchParams(params)) {
    try {
      out[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    } catch {
      out[key] = value;
    }
  }
  return out;
}

const unsupported = (what) => kcsError(400, `kcs search cannot express ${what}`);

function integer(value, fallback) {
  const n = typeof value === 'string' ? Number(value) : value;
  return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : fallback;
}

/**
 * The index name: a kcs site, and the sort typesense-instantsearch-adapter names replica indexes
 * with: `shop-de/sort/price_current:asc`, several `field:dir` joined by `,`.
 */
export function parseIndexName(indexName) {
  const name = typeof indexName === 'string' ? indexName : '';
  const at = name.indexOf(SORT_SEPARATOR);
  if (at < 0) return { site: name, sort: [] };
  const site = name.slice(0, at);
  const entries = name.slice(at + SORT_SEPARATOR.length).split(',').map((s) => s.trim()).filter((s) => s !== '');
  const sort = entries.map((entry) => {
    const m = /^([\w.]+)\s*:\s*(asc|desc)$/i.exec(entry);
    if (!m) throw unsupported(`the sort '${entry}' of the index '${name}' (field:asc or field:desc)`);
    const field = SORT_ALIASES[m[1]] ?? m[1];
    const direction = m[2].toLowerCase();
    if (field === '_text_match' || field === 'relevance') {
      if (direction !== 'desc') throw unsupported(`sorting by relevance ascending ('${entry}')`);
      return { relevance: 'desc' };
    }
    if (!SORT_FIELDS.includes(field)) throw unsupported(`sorting by '${m[1]}' (${SORT_FIELDS.join(', ')})`);
    return { [field]: direction };
  });
  if (sort.length > MAX_SORT) throw unsupported(`more than ${MAX_SORT} sort fields ('${name}')`);
  return { site, sort };
}

const isHierarchyFacet = (name) => {
  const m = HIERARCHY.exec(name);
  return m !== null && Number(m[1]) < HIERARCHY_LEVELS;
};
const isAttributeFacet = (name) => name.startsWith(ATTRIBUTE_PREFIX) && name.length > ATTRIBUTE_PREFIX.length;
const isValueFacet = (name) => FACETS.includes(name) || isHierarchyFacet(name) || isAttributeFacet(name);

/** The tags kcs is asked to mark highlights with: the request's (InstantSearch's), if kcs takes them. */
function highlightTags(params) {
  const pre = typeof params.highlightPreTag === 'string' ? params.highlightPreTag : DEFAULT_PRE_TAG;
  const post = typeof params.highlightPostTag === 'string' ? params.highlightPostTag : DEFAULT_POST_TAG;
  const usable = pre !== '' && post !== '' && pre.length <= MAX_TAG_LENGTH && post.length <= MAX_TAG_LENGTH;
  return { pre, post, usable };
}

/** Words of the description's snippet: `attributesToSnippet: ['description:30']`. */
function snippetWords(params) {
  const list = Array.isArray(params.attributesToSnippet) ? params.attributesToSnippet : typeof params.attributesToSnippet === 'string' ? params.attributesToSnippet.split(',') : [];
  for (const entry of list) {
    const m = /^\s*(description|\*)\s*:\s*(\d+)\s*$/.exec(String(entry));
    if (m) return Math.max(1, Math.min(Number(m[2]), 100));
  }
  return undefined;
}

/** kcs's search body for one request, or `impossible` when its filters exclude everything. */
function planSearch(indexName, params) {
  for (const name of ['filters', 'optionalFilters', 'tagFilters']) {
    const value = params[name];
    if (value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0)) throw unsupported(`the ${name} parameter (use facetFilters and numericFilters)`);
  }
  const { site, sort } = parseIndexName(indexName);
  const query = typeof params.query === 'string' ? params.query : '';
  const hitsPerPage = Math.min(integer(params.hitsPerPage, DEFAULT_HITS_PER_PAGE), MAX_HITS_PER_PAGE);
  const page = integer(params.page, 0);
  const offset = page * hitsPerPage;
  // Pages past kcs's offset bound, and facet-only requests, still ask for the total and facets.
  const wantsHits = hitsPerPage > 0 && offset <= MAX_OFFSET;
  const facets = facetList(params.facets);
  const filters = facetFilters(params.facetFilters);
  const ranges = numericRanges(params.numericFilters);
  const tags = highlightTags(params);
  const noHighlight = Array.isArray(params.attributesToHighlight) && params.attributesToHighlight.length === 0;
  const askHighlight = wantsHits && tags.usable && !noHighlight;
  const words = snippetWords(params);
  const kcsFacets = [...new Set(facets.map((f) => f.kcs))];
  if (kcsFacets.length > MAX_FACETS) throw unsupported(`more than ${MAX_FACETS} facets in one search (${kcsFacets.join(', ')})`);
  const body = {
    query: query.slice(0, MAX_QUERY_LENGTH),
    limit: wantsHits ? hitsPerPage : 0,
    offset: wantsHits ? offset : 0,
    ...(site ? { site_id: site } : {}),
    ...(kcsFacets.length > 0 ? { facets: kcsFacets } : {}),
    ...(sort.length > 0 ? { sort } : {}),
    ...(filters.category !== undefined ? { category: filters.category } : {}),
    ...(askHighlight ? { highlight: true, highlight_pre_tag: tags.pre, highlight_post_tag: tags.post, ...(words ? { snippet_words: words } : {}) } : {}),
    // A facet-only request (InstantSearch's disjunctive counts) is no shopper's search: kcs's analytics leave it out, as Algolia's do.
    ...(!wantsHits || params.analytics === false || params.analytics === 'false' ? { analytics: false } : {}),
    // The shopper's token, where InstantSearch's insights put it in the search: kcs counts a shopper once toward a query's suggestion.
    ...(typeof params.userToken === 'string' && USER_TOKEN.test(params.userToken) ? { user_token: params.userToken } : {}),
  };
  const kcsFilters = { ...filters.filters };
  for (const [name, range] of Object.entries(ranges.ranges)) {
    if (range.min !== undefined) kcsFilters[`${name}_min`] = range.min;
    if (range.max !== undefined) kcsFilters[`${name}_max`] = range.max;
  }
  if (Object.keys(kcsFilters).length > 0) body.filters = kcsFilters;
  return { body, query, page, hitsPerPage, wantsHits, facets, tags, snippetWords: words ?? FALLBACK_SNIPPET_WORDS, impossible: filters.impossible || ranges.impossible };
}

/** The facets asked, each with the name kcs counts it by and its kind (value counts or stats). */
function facetList(facets) {
  const names = facets === undefined || facets === null || facets === '' ? [] : Array.isArray(facets) ? facets : String(facets).split(',');
  const out = [];
  const seen = new Set();
  const add = (asked, kcs, kind) => {
    if (seen.has(asked)) return;
    seen.add(asked);
    out.push({ asked, kcs, kind });
  };
  for (const raw of names) {
    const name = String(raw).trim();
    if (name === '*') FACETS.forEach((f) => add(f, f, 'values'));
    else if (isValueFacet(name)) add(name, name, 'values');
    else if (STATS_FACETS[name]) add(name, STATS_FACETS[name], 'stats');
    // Any other facet is not one kcs counts: answered without values.
  }
  return out;
}

/** Algolia's filter groups: a string is a group of one, an array lists groups (AND), an inner array is an OR. */
function groupsOf(filters) {
  if (filters === undefined || filters === null || filters === '') return [];
  const list = Array.isArray(filters) ? filters : [filters];
  return list.map((group) => (Array.isArray(group) ? group : [group])).filter((group) => group.length > 0);
}

const fold = (text) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
/** A category path folded for comparison: case, diacritics, and the spaces around ` > `. */
const foldPath = (path) => fold(path).split('>').map((s) => s.trim()).join(' > ');

/**
 * facetFilters to kcs: `brand:` and `availability:` to filters (any of), `category:` to category
 * (one value), `in_stock:true|false`, `attributes.<name>:` to filters.attributes (one OR group),
 * `category.lvlN:A > B` to filters.category_path (the deepest path; the others must lie above it).
 */
function facetFilters(facetFiltersParam) {
  /** Per attribute: the AND of OR groups, each a Map folded → value as given. */
  const byAttribute = new Map();
  for (const group of groupsOf(facetFiltersParam)) {
    let attribute = null;
    const values = new Map();
    for (const filter of group) {
      const text = String(filter);
      const colon = text.indexOf(':');
      if (colon <= 0) throw unsupported(`the facet filter '${text}' (expected attribute:value)`);
      let name = text.slice(0, colon).replace(/^"(.*)"$/, '$1');
      let value = text.slice(colon + 1).replace(/^"(.*)"$/, '$1');
      if (value.startsWith('-')) throw unsupported(`excluding a facet value ('${text}')`);
      if (value.startsWith('\\-')) value = value.slice(1);
      // The levels of the category hierarchy are one filter: the category's path.
      if (isHierarchyFacet(name)) name = 'category.lvl';
      if (attribute !== null && attribute !== name) throw unsupported(`an OR across attributes (${attribute}, ${name})`);
      attribute = name;
      values.set(name === 'category.lvl' ? foldPath(value) : fold(value), value);
    }
    if (!byAttribute.has(attribute)) byAttribute.set(attribute, []);
    byAttribute.get(attribute).push(values);
  }
  const filters = {};
  let category;
  let impossible = false;
  for (const [attribute, groups] of byAttribute) {
    if (LIST_FILTERS.includes(attribute) || attribute === 'category' || attribute === 'in_stock') {
      // One value per product: ANDed groups leave the values every group allows.
      const allowed = [...groups[0]].filter(([folded]) => groups.every((g) => g.has(folded))).map(([, value]) => value);
      if (allowed.length === 0) impossible = true;
      else if (LIST_FILTERS.includes(attribute)) filters[attribute] = allowed;
      else if (attribute === 'category') {
        if (allowed.length > 1) throw unsupported('more than one category at once');
        category = allowed[0];
      } else {
        const flags = new Set(allowed.map((v) => fold(v)));
        if (flags.size > 1) continue; // in stock or not: no filter
        const flag = [...flags][0];
        if (flag !== 'true' && flag !== 'false') throw unsupported(`in_stock:${allowed[0]} (true or false)`);
        filters.in_stock = flag === 'true';
      }
    } else if (attribute === 'category.lvl') {
      for (const g of groups) if (g.size > 1) throw unsupported(`more than one category path at once (${[...g.values()].join(', ')})`);
      const paths = groups.map((g) => [...g][0]);
      // The deepest path; the product's category lies at or below every path, so each must be above it.
      const [deepest] = [...paths].sort((a, b) => b[0].split(' > ').length - a[0].split(' > ').length);
      if (paths.every(([folded]) => folded === deepest[0] || deepest[0].startsWith(`${folded} > `))) filters.category_path = deepest[1];
      else impossible = true;
    } else if (isAttributeFacet(attribute)) {
      if (groups.length > 1) throw unsupported(`more than one filter group on ${attribute}`);
      filters.attributes = { ...filters.attributes, [attribute.slice(ATTRIBUTE_PREFIX.length)]: [...groups[0].values()] };
    } else {
      throw unsupported(`filtering on '${attribute}' (brand, availability, category, category.lvl0–${HIERARCHY_LEVELS - 1}, in_stock, attributes.<name>)`);
    }
  }
  return { filters, category, impossible };
}

/** The next double above (direction 1) or below (-1) x: a strict bound as an inclusive one. */
function nextDouble(x, direction) {
  if (x === 0) return direction * Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] += (x > 0) === (direction > 0) ? 1n : -1n;
  return new Float64Array(bits.buffer)[0];
}

/**
 * numericFilters on the price (`price` / `price_current`) and the rating (`rating_average`):
 * `>=`, `<=`, `>`, `<`, `=`, `attr:10 TO 100`; ANDed. → kcs `price_min`/`price_max`, `rating_min`/`rating_max`.
 */
function numericRanges(numericFilters) {
  const ranges = {};
  const lower = (name, v) => {
    const r = (ranges[name] ??= {});
    r.min = r.min === undefined ? v : Math.max(r.min, v);
  };
  const upper = (name, v) => {
    const r = (ranges[name] ??= {});
    r.max = r.max === undefined ? v : Math.min(r.max, v);
  };
  for (const group of groupsOf(numericFilters)) {
    if (group.length > 1) throw unsupported('an OR of numeric filters');
    const text = String(group[0]).trim();
    const range = /^([\w.]+)\s*:\s*(-?[\d.]+(?:e[+-]?\d+)?)\s+TO\s+(-?[\d.]+(?:e[+-]?\d+)?)$/i.exec(text);
    const compare = /^([\w.]+)\s*(<=|>=|!=|<|>|=)\s*(-?[\d.]+(?:e[+-]?\d+)?)$/i.exec(text);
    const attribute = (range ?? compare)?.[1];
    if (!attribute) throw unsupported(`the numeric filter '${text}'`);
    const name = RANGE_FILTERS[attribute];
    if (!name) throw unsupported(`numeric filters on '${attribute}' (${Object.keys(RANGE_FILTERS).join(', ')})`);
    if (range) {
      const [from, to] = [Number(range[2]), Number(range[3])];
      if (!Number.isFinite(from) || !Number.isFinite(to)) throw unsupported(`the numeric filter '${text}'`);
      lower(name, from);
      upper(name, to);
      continue;
    }
    const value = Number(compare[3]);
    if (!Number.isFinite(value)) throw unsupported(`the numeric filter '${text}'`);
    switch (compare[2]) {
      case '>=': lower(name, value); break;
      case '>': lower(name, nextDouble(value, 1)); break;
      case '<=': upper(name, value); break;
      case '<': upper(name, nextDouble(value, -1)); break;
      case '=': lower(name, value); upper(name, value); break;
      default: throw unsupported(`'${text}' (!= on a number)`);
    }
  }
  // kcs prices and ratings are not negative: a lower bound below 0 is 0, an upper one below 0 excludes all.
  let impossible = false;
  for (const r of Object.values(ranges)) {
    if (r.min !== undefined) r.min = Math.max(0, r.min);
    if ((r.max !== undefined && r.max < 0) || (r.min !== undefined && r.max !== undefined && r.min > r.max)) impossible = true;
  }
  return { ranges, impossible };
}

/** The query's words, and the folded form each is matched by. */
function queryWords(query) {
  return (query.match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => ({ word, folded: fold(word) }));
}

/** How many code points of `word` cover a folded prefix of `length` (folding can change lengths: ß → ss). */
function prefixLength(word, length) {
  const chars = Array.from(word);
  for (let k = 1; k <= chars.length; k++) if (fold(chars.slice(0, k).join('')).length >= length) return chars.slice(0, k).join('').length;
  return word.length;
}

/**
 * Algolia's highlight of one value: words of the value that begin with a query word (case and
 * diacritics ignored) wrapped in the tags, with matchLevel, matchedWords and fullyHighlighted.
 * The adapter's fallback where kcs's answer carries no highlight; exported for other fields.
 */
export function highlight(value, query, preTag = DEFAULT_PRE_TAG, postTag = DEFAULT_POST_TAG) {
  const words = queryWords(query);
  const matched = new Set();
  let out = '';
  let last = 0;
  let highlightedChars = 0;
  let wordChars = 0;
  for (const token of value.matchAll(/[\p{L}\p{N}]+/gu)) {
    const folded = fold(token[0]);
    wordChars += token[0].length;
    let best = 0;
    for (const { word, folded: q } of words) {
      if (q.length === 0 || !folded.startsWith(q)) continue;
      matched.add(word);
      best = Math.max(best, folded === q ? token[0].length : prefixLength(token[0], q.length));
    }
    if (best === 0) continue;
    out += value.slice(last, token.index) + preTag + value.slice(token.index, token.index + best) + postTag;
    last = token.index + best;
    highlightedChars += best;
  }
  out += value.slice(last);
  const matchedWords = words.map((w) => w.word).filter((w) => matched.has(w));
  const matchLevel = matchedWords.length === 0 ? 'none' : matchedWords.length === words.length ? 'full' : 'partial';
  return { value: out, matchLevel, matchedWords, fullyHighlighted: wordChars > 0 && highlightedChars === wordChars };
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
/** kcs's HTML escaping undone: Algolia answers raw values, and InstantSearch escapes them itself. */
function unescapeHtml(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** A marked, escaped kcs text as pieces: [{text, marked}], the text unescaped. */
function splitMarked(text, preTag, postTag) {
  const pieces = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf(preTag, at);
    if (open < 0) break;
    const close = text.indexOf(postTag, open + preTag.length);
    if (close < 0) break;
    if (open > at) pieces.push({ text: unescapeHtml(text.slice(at, open)), marked: false });
    pieces.push({ text: unescapeHtml(text.slice(open + preTag.length, close)), marked: true });
    at = close + postTag.length;
  }
  if (at < text.length) pieces.push({ text: unescapeHtml(text.slice(at)), marked: false });
  return pieces;
}

/** kcs's marked text with other tags: kcs's `<mark>` (raw; the text is escaped) → the request's, the text unescaped. */
function retag(text, fromPre, fromPost, preTag, postTag) {
  return splitMarked(text, fromPre, fromPost).map((p) => (p.marked ? preTag + p.text + postTag : p.text)).join('');
}

function editDistanceAtMost(a, b, max) {
  if (Math.abs(a.length - b.length) > max) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) > max) return false;
    previous = row;
  }
  return previous[b.length] <= max;
}

/**
 * Whether a word kcs marked answers a query word (both folded): kcs matches stems, compound
 * parts, typo variants and prefixes, so this is a guess by the forms such a match takes.
 */
function answers(queryWord, marked) {
  if (queryWord.length === 0 || marked.length === 0) return false;
  if (marked.startsWith(queryWord) || queryWord.startsWith(marked)) return true;
  if (Math.min(queryWord.length, marked.length) >= 3 && (marked.includes(queryWord) || queryWord.includes(marked))) return true;
  let common = 0;
  while (common < queryWord.length && common < marked.length && queryWord[common] === marked[common]) common++;
  if (common >= 4) return true;
  return queryWord.length >= 5 && editDistanceAtMost(queryWord, marked, queryWord.length >= 9 ? 2 : 1);
}

/** Algolia's highlight of one field from kcs's marked text. */
function fromMarked(text, query, kcsPre, kcsPost, preTag, postTag) {
  const pieces = splitMarked(text, kcsPre, kcsPost);
  const marked = pieces.filter((p) => p.marked).flatMap((p) => (p.text.match(/[\p{L}\p{N}]+/gu) ?? []).map(fold));
  const words = queryWords(query);
  const matchedWords = words.filter(({ folded }) => marked.some((m) => answers(folded, m))).map((w) => w.word);
  const matchLevel = marked.length === 0 ? 'none' : matchedWords.length >= words.length ? 'full' : 'partial';
  const wordChars = (p) => (p.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  const markedChars = pieces.filter((p) => p.marked).reduce((n, p) => n + wordChars(p), 0);
  const allChars = pieces.reduce((n, p) => n + wordChars(p), 0);
  return {
    value: pieces.map((p) => (p.marked ? preTag + p.text + postTag : p.text)).join(''),
    matchLevel,
    matchedWords: matchLevel === 'none' ? [] : matchedWords.length > 0 ? matchedWords : [...new Set(marked)],
    fullyHighlighted: allChars > 0 && markedChars === allChars,
  };
}

/** The fallback snippet of a value: about `words` words around its first highlighted word, `…` where cut. */
function snippetOf(highlighted, preTag, words = FALLBACK_SNIPPET_WORDS) {
  const tokens = highlighted.value.split(/(\s+)/);
  const wordsAt = tokens.map((t, i) => i).filter((i) => !/^\s*$/.test(tokens[i]));
  if (wordsAt.length <= words) return { value: highlighted.value, matchLevel: highlighted.matchLevel };
  const first = Math.max(0, wordsAt.findIndex((i) => tokens[i].includes(preTag)));
  const start = Math.max(0, Math.min(first - Math.floor(words / 3), wordsAt.length - words));
  const end = start + words;
  const text = tokens.slice(wordsAt[start], wordsAt[end - 1] + 1).join('');
  return { value: `${start > 0 ? '… ' : ''}${text}${end < wordsAt.length ? ' …' : ''}`, matchLevel: highlighted.matchLevel };
}

/** The request's parameters as Algolia echoes them: a query string. */
function encodeParams(params) {
  const pairs = Object.entries(params).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
  return new URLSearchParams(pairs).toString();
}

function toHit(hit, plan) {
  const product = hit.product ?? {};
  const { pre, post } = plan.tags;
  const highlightResult = {};
  const snippetResult = {};
  const served = hit.highlight && typeof hit.highlight === 'object' ? hit.highlight : null;
  if (served) {
    // kcs marked the fields with the request's tags: escaped HTML, unescaped here as Algolia answers.
    for (const field of HIGHLIGHTED) {
      if (typeof served[field] === 'string') highlightResult[field] = fromMarked(served[field], plan.query, pre, post, pre, post);
    }
    if (typeof served.snippet === 'string') {
      const { value, matchLevel } = fromMarked(served.snippet, plan.query, pre, post, pre, post);
      snippetResult.description = { value, matchLevel };
    }
  } else {
    for (const field of HIGHLIGHTED) {
      if (typeof product[field] === 'string') highlightResult[field] = highlight(product[field], plan.query, pre, post);
    }
    if (highlightResult.description) snippetResult.description = snippetOf(highlightResult.description, pre, plan.snippetWords);
  }
  return { ...product, objectID: hit.id, _highlightResult: highlightResult, _snippetResult: snippetResult };
}

/** Algolia's facets_stats entry of a kcs stats entry; none where no match has the field. */
function statsOf(stats) {
  if (!stats || typeof stats.min !== 'number' || typeof stats.max !== 'number') return undefined;
  const avg = typeof stats.avg === 'number' ? stats.avg : (stats.min + stats.max) / 2;
  return { min: stats.min, max: stats.max, avg, ...(typeof stats.count === 'number' ? { sum: avg * stats.count } : {}) };
}

function toResult(indexName, params, plan, answer) {
  const nbHits = answer ? answer.total : 0;
  const { hitsPerPage } = plan;
  const facets = {};
  const facetsStats = {};
  for (const { asked, kcs, kind } of plan.facets) {
    if (kind === 'values') {
      facets[asked] = Object.fromEntries((answer?.facets?.[kcs] ?? []).map(({ value, count }) => [value, count]));
    } else {
      // InstantSearch reads a facet's stats only where the facet is in `facets`: no value counts from kcs.
      facets[asked] = {};
      const stats = statsOf(answer?.facets_stats?.[kcs]);
      if (stats) facetsStats[asked] = stats;
    }
  }
  return {
    hits: answer && plan.wantsHits ? answer.hits.map((hit) => toHit(hit, plan)) : [],
    nbHits,
    page: plan.page,
    // Pages beyond kcs's offset bound are not offered.
    nbPages: hitsPerPage > 0 ? Math.min(Math.ceil(nbHits / hitsPerPage), Math.floor(MAX_OFFSET / hitsPerPage) + 1) : 0,
    hitsPerPage,
    facets,
    ...(Object.keys(facetsStats).length > 0 ? { facets_stats: facetsStats } : {}),
    exhaustiveNbHits: true,
    // kcs counts facets over a sample of the matches beyond a bound, and says so.
    exhaustiveFacetsCount: answer?.facets_exhaustive !== false,
    exhaustive: { nbHits: true, facetsCount: answer?.facets_exhaustive !== false },
    processingTimeMS: answer ? Math.round(answer.took_ms ?? 0) : 0,
    // InstantSearch's insights (click and conversion events) name the search by it.
    ...(answer && typeof answer.query_id === 'string' ? { queryID: answer.query_id } : {}),
    query: plan.query,
    params: encodeParams(params),
    index: indexName,
  };
}
