// An InstantSearch `searchClient` over kcs product search (POST /api/knowledge/search/products).
// Plain ESM without a build step or a runtime dependency: it runs as-is in browsers and Node ≥ 18.
// The index name is a kcs site (slug or id); the Algolia parameters InstantSearch sends are mapped
// to kcs's search body, and kcs's answer back to Algolia's result shape.

const SEARCH_PATH = '/api/knowledge/search/products';
/** The facets kcs counts. */
const FACETS = ['brand', 'category', 'availability'];
/** kcs's paging bounds: limit 1–100, offset 0–1000. */
const MAX_HITS_PER_PAGE = 100;
const MAX_OFFSET = 1000;
const MAX_QUERY_LENGTH = 500;
const DEFAULT_HITS_PER_PAGE = 20;
const DEFAULT_MAX_FACET_HITS = 10;
/** Facet filters on these map to kcs filters of the same name; each product has one value. */
const LIST_FILTERS = ['brand', 'availability'];
const PRICE_ATTRIBUTES = ['price', 'price_current'];
const HIGHLIGHTED = ['title', 'brand'];

/**
 * @param {import('./index.js').KcsSearchClientOptions} options
 * @returns {import('./index.js').KcsSearchClient}
 */
export function createSearchClient(options) {
  const { baseUrl, apiKey, mode, language } = options ?? {};
  if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl)) throw new TypeError('createSearchClient: baseUrl must be the tenant base URL, e.g. https://acme.api.example.com');
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('createSearchClient: apiKey must be a kcs API key (a search key for browsers)');
  const url = baseUrl.replace(/\/+$/, '') + SEARCH_PATH;
  const fetchImpl = options.fetch ?? ((...args) => globalThis.fetch(...args));
  const extra = { ...(mode ? { mode } : {}), ...(language ? { language } : {}) };

  const post = async (body) => {
    const res = await fetchImpl(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...extra, ...body }),
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

  const search = async (request) => {
    const params = paramsOf(request);
    const plan = planSearch(request.indexName, params);
    const answer = plan.impossible ? null : await post(plan.body);
    return toResult(request.indexName, params, plan, answer);
  };

  const facetValues = async (request, facetName = paramsOf(request).facetName) => {
    const params = paramsOf(request);
    if (!FACETS.includes(facetName)) throw kcsError(400, `kcs counts the facets ${FACETS.join(', ')}, not '${facetName}'`);
    const plan = planSearch(request.indexName, { ...params, facets: [facetName], hitsPerPage: 0, page: 0 });
    const answer = plan.impossible ? null : await post(plan.body);
    return toFacetHits(params, answer ? answer.facets[facetName] ?? [] : [], answer);
  };

  return {
    /** InstantSearch's multi-query: one kcs search per request, answered in order. */
    async search(requests) {
      const results = await Promise.all(requests.map((r) => (r.type === 'facet' ? facetValues(r, r.facet) : search(r))));
      return { results };
    },
    /** Search in a refinement list's values (`searchable: true`), among the values kcs counts (up to 50). */
    searchForFacetValues(requests) {
      return Promise.all(requests.map((r) => facetValues(r)));
    },
    /** Nothing is cached here; InstantSearch calls this on refresh(). */
    clearCache() {
      return Promise.resolve();
    },
  };
}

