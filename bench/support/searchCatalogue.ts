// The search benchmark's catalogue, generated batch by batch and written into every column's server
// (the same products and vectors, in the same order), each write timed per server; in one go, or
// in stages that grow it (bench:search's BENCH_STAGES).
//
// Products go through the real domain path (createServices → products.upsertMany, batches of
// 1,000, no embedding queue), vectors through VectorRepository.store. The vectors are synthetic:
// 200 cluster centres (one per category sub-topic) plus gaussian noise, unit length; ~10% of
// products also get a similarity anchor. They are stored under the local embedder's model id so
// that the HTTP hybrid/semantic runs, whose serve process only reads vectors of its own
// embedder's model, use them too. A column with a direct floor (the Query Engine's) also gets each
// batch as plain hashes of its own (searchDirect.ts), and one with a MiniSearch baseline (the
// built-in engine's) as lines of a file (searchMiniSearch.ts), untimed.
import type { ProductInput } from '../../src/domain/products.js';
import { VectorRepository } from '../../src/store/vectors.js';
import { fmt } from './harness.js';
import { serverCpuSeconds, usedMemory } from './redisServers.js';
import { Rng } from './rng.js';
import type { Column } from './searchColumn.js';
import { ANCHORS, CLUSTERS, DIM, GERMAN, MODEL, SITES, WRITE_BATCH } from './searchConfig.js';
import { perSecond, type Summary } from './searchSummary.js';
import { Catalogue, queryableWords, zipf, type Zipf } from './searchText.js';
import { asStored, clusteredVectors, nearby, randomCentroids } from './vectors.js';

/** What the queries and the recall truth need of the catalogue, by row (the same on every server). */
export interface Catalogued {
  /** Rows written so far. */
  n: number;
  /** The products as written, with their site numbers (kept only when asked for). */
  inputs: { site: number; input: ProductInput }[];
  site: Uint16Array;
  brand: Uint16Array;
  isEn: Uint8Array;
  price: Float32Array;
  /** Per product: query words from its own texts (title, category, a few description words). */
  words: string[][];
  lang: ('en' | 'de')[];
  brands: string[];
  head: Record<'en' | 'de', Zipf<string>>;
  vectors: Float32Array;
  centroids: Float32Array;
  /** Rows of each site. */
  siteRows: number[][];
}

