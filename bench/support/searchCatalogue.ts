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
import type { Column } from './searchColumn.js';
import { ANCHORS, CLUSTERS, DIM, GERMAN, MODEL, SITES, WRITE_BATCH } from './searchConfig.js';
import { clusteredVectors, nearby, randomCentroids, Rng, Zipf } from './searchData.js';
import { Catalogue, queryableWords } from './searchText.js';
import { perSecond, type Summary } from './searchSummary.js';

/** What the queries and the recall truth need of the catalogue, by row (the same on every server). */
export interface Catalogued {
  n: number;
  site: Uint16Array;
  brand: Uint16Array;
  isEn: Uint8Array;
  price: Float32Array;
  inStock: Uint8Array;
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
  const rng = new Rng(20240605);
  const catalogue = new Catalogue(rng, { sites: SITES, clusters: CLUSTERS, german: GERMAN, anchors: ANCHORS });
  const site = new Uint16Array(n);
  const brand = new Uint16Array(n);
  const cluster = new Uint16Array(n);
  const isEn = new Uint8Array(n);
  const price = new Float32Array(n);
  const inStock = new Uint8Array(n);
  const anchored = new Uint8Array(n);
  const words: string[][] = new Array(n);
  const lang: ('en' | 'de')[] = new Array(n);
  const productMs = columns.map(() => 0);
  let bytes = 0;
  let genMs = 0;

  for (let start = 0; start < n; start += WRITE_BATCH) {
    const g = performance.now();
    const batch: { site: number; input: ProductInput }[] = [];
    for (let i = start; i < Math.min(n, start + WRITE_BATCH); i++) {
      const p = catalogue.product(i);
      site[i] = p.site;
      brand[i] = p.brand;
      cluster[i] = p.cluster;
      isEn[i] = p.input.language === 'en' ? 1 : 0;
      lang[i] = p.input.language as 'en' | 'de';
      price[i] = p.price;
      inStock[i] = p.inStock ? 1 : 0;
      anchored[i] = p.input.similarity_text ? 1 : 0;
      words[i] = queryableWords(`${p.input.title} ${p.input.category} ${p.input.description.split(' ', 12).join(' ')}`);
      bytes += JSON.stringify(p.input).length;
      batch.push({ site: p.site, input: p.input as ProductInput });
    }
    genMs += performance.now() - g;
    for (const [c, column] of columns.entries()) {
      const t = performance.now();
      const outcomes = await column.services.products.upsertMany(
        column.tenant.id,
        batch.map((b) => ({ siteId: column.tenant.siteIds[b.site], input: b.input, source: 'bench' })),
      );
      productMs[c] += performance.now() - t;
      outcomes.forEach((o, k) => {
        if (o.result !== 'created') throw new Error(`${column.engine}: product ${start + k}: ${o.result}, expected created`);
        column.ids[start + k] = o.id;
        column.textHash[start + k] = o.textHash;
      });
    }
  }
  console.log(
    `0. generated ${n.toLocaleString('en')} products (${fmt(bytes / n, 0)} bytes of input JSON each) in ${fmt(genMs / 1000, 1)} s; ` +
      `wrote them through products.upsertMany, batches of ${WRITE_BATCH.toLocaleString('en')}, into each server:`,
  );
  columns.forEach((column, c) => writeLine(column, `${fmt(productMs[c] / 1000, 1)} s, ${perSecond(n, productMs[c])}`));
  columns.forEach((column, c) => summary.note(column.engine, `write: products through upsertMany (batches of ${WRITE_BATCH.toLocaleString('en')})`, `${perSecond(n, productMs[c])} (${fmt(productMs[c] / 1000, 1)} s)`));

  // Vectors: a separate seed, so the texts above do not depend on the vector settings.
  const vrng = new Rng(7);
  const g = performance.now();
  const centroids = randomCentroids(vrng, CLUSTERS, DIM);
  const vectors = clusteredVectors(vrng, centroids, DIM, (i) => cluster[i], n, 1);
  const genVectorsMs = performance.now() - g;
  const vectorMs = columns.map(() => 0);
  const repos = columns.map((column) => new VectorRepository(column.store));
  let anchors = 0;
  for (let start = 0; start < n; start += WRITE_BATCH) {
    const named: Record<string, Float32Array>[] = [];
    for (let i = start; i < Math.min(n, start + WRITE_BATCH); i++) {
      const vectorsOf: Record<string, Float32Array> = { description: vectors.subarray(i * DIM, (i + 1) * DIM) };
      if (anchored[i]) {
        vectorsOf.anchor = nearby(vrng, vectors, i * DIM, DIM, 0.5);
        anchors++;
      }
      named.push(vectorsOf);
    }
    for (const [c, column] of columns.entries()) {
      const t = performance.now();
      // Auto-pipelined by the connection: one batch is one round trip.
      const results = await Promise.all(
        named.map((v, k) => repos[c].store(column.tenant.id, { kind: 'product', id: column.ids[start + k] }, { textHash: column.textHash[start + k], model: MODEL, vectors: v })),
      );
      vectorMs[c] += performance.now() - t;
      const refused = results.filter((ok) => !ok).length;
      if (refused > 0) throw new Error(`${column.engine}: ${refused} vectors refused by storeVectors (textHash mismatch)`);
    }
  }
  console.log(
    `   generated ${n.toLocaleString('en')} + ${anchors.toLocaleString('en')} anchor vectors (${DIM}-d) in ${fmt(genVectorsMs / 1000, 1)} s; ` +
      `stored them through VectorRepository.store into each server:`,
  );
  columns.forEach((column, c) => writeLine(column, `${fmt(vectorMs[c] / 1000, 1)} s, ${perSecond(n, vectorMs[c])} products`));
  columns.forEach((column, c) => summary.note(column.engine, 'write: vectors through VectorRepository.store', `${perSecond(n, vectorMs[c])} products (${fmt(vectorMs[c] / 1000, 1)} s)`));

  const vocabulary = catalogue.vocabulary();
  const siteRows: number[][] = Array.from({ length: SITES }, () => []);
  for (let i = 0; i < n; i++) siteRows[site[i]].push(i);
  return {
    n, site, brand, isEn, price, inStock, words, lang, brands: vocabulary.brands,
    head: { en: new Zipf(vocabulary.words.en, 1), de: new Zipf(vocabulary.words.de, 1) },
    vectors, centroids, siteRows,
  };
}

function writeLine(column: Column, figure: string): void {
  // The Query Engine's server indexes each write before it answers: its write time includes the indexing.
  const why = column.engine === 'redis-query-engine' ? '  (indexed by the server as it stores each write)' : '';
  console.log(`   ${column.heading.padEnd(52)} ${figure}${why}`);
}
