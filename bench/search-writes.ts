// What search costs on the write path. With the built-in engine a write stores the document and
// nothing more (each serve process indexes its replica itself); with the Redis Query Engine the
// write also stores the document's search fields and the server indexes them before it answers:
// a product's search hash again on any change of its text, price or stock, its vector hash only
// when its vectors (or the filter fields beside them) change.
//
// bench:search's catalogue goes through the real domain path into the built-in engine's private
// redis-server (the baseline) and, with BENCH_REDIS_URL, a fresh tenant on a server with the search
// module whose indexes exist before the writes: create, store a 512-d vector, re-send unchanged,
// change every price, then every rating (same sync_hash: volatile fields only), and on the Query
// Engine the projection job over the catalogue as an earlier layout left it (what moving a
// deployment to this one costs). Each step prints products/s and the server's CPU per product.
//
//   BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:search-writes
//   BENCH_QE_REDIS_SERVER=…/redis-server BENCH_QE_MODULE=…/redisearch.so ...   a private server of that build instead
//   BENCH_PRODUCTS=100000 ...                  more products (default 20,000)
import { availableParallelism } from 'node:os';
import { searchWrites } from '../src/search/index.js';
import { VECTOR_FILTER_FIELDS } from '../src/search/redisQuery/schema.js';
import { keys } from '../src/store/keys.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { positiveInt, runBench, type Undo } from './support/harness.js';
import { queryEngineServer } from './support/redisServers.js';
import { openBuiltinColumn } from './support/searchBuiltinColumn.js';
import { catalogueWriter, writeStep } from './support/searchCatalogue.js';
import type { Column } from './support/searchColumn.js';
import { DIM, MODEL } from './support/searchConfig.js';
import { openQueryEngineColumn } from './support/searchQueryEngineColumn.js';
import { Summary } from './support/searchSummary.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 20_000);

runBench('bench:search-writes', (180 + PRODUCTS * 0.02) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const summary = new Summary();
  const columns: Column[] = [await openBuiltinColumn(undo)];
  const moduleUrl = await queryEngineServer(undo);
  if (moduleUrl) columns.push(await openQueryEngineColumn(undo, moduleUrl));
  console.log(`bench:search-writes  ${availableParallelism()} cores, Node ${process.version}; ${PRODUCTS.toLocaleString('en')} products; ${columns.map((c) => c.heading).join(' vs ')}`);
  if (!moduleUrl) console.log('redis-query-engine: skipped (set BENCH_REDIS_URL, or BENCH_QE_REDIS_SERVER and BENCH_QE_MODULE, to measure it beside the built-in engine)');

  const { inputs } = await catalogueWriter(columns, PRODUCTS, summary, { keepInputs: true })(PRODUCTS);
  const upsert = (expect: string, change: (i: number) => object = () => ({})) => async (column: Column, from: number, to: number) => {
    const batch = inputs.slice(from, to).map((p, k) => ({ siteId: column.tenant.siteIds[p.site], input: { ...p.input, ...change(from + k) }, source: 'bench' }));
    const outcomes = await column.services.products.upsertMany(column.tenant.id, batch);
    outcomes.forEach((o, k) => {
      if (o.result !== expect) throw new Error(`${column.engine}: product ${from + k} ${o.result}, expected ${expect}`);
    });
  };
  await writeStep(columns, PRODUCTS, summary, 're-send unchanged', upsert('unchanged'));
  const price = (i: number) => ({ price_current: (Number(inputs[i].input.price_current) + 1).toFixed(2) });
  await writeStep(columns, PRODUCTS, summary, 'change the price (volatile fields only)', upsert('updated', price));
  await writeStep(columns, PRODUCTS, summary, 'change the rating (volatile, not searched)', upsert('updated', (i) => ({ ...price(i), rating_average: '4.5' })));

  for (const column of columns) {
    const { projection } = searchWrites(column.engine, column.store, { modelId: MODEL, dimension: DIM });
    if (!projection) continue;
    // Each product as an earlier layout left it (no search hash, no search fields beside its vectors; not timed), then the job.
    const unproject = "for _, id in ipairs(ARGV) do redis.call('DEL', KEYS[1] .. id); redis.call('HDEL', KEYS[2] .. id, '_d', unpack(KEYS, 3)) end";
    const prefixes = [keys.productSearch(column.tenant.id, ''), keys.productVectors(column.tenant.id, ''), ...VECTOR_FILTER_FIELDS.map((name) => `f:${name}`)];
    for (let i = 0; i < PRODUCTS; i += 500) await column.store.eval(unproject, prefixes.length, ...prefixes, ...column.ids.slice(i, i + 500));
    await column.settle?.();
    await writeStep([column], PRODUCTS, summary, 'projection job over the stored catalogue (an earlier layout\'s)', async (_, from) => {
      if (from === 0) await new ProjectionBackfill(column.store, projection).run(column.tenant.id);
    });
  }
  summary.print(`step (${PRODUCTS.toLocaleString('en')} products; builtin is the baseline)`, columns);
  return summary.problems.length > 0 ? 1 : 0;
}
