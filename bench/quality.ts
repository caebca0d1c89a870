// Search quality on the judged German/English shop set (test/relevance: 191 products, 108 graded
// queries of ten kinds): nDCG@10, MRR@10 and success@1 per kind for kcs's keyword, hybrid and semantic
// search over HTTP, beside a plain MiniSearch index of the same products in the same run.
//
//   npm run bench:quality                          the built-in engine (a private redis-server)
//   BENCH_REDIS_URL=redis://… npm run bench:quality and the Redis Query Engine at that server
//                                                  (a fresh tenant there; removed at the end)
//
// kcs runs in this process with its workers and the default embedder (the local English model):
// every product is embedded before the queries run. Queries are sent as a storefront sends them,
// with the site and no language.
import { startStack, type Stack } from '../test/helpers/stack.js';
import { searchModuleAt } from '../test/helpers/queryEngine.js';
import { judgedProducts, judgedQueries, miniSearchBaseline, score, summarize, type JudgedQuery, type KindSummary, type Scores } from '../test/relevance/judged.js';
import { loadJudged } from '../test/relevance/kcsRun.js';
import { fmt } from './support/harness.js';

const products = judgedProducts();
const queries = judgedQueries();
const MODES = ['keyword', 'hybrid', 'semantic'] as const;

interface Column {
  name: string;
  results: { query: JudgedQuery; scores: Scores; hits: number }[];
}

async function kcsColumns(engine: 'builtin' | 'redis', redisUrl?: string): Promise<Column[]> {
  const stack: Stack = await startStack({ KCS_SEARCH_ENGINE: engine }, redisUrl ? { redis: redisUrl } : {});
  try {
    const tenant = await stack.tenant();
    const started = performance.now();
    const judged = await loadJudged(tenant, products, { embedded: true });
    console.log(`${engine}: ${products.length} products imported and embedded in ${fmt((performance.now() - started) / 1000, 1)} s`);
    const columns: Column[] = [];
    for (const mode of MODES) {
      const results: Column['results'] = [];
      for (const query of queries) {
        const { ids } = await judged.search(query, mode);
        results.push({ query, scores: score(ids, query), hits: ids.length });
      }
      columns.push({ name: `${engine === 'builtin' ? 'built-in' : 'Query Engine'} ${mode}`, results });
    }
    if (redisUrl) await tenant.request('DELETE', '/api/knowledge/sites/shop-de').then(() => tenant.request('DELETE', '/api/knowledge/sites/shop-en'));
    return columns;
  } finally {
    await stack.close();
  }
}

function baselineColumn(): Column {
  const search = miniSearchBaseline(products);
  return {
    name: 'MiniSearch',
    results: queries.map((query) => {
      const ids = search(query);
      return { query, scores: score(ids, query), hits: ids.length };
    }),
  };
}

const columns: Column[] = [baselineColumn(), ...(await kcsColumns('builtin'))];
const qeUrl = process.env.BENCH_REDIS_URL;
if (qeUrl && (await searchModuleAt(qeUrl))) columns.push(...(await kcsColumns('redis', qeUrl)));
else console.log(qeUrl ? `BENCH_REDIS_URL=${qeUrl} has no Query Engine: built-in engine only` : 'BENCH_REDIS_URL not set: built-in engine only');

const summaries = columns.map((c) => ({ name: c.name, kinds: summarize(c.results) }));
const kinds = summaries[0].kinds.map((k) => k.kind);
const cell = (k: KindSummary) => `${fmt(k.ndcg, 3)} / ${fmt(k.mrr, 2)} / ${fmt(k.success, 2)}`;
console.log(`\nnDCG@10 / MRR@10 / success@1 by query kind (${queries.length} queries, ${products.length} products)\n`);
console.log(`| kind | queries | ${summaries.map((s) => s.name).join(' | ')} |`);
console.log(`|---|---:|${summaries.map(() => '---:').join('|')}|`);
for (const kind of kinds) {
  const row = summaries.map((s) => s.kinds.find((k) => k.kind === kind)!);
  console.log(`| ${kind} | ${row[0].queries} | ${row.map(cell).join(' | ')} |`);
}

// The targets, in this run.
const ndcg = (name: string, kind = 'all') => summaries.find((s) => s.name === name)?.kinds.find((k) => k.kind === kind)?.ndcg;
const baseline = ndcg('MiniSearch')!;
console.log('\n| target | figure | |\n|---|---|---|');
for (const engine of ['built-in', 'Query Engine']) {
  const keyword = ndcg(`${engine} keyword`);
  const hybrid = ndcg(`${engine} hybrid`);
  if (keyword === undefined || hybrid === undefined) continue;
  const compound = ndcg(`${engine} keyword`, 'compound')!;
  const noMatch = columns.filter((c) => c.name.startsWith(engine)).flatMap((c) => c.results.filter((r) => r.query.kind === 'no_match' && r.hits > 0).map((r) => `${c.name}: "${r.query.query}" ${r.hits}`));
  const row = (target: string, figure: string, ok: boolean) => console.log(`| ${engine}: ${target} | ${figure} | ${ok ? 'pass' : 'MISS'} |`);
  row('keyword nDCG@10 ≥ 1.1× MiniSearch', `${fmt(keyword, 3)} = ${fmt(keyword / baseline, 2)}× ${fmt(baseline, 3)}`, keyword >= 1.1 * baseline);
  row('hybrid nDCG@10 ≥ keyword', `${fmt(hybrid, 3)} vs ${fmt(keyword, 3)}`, hybrid >= keyword);
  row('compound queries nDCG@10 ≥ 0.6', fmt(compound, 3), compound >= 0.6);
  row('no-match queries answer empty', noMatch.length === 0 ? 'all empty' : noMatch.join('; '), noMatch.length === 0);
}
if (process.env.BENCH_VERBOSE) {
  for (const c of columns.slice(1)) {
    for (const r of c.results.filter((x) => x.scores.ndcg < 0.5)) console.log(`${c.name} ${r.query.kind} ${JSON.stringify(r.query.query)} nDCG ${fmt(r.scores.ndcg, 2)}`);
  }
}
