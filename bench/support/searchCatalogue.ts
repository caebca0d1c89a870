// The search benchmark's catalogue, generated once and written batch by batch into every column's
// server (the same products and vectors, in the same order), each write timed per server.
//
// Products go through the real domain path (createServices → products.upsertMany, batches of
// 1,000, no embedding queue), vectors through VectorRepository.store. The vectors are synthetic:
// 200 cluster centres (one per category sub-topic) plus gaussian noise, unit length; ~10% of
// products also get a similarity anchor. They are stored under the local embedder's model id so
// that the HTTP hybrid/semantic runs, whose serve process only reads vectors of its own
// embedder's model, use them too.
import type { ProductInput } from '../../src/domain/products.js';
import { VectorRepository } from '../../src/store/vectors.js';
import { fmt } from './harness.js';
import { serverCpuSeconds } from './redisServers.js';
import { Rng } from './rng.js';
import type { Column } from './searchColumn.js';
import { ANCHORS, CLUSTERS, DIM, GERMAN, MODEL, SITES, WRITE_BATCH } from './searchConfig.js';
import { perSecond, type Summary } from './searchSummary.js';
import { Catalogue, queryableWords, zipf, type Zipf } from './searchText.js';
import { clusteredVectors, nearby, randomCentroids } from './vectors.js';

/** What the queries and the recall truth need of the catalogue, by row (the same on every server). */
export interface Catalogued {
  n: number;
  /** The products as written, with their site numbers. */
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

export async function writeCatalogue(columns: Column[], n: number, summary: Summary): Promise<Catalogued> {
  const catalogue = new Catalogue(new Rng(20240605), { sites: SITES, clusters: CLUSTERS, german: GERMAN, anchors: ANCHORS });
  const d = {
    n, site: new Uint16Array(n), brand: new Uint16Array(n), isEn: new Uint8Array(n), price: new Float32Array(n),
    words: new Array<string[]>(n), lang: new Array<'en' | 'de'>(n),
  };
  const cluster = new Uint16Array(n);
  const anchored = new Uint8Array(n);
  const inputs: Catalogued['inputs'] = [];

  for (let i = 0; i < n; i++) {
    const p = catalogue.product(i);
    d.site[i] = p.site;
    d.brand[i] = p.brand;
    cluster[i] = p.cluster;
    d.isEn[i] = p.input.language === 'en' ? 1 : 0;
    d.lang[i] = p.input.language as 'en' | 'de';
    d.price[i] = p.price;
    anchored[i] = p.input.similarity_text ? 1 : 0;
    d.words[i] = queryableWords(`${p.input.title} ${p.input.category} ${p.input.description.split(' ', 12).join(' ')}`);
    inputs.push({ site: p.site, input: p.input });
  }
  await writeStep(columns, n, summary, `write: products through upsertMany (batches of ${WRITE_BATCH.toLocaleString('en')})`, async (column, from, to) => {
    const batch = inputs.slice(from, to).map((b) => ({ siteId: column.tenant.siteIds[b.site], input: b.input, source: 'bench' }));
    const outcomes = await column.services.products.upsertMany(column.tenant.id, batch);
    outcomes.forEach((o, k) => {
      if (o.result !== 'created') throw new Error(`${column.engine}: product ${from + k}: ${o.result}, expected created`);
      column.ids[from + k] = o.id;
      column.textHash[from + k] = o.textHash;
    });
  });

  // Vectors: a separate seed, so the texts above do not depend on the vector settings.
  const vrng = new Rng(7);
  const centroids = randomCentroids(vrng, CLUSTERS, DIM);
  const vectors = clusteredVectors(vrng, centroids, DIM, (i) => cluster[i], n, 1);
  const named = Array.from({ length: n }, (_, i): Record<string, Float32Array> => ({
    description: vectors.subarray(i * DIM, (i + 1) * DIM), ...(anchored[i] ? { anchor: nearby(vrng, vectors, i * DIM, DIM, 0.5) } : {}),
  }));
  await writeStep(columns, n, summary, 'write: vectors through VectorRepository.store', async (column, from, to) => {
    const repo = new VectorRepository(column.store);
    // Auto-pipelined by the connection: one batch is one round trip.
    const stored = await Promise.all(named.slice(from, to).map((v, k) =>
      repo.store(column.tenant.id, { kind: 'product', id: column.ids[from + k] }, { textHash: column.textHash[from + k], model: MODEL, vectors: v })));
    if (stored.includes(false)) throw new Error(`${column.engine}: vectors refused by storeVectors (textHash mismatch)`);
  });

  const vocabulary = catalogue.vocabulary();
  const siteRows: number[][] = Array.from({ length: SITES }, () => []);
  for (let i = 0; i < n; i++) siteRows[d.site[i]].push(i);
  return {
    ...d, inputs, brands: vocabulary.brands, head: { en: zipf(vocabulary.words.en, 1), de: zipf(vocabulary.words.de, 1) }, vectors, centroids, siteRows,
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
  for (const [c, column] of columns.entries()) {
    const redisMicros = (((await serverCpuSeconds(column.store)) - cpuBefore[c]) * 1e6) / n;
    summary.note(column.engine, measure, `${perSecond(n, ms[c])} (${fmt(ms[c] / 1000, 1)} s), redis ${fmt(redisMicros, 0)} µs a product`);
  }
}
