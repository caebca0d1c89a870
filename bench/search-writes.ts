// What search costs on the write path. With the built-in engine a write stores the document and
// nothing more (each serve process indexes its replica itself); with the Redis Query Engine the
// write also stores the document's search fields and the server indexes the hash before it answers
// — and re-indexes the whole document, vector included, whenever a field it reads changes.
//
// bench:search's catalogue goes through the real domain path into the built-in engine's private
// redis-server (the baseline) and, with BENCH_REDIS_URL, a fresh tenant on a server with the search
// module whose indexes exist before the writes: create, store a 512-d vector, re-send unchanged,
// change every price (same sync_hash: volatile fields only), and on the Query Engine the projection
// job over the stored catalogue (what moving a deployment to it costs). Each step prints products/s
// and the server's CPU per product.
//
//   BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:search-writes
//   BENCH_PRODUCTS=100000 ...                  more products (default 20,000)
import { availableParallelism } from 'node:os';
import { searchWrites } from '../src/search/index.js';
import { ProjectionBackfill } from '../src/store/projectionBackfill.js';
import { positiveInt, runBench, type Undo } from './support/harness.js';
import { serverCpuSeconds } from './support/redisServers.js';
import { openBuiltinColumn } from './support/searchBuiltinColumn.js';
import { writeCatalogue, writeStep } from './support/searchCatalogue.js';
import type { Column } from './support/searchColumn.js';
import { DIM, MODEL, MODULE_REDIS_URL } from './support/searchConfig.js';
import { openQueryEngineColumn } from './support/searchQueryEngineColumn.js';
import { perSecond, Summary } from './support/searchSummary.js';

const PRODUCTS = positiveInt('BENCH_PRODUCTS', 20_000);

runBench('bench:search-writes', (180 + PRODUCTS * 0.02) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const summary = new Summary();
  const columns: Column[] = [await openBuiltinColumn(undo)];
  if (MODULE_REDIS_URL) columns.push(await openQueryEngineColumn(undo, MODULE_REDIS_URL));
  console.log(`bench:search-writes  ${availableParallelism()} cores, Node ${process.version}; ${PRODUCTS.toLocaleString('en')} products; ${columns.map((c) => c.heading).join(' vs ')}`);
  if (!MODULE_REDIS_URL) console.log('redis-query-engine: skipped (set BENCH_REDIS_URL to a Redis Stack / Redis 8 server to measure it beside the built-in engine)');

  const { inputs } = await writeCatalogue(columns, PRODUCTS, summary);
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

  for (const column of columns) {
    const { projection } = searchWrites(column.engine, column.store, { modelId: MODEL, dimension: DIM });
    if (!projection) continue;
    // The job's own check (documents already at this version are left alone) is skipped: it measures a real migration.
    const backfill = new ProjectionBackfill(column.store, { ...projection, version: `${projection.version}-bench` });
    const cpu = await serverCpuSeconds(column.store);
    const started = performance.now();
    await backfill.run(column.tenant.id);
    const ms = performance.now() - started;
    const redisMicros = (((await serverCpuSeconds(column.store)) - cpu) * 1e6) / PRODUCTS;
    summary.note(column.engine, 'projection job over the stored catalogue', `${perSecond(PRODUCTS, ms)}, redis ${redisMicros.toFixed(0)} µs a product`);
  }
  summary.print(`step (${PRODUCTS.toLocaleString('en')} products; builtin is the baseline)`, columns);
  return summary.problems.length > 0 ? 1 : 0;
}