/** A writer of up to `capacity` rows: each call writes the rows from where the last one stopped up to `n`. */
export function catalogueWriter(columns: Column[], capacity: number, summary: Summary, { keepInputs = false } = {}): (n: number) => Promise<Catalogued> {
  const catalogue = new Catalogue(new Rng(20240605), { sites: SITES, clusters: CLUSTERS, german: GERMAN, anchors: ANCHORS });
  // Vectors: a separate seed, so the texts do not depend on the vector settings.
  const vrng = new Rng(7);
  const vocabulary = catalogue.vocabulary();
  const d: Catalogued = {
    n: 0, inputs: [], site: new Uint16Array(capacity), brand: new Uint16Array(capacity), isEn: new Uint8Array(capacity), price: new Float32Array(capacity), words: [],
    lang: [], brands: vocabulary.brands, head: { en: zipf(vocabulary.words.en, 1), de: zipf(vocabulary.words.de, 1) },
    vectors: new Float32Array(capacity * DIM), centroids: randomCentroids(vrng, CLUSTERS, DIM), siteRows: Array.from({ length: SITES }, () => []),
  };
  return async (n) => {
    const spent = columns.map(() => ({ products: 0, vectors: 0, productsCpu: 0, vectorsCpu: 0 }));
    // The last step's time and CPU include the server's garbage collection of the writes (Column.settle).
    const timed = async (c: number, step: 'products' | 'vectors', write: () => Promise<void>, last = false) => {
      const [cpu, started] = [await serverCpuSeconds(columns[c].store), performance.now(), await write(), last && (await columns[c].settle?.())];
      spent[c][step] += performance.now() - started;
      spent[c][`${step}Cpu`] += (await serverCpuSeconds(columns[c].store)) - cpu;
    };
    const from = d.n;
    for (let start = from; start < n; start += WRITE_BATCH) {
      const end = Math.min(n, start + WRITE_BATCH);
      const batch = Array.from({ length: end - start }, (_, k) => catalogue.product(start + k));
      batch.forEach((p, k) => {
        const i = start + k;
        [d.site[i], d.brand[i], d.isEn[i], d.price[i]] = [p.site, p.brand, p.input.language === 'en' ? 1 : 0, p.price];
        d.lang[i] = p.input.language as 'en' | 'de';
        d.words[i] = queryableWords(`${p.input.title} ${p.input.category} ${p.input.description.split(' ', 12).join(' ')}`);
        d.siteRows[p.site].push(i);
        if (keepInputs) d.inputs.push({ site: p.site, input: p.input });
      });
      d.vectors.set(asStored(clusteredVectors(vrng, d.centroids, DIM, (k) => batch[k].cluster, batch.length, 1), DIM), start * DIM);
      const named = batch.map((p, k): Record<string, Float32Array> => ({
        description: d.vectors.subarray((start + k) * DIM, (start + k + 1) * DIM),
        ...(p.input.similarity_text ? { anchor: nearby(vrng, d.vectors, (start + k) * DIM, DIM, 0.5) } : {}),
      }));
      for (const [c, column] of columns.entries()) {
        // The direct floor's copy of the batch, beside kcs's: each side's used_memory growth, without vectors.
        const used = column.direct && (await usedMemory(column.store));
        await timed(c, 'products', async () => {
          const outcomes = await column.services.products.upsertMany(column.tenant.id, batch.map((p) => ({ siteId: column.tenant.siteIds[p.site], input: p.input, source: 'bench' })));
          outcomes.forEach((o, k) => {
            if (o.result !== 'created') throw new Error(`${column.engine}: product ${start + k}: ${o.result}, expected created`);
            column.ids[start + k] = o.id;
            column.textHash[start + k] = o.textHash;
          });
        });
        // The baselines' copies, as kcs stored the batch (its ids and site ids), untimed.
        const rows = batch.map((p, k) => ({ id: column.ids[start + k], siteId: column.tenant.siteIds[p.site], input: p.input }));
        if (column.direct) {
          column.direct.memory.kcs += (await usedMemory(column.store)) - used!;
          await column.direct.write(rows);
        }
        column.miniSearch?.write(rows);
        await timed(c, 'vectors', async () => {
          const repo = new VectorRepository(column.store);
          // Auto-pipelined by the connection: one batch is one round trip.
          const stored = await Promise.all(named.map((v, k) =>
            repo.store(column.tenant.id, { kind: 'product', id: column.ids[start + k] }, { textHash: column.textHash[start + k], model: MODEL, vectors: v })));
          if (stored.includes(false)) throw new Error(`${column.engine}: vectors refused by storeVectors (textHash mismatch)`);
        }, end === n);
      }
    }
    d.n = n;
    for (const [c, column] of columns.entries()) {
      noteWrites(summary, column, `write: products through upsertMany (batches of ${WRITE_BATCH.toLocaleString('en')})`, n - from, spent[c].products, spent[c].productsCpu);
      noteWrites(summary, column, 'write: vectors through VectorRepository.store', n - from, spent[c].vectors, spent[c].vectorsCpu);
    }
    return d;
  };
}

/**
 * Runs `write` over the catalogue's rows for every column, batch by batch, and notes each column's
 * products/s and its Redis server's CPU per product (INFO cpu: a shared server's other clients count
 * too). The Query Engine's server indexes each write before it answers: its times include the indexing.
 */
export async function writeStep(columns: Column[], n: number, summary: Summary, measure: string, write: (column: Column, from: number, to: number) => Promise<void>): Promise<void> {
  const ms = columns.map(() => 0);
  const cpuBefore = await Promise.all(columns.map((column) => serverCpuSeconds(column.store)));
  for (let from = 0; from < n; from += WRITE_BATCH) {
    for (const [c, column] of columns.entries()) {
      const t = performance.now();
      await write(column, from, Math.min(n, from + WRITE_BATCH));
      ms[c] += performance.now() - t;
    }
  }
  for (const [c, column] of columns.entries()) noteWrites(summary, column, measure, n, ms[c], (await column.settle?.(), await serverCpuSeconds(column.store)) - cpuBefore[c]);
}

/** Products/s of a write step, and the Redis server's CPU per product. */
const noteWrites = (summary: Summary, column: Column, measure: string, n: number, ms: number, cpuSeconds: number) =>
  summary.note(column.engine, measure, `${perSecond(n, ms)} (${fmt(ms / 1000, 1)} s), redis ${fmt((cpuSeconds * 1e6) / n, 0)} µs a product`);
