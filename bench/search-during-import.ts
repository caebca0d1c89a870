// Search while an import runs, with the README's defaults: `kcs start` (serve + workers + embedded
// redis-server + the local model), a tenant whose search replica is live (searched once), and
// BENCH_PRODUCTS products imported into it. Then keyword searches from BENCH_CONNECTIONS
// connections, first with no import running (the baseline, in the same run: the embed worker is
// embedding the catalogue meanwhile, at its low priority) and then while BENCH_PRODUCTS new
// products are bulk-created (10,000 a request, 3 in flight). Prints the searches' rate, p50 and
// p99 in both, and the import's rate under the search load.
//
//   npm run bench:search-during-import                       100,000 products, 10 s of baseline
//   BENCH_PRODUCTS=50000 npm run bench:search-during-import   a quick look
import { Api, bulkPath, bulkRun, IN_FLIGHT } from './support/bulkApi.js';
import { bulkBodies } from './support/catalogue.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs } from './support/kcs.js';
import { formatCpu, load, type LoadResult } from './support/load.js';
import { waitIdle } from './support/proc.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const PER_REQUEST = 10_000;
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 4);
const BASELINE_SECONDS = positiveInt('BENCH_SECONDS', 10);
/** Two-word storefront queries over the catalogue's vocabulary (bench/support/catalogue.ts). */
const WORDS = ['jacket', 'lamp', 'kettle', 'tent', 'drill', 'watch', 'black', 'oak', 'compact', 'pro', 'trail', 'eco'];

runBench('bench:search-during-import', (300 + PRODUCTS * 0.003) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const kcs = await startKcs(undo);
  const api = new Api(kcs.port, kcs.host, kcs.key);
  undo(() => api.close());
  const path = bulkPath(await api.createSite());
  const searches = WORDS.flatMap((a) => WORDS.map((b) => JSON.stringify({ query: `${a} ${b}`, mode: 'keyword' })));
  // The first search reads the tenant into the serve process's replica: from then on it indexes every write.
  const first = await api.call('POST', '/api/knowledge/search/products', Buffer.from(searches[0]));
  if (first.status !== 200) throw new Error(`search: ${first.status} ${first.body}`);

  const catalogue = await bulkRun(api, path, bulkBodies('p', PRODUCTS, PER_REQUEST), kcs.pids());
  await waitIdle({ serve: kcs.pids()['kcs serve'] }, { quietMs: 1000, limitMs: 120_000 });
  console.log(`bench:search-during-import  ${PRODUCTS.toLocaleString('en')} products in the tenant (${fmt(PRODUCTS / catalogue.seconds, 0)} creates/s), ${CONNECTIONS} search connections`);

  const options = (seconds: number) => ({
    url: `http://127.0.0.1:${kcs.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { host: kcs.host, authorization: `Bearer ${kcs.key}`, 'content-type': 'application/json' },
    requests: searches.map((body) => ({ method: 'POST' as const, path: '/api/knowledge/search/products', body })),
  });
  const baseline = await load(options(BASELINE_SECONDS), kcs.pids());
  report('baseline: no import running', baseline);

  api.fresh();
  const importing = bulkRun(api, path, bulkBodies('q', PRODUCTS, PER_REQUEST), kcs.pids());
  // As long as the first import took: the import under the search load takes longer, so the load ends within it.
  const during = await load(options(Math.max(2, Math.round(catalogue.seconds))), kcs.pids());
  const imported = await importing;
  report(`during a bulk create of ${PRODUCTS.toLocaleString('en')} (${PER_REQUEST.toLocaleString('en')} a request, ${IN_FLIGHT} in flight)`, during);
  console.log(`   the import under that load: ${fmt(PRODUCTS / imported.seconds, 0)} creates/s`);

  console.log(`\n| searches (${CONNECTIONS} connections, keyword) | searches/s | p50 | p99 |`);
  console.log('|---|---:|---:|---:|');
  for (const [name, r] of [['baseline: no import running', baseline], ['during the bulk create', during]] as const) {
    console.log(`| ${name} | ${fmt(r.rps, 0)} | ${fmt(r.p50, 1)} ms | ${fmt(r.p99, 1)} ms |`);
  }
  const failed = baseline.non2xx + baseline.errors + during.non2xx + during.errors;
  if (failed > 0) throw new Error(`${failed} searches failed: ${JSON.stringify([baseline.statuses, during.statuses])}`);
  return 0;
}

function report(name: string, r: LoadResult): void {
  console.log(`   ${name}: ${fmt(r.rps, 0)} searches/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms (${formatCpu(r.cpu)})`);
}
