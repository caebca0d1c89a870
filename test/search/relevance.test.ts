// Relevance on the judged German/English shop set (test/relevance), as `npm run bench:quality`
// measures it, held as a floor: keyword search beats a plain MiniSearch index by 10%, compound
// queries score well, hybrid never ranks below keyword, and queries with no relevant product
// answer empty. Runs on whichever engine the run asks for (`npm run test:rqe`: the Query Engine).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../helpers/stack.js';
import { judgedProducts, judgedQueries, miniSearchBaseline, score, summarize, type JudgedQuery, type KindSummary } from '../relevance/judged.js';
import { loadJudged, type JudgedTenant } from '../relevance/kcsRun.js';

const products = judgedProducts();
const queries = judgedQueries();
let stack: Stack;
let judged: JudgedTenant;
const answers = new Map<string, { ids: string[]; mode: string }[]>();

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'local' });
  judged = await loadJudged(await stack.tenant(), products, { embedded: true });
  for (const mode of ['keyword', 'hybrid', 'semantic'] as const) {
    const list: { ids: string[]; mode: string }[] = [];
    for (const query of queries) list.push(await judged.search(query, mode));
    answers.set(mode, list);
  }
});
after(() => stack?.close());

const summary = (mode: string): KindSummary[] => summarize(queries.map((query, i) => ({ query, scores: score(answers.get(mode)![i].ids, query) })));
const ndcg = (kinds: KindSummary[], kind = 'all') => kinds.find((k) => k.kind === kind)!.ndcg;

test('keyword nDCG@10 is at least 1.1× a plain MiniSearch index of the same products', () => {
  const baseline = miniSearchBaseline(products);
  const library = ndcg(summarize(queries.map((query) => ({ query, scores: score(baseline(query), query) }))));
  const keyword = ndcg(summary('keyword'));
  assert.ok(keyword >= 1.1 * library, `keyword ${keyword.toFixed(3)} against MiniSearch ${library.toFixed(3)}`);
});

test('split and joined German compounds find the products (nDCG@10 ≥ 0.6)', () => {
  const compound = ndcg(summary('keyword'), 'compound');
  assert.ok(compound >= 0.6, `compound queries: ${compound.toFixed(3)}`);
});

test('hybrid ranks no worse than keyword, and runs only where the model serves the query\'s language', () => {
  const keyword = ndcg(summary('keyword'));
  const hybrid = ndcg(summary('hybrid'));
  assert.ok(hybrid >= keyword, `hybrid ${hybrid.toFixed(3)} against keyword ${keyword.toFixed(3)}`);
  // The local model serves English: the German site's queries run by keyword.
  queries.forEach((q: JudgedQuery, i) => assert.equal(answers.get('hybrid')![i].mode, q.site === 'en' ? 'hybrid' : 'keyword', q.query));
});

test('queries with no relevant product answer empty in every mode', () => {
  for (const mode of ['keyword', 'hybrid', 'semantic']) {
    const found = queries.flatMap((q, i) => (q.kind === 'no_match' && answers.get(mode)![i].ids.length > 0 ? [`"${q.query}": ${answers.get(mode)![i].ids.join(', ')}`] : []));
    assert.deepEqual(found, [], mode);
  }
});