/** A rejected search: `message` is kcs's detail as one line, `detail` the detail as answered, `status` the HTTP status. */
function kcsError(status, detail) {
  const message = Array.isArray(detail)
    ? detail.map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${d.msg}`).join('; ')
    : String(detail);
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

/** kcs's search body for one request, or `impossible` when its filters exclude everything. */
function planSearch(indexName, params) {
  for (const name of ['filters', 'optionalFilters', 'tagFilters']) {
    const value = params[name];
    if (value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0)) throw unsupported(`the ${name} parameter (use facetFilters and numericFilters)`);
  }
  const query = typeof params.query === 'string' ? params.query : '';
  const hitsPerPage = Math.min(integer(params.hitsPerPage, DEFAULT_HITS_PER_PAGE), MAX_HITS_PER_PAGE);
  const page = integer(params.page, 0);
  const offset = page * hitsPerPage;
  // Pages past kcs's offset bound, and facet-only requests, still ask for the total and facets.
  const wantsHits = hitsPerPage > 0 && offset <= MAX_OFFSET;
  const facets = facetList(params.facets);
  const filters = facetFilters(params.facetFilters);
  const price = priceRange(params.numericFilters);
  const body = {
    query: query.slice(0, MAX_QUERY_LENGTH),
    limit: wantsHits ? hitsPerPage : 1,
    offset: wantsHits ? offset : 0,
    ...(indexName ? { site_id: indexName } : {}),
    ...(facets.length > 0 ? { facets } : {}),
    ...(filters.category !== undefined ? { category: filters.category } : {}),
  };
  const kcsFilters = { ...filters.filters };
  if (price.min !== undefined) kcsFilters.price_min = price.min;
  if (price.max !== undefined) kcsFilters.price_max = price.max;
  if (Object.keys(kcsFilters).length > 0) body.filters = kcsFilters;
  return { body, query, page, hitsPerPage, wantsHits, facets, impossible: filters.impossible || price.impossible };
}

function facetList(facets) {
  const names = facets === undefined ? [] : Array.isArray(facets) ? facets : [facets];
  if (names.includes('*')) return [...FACETS];
  return FACETS.filter((f) => names.includes(f));
}

/** Algolia's filter groups: a string is a group of one, an array lists groups (AND), an inner array is an OR. */
function groupsOf(filters) {
  if (filters === undefined || filters === null || filters === '') return [];
  const list = Array.isArray(filters) ? filters : [filters];
  return list.map((group) => (Array.isArray(group) ? group : [group])).filter((group) => group.length > 0);
}

const fold = (text) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');

/**
 * facetFilters to kcs: `brand:` and `availability:` to filters (any of), `category:` to category
 * (one value), `in_stock:true|false`, `attributes.<name>:` to filters.attributes (one OR group).
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
      const name = text.slice(0, colon).replace(/^"(.*)"$/, '$1');
      let value = text.slice(colon + 1).replace(/^"(.*)"$/, '$1');
      if (value.startsWith('-')) throw unsupported(`excluding a facet value ('${text}')`);
      if (value.startsWith('\\-')) value = value.slice(1);
      if (attribute !== null && attribute !== name) throw unsupported(`an OR across attributes (${attribute}, ${name})`);
      attribute = name;
      values.set(fold(value), value);
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
    } else if (attribute.startsWith('attributes.') && attribute.length > 'attributes.'.length) {
      if (groups.length > 1) throw unsupported(`more than one filter group on ${attribute}`);
      filters.attributes = { ...filters.attributes, [attribute.slice('attributes.'.length)]: [...groups[0].values()] };
    } else {
      throw unsupported(`filtering on '${attribute}' (brand, availability, category, in_stock, attributes.<name>)`);
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

/** numericFilters on the price: `price>=10`, `price<100`, `price=5`, `price:10 TO 100`; ANDed. */
function priceRange(numericFilters) {
  let min;
  let max;
  const lower = (v) => (min = min === undefined ? v : Math.max(min, v));
  const upper = (v) => (max = max === undefined ? v : Math.min(max, v));
  for (const group of groupsOf(numericFilters)) {
    if (group.length > 1) throw unsupported('an OR of numeric filters');
    const text = String(group[0]).trim();
    const range = /^([\w.]+)\s*:\s*(-?[\d.]+)\s+TO\s+(-?[\d.]+)$/.exec(text);
    const compare = /^([\w.]+)\s*(<=|>=|!=|<|>|=)\s*(-?[\d.]+(?:e[+-]?\d+)?)$/i.exec(text);
    const attribute = (range ?? compare)?.[1];
    if (!attribute) throw unsupported(`the numeric filter '${text}'`);
    if (!PRICE_ATTRIBUTES.includes(attribute)) throw unsupported(`numeric filters on '${attribute}' (price only)`);
    if (range) {
      lower(Number(range[2]));
      upper(Number(range[3]));
      continue;
    }
    const value = Number(compare[3]);
    if (!Number.isFinite(value)) throw unsupported(`the numeric filter '${text}'`);
    switch (compare[2]) {
      case '>=': lower(value); break;
      case '>': lower(nextDouble(value, 1)); break;
      case '<=': upper(value); break;
      case '<': upper(nextDouble(value, -1)); break;
      case '=': lower(value); upper(value); break;
      default: throw unsupported(`'${text}' (!= on the price)`);
    }
  }
  // kcs prices are not negative: a lower bound below 0 is 0, an upper one below 0 excludes all.
  if (min !== undefined) min = Math.max(0, min);
  const impossible = (max !== undefined && max < 0) || (min !== undefined && max !== undefined && min > max);
  return { min, max, impossible };
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
 */
export function highlight(value, query, preTag = '<em>', postTag = '</em>') {
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

/** The request's parameters as Algolia echoes them: a query string. */
function encodeParams(params) {
  const pairs = Object.entries(params).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
  return new URLSearchParams(pairs).toString();
}

function toHit(hit, query, preTag, postTag) {
  const product = hit.product;
  const highlightResult = {};
  for (const field of HIGHLIGHTED) {
    if (typeof product[field] === 'string') highlightResult[field] = highlight(product[field], query, preTag, postTag);
  }
  return { ...product, objectID: hit.id, _highlightResult: highlightResult };
}

function toResult(indexName, params, plan, answer) {
  const preTag = params.highlightPreTag ?? '<em>';
  const postTag = params.highlightPostTag ?? '</em>';
  const nbHits = answer ? answer.total : 0;
  const { hitsPerPage } = plan;
  const facets = {};
  for (const name of plan.facets) {
    facets[name] = Object.fromEntries((answer?.facets?.[name] ?? []).map(({ value, count }) => [value, count]));
  }
  return {
    hits: answer && plan.wantsHits ? answer.hits.map((hit) => toHit(hit, plan.query, preTag, postTag)) : [],
    nbHits,
    page: plan.page,
    // Pages beyond kcs's offset bound are not offered.
    nbPages: hitsPerPage > 0 ? Math.min(Math.ceil(nbHits / hitsPerPage), Math.floor(MAX_OFFSET / hitsPerPage) + 1) : 0,
    hitsPerPage,
    facets,
    exhaustiveNbHits: true,
    // kcs counts facets over a sample of the matches beyond a bound, and says so.
    exhaustiveFacetsCount: answer?.facets_exhaustive !== false,
    exhaustive: { nbHits: true, facetsCount: answer?.facets_exhaustive !== false },
    processingTimeMS: answer ? Math.round(answer.took_ms) : 0,
    query: plan.query,
    params: encodeParams(params),
    index: indexName,
  };
}

function toFacetHits(params, counts, answer) {
  const facetQuery = typeof params.facetQuery === 'string' ? params.facetQuery : '';
  const wanted = fold(facetQuery.trim());
  const limit = Math.min(integer(params.maxFacetHits, DEFAULT_MAX_FACET_HITS), MAX_HITS_PER_PAGE);
  const preTag = params.highlightPreTag ?? '<em>';
  const postTag = params.highlightPostTag ?? '</em>';
  const facetHits = counts
    .filter(({ value }) => wanted === '' || (value.match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => fold(w).startsWith(wanted)) || fold(value).startsWith(wanted))
    .slice(0, limit)
    .map(({ value, count }) => ({ value, highlighted: highlight(value, facetQuery, preTag, postTag).value, count }));
  return { facetHits, exhaustiveFacetsCount: answer?.facets_exhaustive !== false, processingTimeMS: answer ? Math.round(answer.took_ms) : 0 };
}
