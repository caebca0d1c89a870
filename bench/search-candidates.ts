// Search engine candidates (issue 5: "measure candidates such as usearch, hnswlib-node, Orama,
// MiniSearch before choosing; write down why"): the libraries on the same generated data, each in
// its own child process (so memory deltas are its own), against kcs's own text index.
//
//   npm run bench:search-candidates
//   npm i --no-save hnswlib-node @orama/orama && npm run bench:search-candidates   all four libraries
//   (then `npm install` restores node_modules to package-lock.json)
//
//   BENCH_VECTORS=20000 BENCH_VECTOR_QUERIES=200   vectors: 512-d, clustered (200 centres + noise)
//   BENCH_DOCS=50000 BENCH_TEXT_QUERIES=300        text: synthetic documents, zipf vocabulary
//   BENCH_CANDIDATE_BUDGET_S=180                   query time per text candidate before it is cut short
//   BENCH_ONLY=hnswlib,orama                       only the candidates whose name contains one of these
//
// Vectors: build (one add per vector, as the engine adds documents; for usearch f16 also one batch
// add on every core), memory (rss after − before, after GC), p50/p99 of a k=10 search at the same
// graph settings for all (M 16, ef_construction 128, ef 64), recall@10 against an exact scan; and a
// filtered search at 1% selectivity: hnswlib-node's filter callback, for usearch (whose JS binding
// has no filter) the two things kcs can do instead, oversampling the graph and scoring exactly.
// Text: 50,000 documents (title weight 3 + description), 300 queries of 1–3 words, ~20% with a
// typo, ~30% with the last word typed as a prefix; typo tolerance 1 edit from 5 letters, 2 from 9.
// Only usearch and minisearch are dependencies of kcs; the others are measured when installed.
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DocTable } from '../src/search/builtin/docTable.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { cpuMeter } from './support/proc.js';
import { bruteForce, clusteredVectors, nearby, randomCentroids, recall, Rng, summarize, Zipf, type Timing } from './support/searchData.js';
import { pseudoWords, storefrontQuery, SYLLABLES_EN } from './support/searchText.js';

const VECTORS = positiveInt('BENCH_VECTORS', 20_000);
const VECTOR_QUERIES = positiveInt('BENCH_VECTOR_QUERIES', 200);
const DOCS = positiveInt('BENCH_DOCS', 50_000);
const TEXT_QUERIES = positiveInt('BENCH_TEXT_QUERIES', 300);
const CANDIDATE_BUDGET_MS = positiveInt('BENCH_CANDIDATE_BUDGET_S', 180) * 1000;
const DIM = 512;
const CLUSTERS = 200;
const K = 10;
const SELECTIVITY = 0.01;
const GRAPH = { M: 16, efConstruction: 128, ef: 64 };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type Kind = 'vector' | 'text';
interface Candidate {
  name: string;
  kind: Kind;
  /** The npm package it needs. */
  pkg: string;
}
const CANDIDATES: Candidate[] = [
  { name: 'usearch f32', kind: 'vector', pkg: 'usearch' },
  { name: 'usearch f16 (kcs)', kind: 'vector', pkg: 'usearch' },
  { name: 'usearch f16, batch add', kind: 'vector', pkg: 'usearch' },
  { name: 'usearch i8', kind: 'vector', pkg: 'usearch' },
  { name: 'hnswlib-node', kind: 'vector', pkg: 'hnswlib-node' },
  { name: 'kcs TextIndex', kind: 'text', pkg: 'minisearch' },
  { name: 'MiniSearch', kind: 'text', pkg: 'minisearch' },
  { name: 'Orama', kind: 'text', pkg: '@orama/orama' },
];

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}
interface Measured {
  /** CPU of other processes on the machine while this candidate ran (1.0 = one core), where /proc tells. */
  other?: number;
}
interface VectorResult extends Measured {
  kind: 'vector';
  buildMs: number;
  memory: Memory;
  search: Timing;
  recall: number;
  filtered: { how: string; search: Timing; recall: number }[];
}
interface TextResult extends Measured {
  kind: 'text';
  buildMs: number;
  memory: Memory;
  search: Timing;
  queries: number;
  meanHits: number;
}
type Result = VectorResult | TextResult | { kind: 'skipped'; reason: string };

if (process.env.BENCH_CANDIDATE) {
  void child(process.env.BENCH_CANDIDATE);
} else {
  runBench('bench:search-candidates', 40 * 60_000, main);
}

// ---- parent ----------------------------------------------------------------------------------

async function main(undo: Undo): Promise<number> {
  console.log(
    `bench:search-candidates  ${availableParallelism()} cores, Node ${process.version}\n` +
      `vectors: ${VECTORS.toLocaleString('en')} × ${DIM}-d (${CLUSTERS} clusters), ${VECTOR_QUERIES} queries, k=${K}, ` +
      `M ${GRAPH.M} / ef_construction ${GRAPH.efConstruction} / ef ${GRAPH.ef}; filtered: ${SELECTIVITY * 100}% of documents allowed\n` +
      `text: ${DOCS.toLocaleString('en')} documents, ${TEXT_QUERIES} queries (typos, prefixes); each candidate in its own process\n`,
  );
  const only = (process.env.BENCH_ONLY ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
  const chosen = CANDIDATES.filter((c) => only.length === 0 || only.some((o) => c.name.toLowerCase().includes(o)));
  const results: [Candidate, Result][] = [];
  for (const candidate of chosen) {
    const result = await runChild(candidate, undo);
    results.push([candidate, result]);
    if (result.kind === 'skipped') console.log(`${candidate.name.padEnd(24)} skipped: npm i --no-save ${candidate.pkg} to include (${result.reason})`);
    else console.log(`${candidate.name.padEnd(24)} ${oneLine(result)}`);
  }

  const vectors = results.filter((r): r is [Candidate, VectorResult] => r[1].kind === 'vector');
  if (vectors.length > 0) {
    console.log(`\nVectors: ${VECTORS.toLocaleString('en')} × ${DIM}-d, k=${K}\n`);
    console.log('| library | build | build rate | memory (rss Δ) | p50 ms | p99 ms | recall@10 | filtered 1%: how | p50 ms | p99 ms | recall@10 |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|');
    for (const [c, r] of vectors) {
      const f = r.filtered.length ? r.filtered : [{ how: '—', search: null, recall: NaN }];
      f.forEach((x, i) => {
        const head = i === 0
          ? `| ${c.name} | ${fmt(r.buildMs / 1000, 1)} s | ${fmt(VECTORS / (r.buildMs / 1000), 0)}/s | ${mib(r.memory.rss)} | ${fmt(r.search.p50, 3)} | ${fmt(r.search.p99, 3)} | ${fmt(r.recall, 3)} |`
          : '| | | | | | | |';
        console.log(`${head} ${x.how} | ${x.search ? fmt(x.search.p50, 3) : ''} | ${x.search ? fmt(x.search.p99, 3) : ''} | ${fmt(x.recall, 3)} |`);
      });
    }
  }
  const texts = results.filter((r): r is [Candidate, TextResult] => r[1].kind === 'text');
  if (texts.length > 0) {
    console.log(`\nText: ${DOCS.toLocaleString('en')} documents, ${TEXT_QUERIES} queries\n`);
    console.log('| library | build | build rate | heap Δ | rss Δ | p50 ms | p99 ms | max ms | mean ms | mean hits |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [c, r] of texts) {
      const cut = r.queries < TEXT_QUERIES ? ` (${r.queries} of ${TEXT_QUERIES} queries in the time budget)` : '';
      console.log(
        `| ${c.name}${cut} | ${fmt(r.buildMs / 1000, 1)} s | ${fmt(DOCS / (r.buildMs / 1000), 0)}/s | ${mib(r.memory.heapUsed)} | ${mib(r.memory.rss)} | ` +
          `${fmt(r.search.p50, 2)} | ${fmt(r.search.p99, 2)} | ${fmt(r.search.max, 1)} | ${fmt(r.search.mean, 2)} | ${fmt(r.meanHits, 0)} |`,
      );
    }
  }
  const busiest = Math.max(0, ...results.map(([, r]) => (r.kind === 'skipped' ? 0 : r.other ?? 0)));
  if (busiest > 0.1) console.log(`\nnote: other processes took up to ${fmt(busiest * 100, 0)}% of a core while a candidate ran: these are not the figures of an idle machine`);
  const skipped = results.filter(([, r]) => r.kind === 'skipped').map(([c]) => c.pkg);
  if (skipped.length > 0) console.log(`\nskipped (not installed): ${[...new Set(skipped)].join(', ')} — npm i --no-save ${[...new Set(skipped)].join(' ')} to include them`);
  return 0;
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MiB`;

function oneLine(r: VectorResult | TextResult): string {
  const build = `build ${fmt(r.buildMs / 1000, 1)} s, memory rss +${mib(r.memory.rss)} (heap +${mib(r.memory.heapUsed)})`;
  const search = `p50 ${fmt(r.search.p50, 3)} ms, p99 ${fmt(r.search.p99, 3)} ms`;
  const other = r.other !== undefined ? `; other processes ${fmt(r.other * 100, 0)}% of a core` : '';
  if (r.kind === 'text') return `${build}; ${search}, mean hits ${fmt(r.meanHits, 0)}${r.queries < TEXT_QUERIES ? ` (${r.queries} queries)` : ''}${other}`;
  const filtered = r.filtered.map((f) => `${f.how}: p50 ${fmt(f.search.p50, 3)} ms, p99 ${fmt(f.search.p99, 3)} ms, recall ${fmt(f.recall, 3)}`).join('; ');
  return `${build}; ${search}, recall@10 ${fmt(r.recall, 3)}${filtered ? `; filtered ${filtered}` : ''}${other}`;
}

function runChild(candidate: Candidate, undo: Undo): Promise<Result> {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), [], {
      execArgv: process.execArgv,
      env: { ...process.env, BENCH_CANDIDATE: candidate.name },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    undo(() => void proc.kill('SIGKILL'));
    let result: Result | null = null;
    proc.on('message', (m) => (result = m as Result));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => (result ? resolve(result) : reject(new Error(`${candidate.name}: exited (${signal ?? `code ${code}`}) without a result`))));
  });
}

// ---- child: one candidate --------------------------------------------------------------------

async function child(name: string): Promise<void> {
  const candidate = CANDIDATES.find((c) => c.name === name);
  if (!candidate) throw new Error(`unknown candidate ${name}`);
  let result: Result;
  const meter = cpuMeter({ self: process.pid });
  try {
    result = candidate.kind === 'vector' ? await vectorCandidate(candidate) : await textCandidate(candidate);
    result.other = meter().cores.other;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') result = { kind: 'skipped', reason: 'not installed' };
    else throw error;
  }
  process.send!(result, () => process.exit(0));
}

/** An optional library, imported by a name TypeScript does not resolve (it may not be installed). */
async function optional(pkg: string): Promise<any> {
  const mod = await import(pkg);
  // A CommonJS package (hnswlib-node) or usearch's default export carry the API; Orama has named exports only.
  return mod.default ?? mod;
}

function memoryNow(): Memory {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}
const memoryDelta = (a: Memory, b: Memory): Memory => ({ rss: b.rss - a.rss, heapUsed: b.heapUsed - a.heapUsed, external: b.external - a.external });

// ---- vectors ---------------------------------------------------------------------------------

interface VectorLib {
  add(i: number, v: Float32Array): void;
  /** Optional: all at once (instead of add). */
  addAll?(all: Float32Array, n: number): void;
  search(q: Float32Array, k: number): number[];
  searchFiltered?(q: Float32Array, k: number, allows: (i: number) => boolean): number[];
}

async function vectorLib(name: string): Promise<VectorLib> {
  if (name.startsWith('usearch')) {
    const usearch = await optional('usearch');
    const quantization = name.includes('f32') ? usearch.ScalarKind.F32 : name.includes('i8') ? usearch.ScalarKind.I8 : usearch.ScalarKind.F16;
    const index = new usearch.Index({
      dimensions: DIM, metric: usearch.MetricKind.Cos, quantization, connectivity: GRAPH.M,
      expansion_add: GRAPH.efConstruction, expansion_search: GRAPH.ef, multi: false,
    });
    const keysOf = (m: { keys: BigUint64Array }, k: number) => Array.from(m.keys.subarray(0, k), Number).filter((x) => x < VECTORS);
    return {
      // As src/search/vectorIndex.ts adds a document (threads left at the binding's default).
      add: (i, v) => index.add(BigInt(i), v),
      addAll: name.includes('batch')
        ? (all, n) => index.add(BigUint64Array.from({ length: n }, (_, i) => BigInt(i)), all, availableParallelism())
        : undefined,
      search: (q, k) => keysOf(index.search(q, k, 1), k),
    };
  }
  const { HierarchicalNSW } = await optional('hnswlib-node');
  const index = new HierarchicalNSW('cosine', DIM);
  index.initIndex(VECTORS, GRAPH.M, GRAPH.efConstruction, 100);
  index.setEf(GRAPH.ef);
  return {
    add: (i, v) => index.addPoint(Array.from(v), i),
    search: (q, k) => index.searchKnn(Array.from(q), k).neighbors as number[],
    searchFiltered: (q, k, allows) => index.searchKnn(Array.from(q), k, allows).neighbors as number[],
  };
}

async function vectorCandidate(candidate: Candidate): Promise<VectorResult> {
  const rng = new Rng(11);
  const centroids = randomCentroids(rng, CLUSTERS, DIM);
  const vectors = clusteredVectors(rng, centroids, DIM, () => rng.int(CLUSTERS), VECTORS, 1);
  const queries = Array.from({ length: VECTOR_QUERIES }, () => nearby(rng, vectors, rng.int(VECTORS) * DIM, DIM, 0.6));
  const allowedOf = (q: number) => (doc: number) => doc % Math.round(1 / SELECTIVITY) === q % Math.round(1 / SELECTIVITY);
  const allowedRows = (q: number) => Array.from({ length: Math.ceil(VECTORS * SELECTIVITY) }, (_, i) => i * Math.round(1 / SELECTIVITY) + (q % Math.round(1 / SELECTIVITY))).filter((d) => d < VECTORS);
  const truth = queries.map((q) => bruteForce(vectors, DIM, q, K));
  const filteredTruth = queries.map((q, i) => bruteForce(vectors, DIM, q, K, undefined, allowedRows(i)));

  const lib = await vectorLib(candidate.name);
  const before = memoryNow();
  const started = performance.now();
  if (lib.addAll) lib.addAll(vectors, VECTORS);
  else for (let i = 0; i < VECTORS; i++) lib.add(i, vectors.slice(i * DIM, (i + 1) * DIM));
  const buildMs = performance.now() - started;
  const memory = memoryDelta(before, memoryNow());

  const time = (run: (q: Float32Array, i: number) => number[], expected: number[][]): { search: Timing; recall: number } => {
    for (let i = 0; i < Math.min(20, queries.length); i++) run(queries[i], i); // warm-up
    const times: number[] = [];
    let sum = 0;
    const t0 = performance.now();
    queries.forEach((q, i) => {
      const t = performance.now();
      const found = run(q, i);
      times.push(performance.now() - t);
      sum += recall(found.slice(0, K), expected[i]);
    });
    return { search: summarize(times, performance.now() - t0), recall: sum / queries.length };
  };
  const plain = time((q) => lib.search(q, K), truth);
  const filtered: VectorResult['filtered'] = [];
  if (lib.searchFiltered) {
    filtered.push({ how: 'filter callback', ...time((q, i) => lib.searchFiltered!(q, K, allowedOf(i)), filteredTruth) });
  } else {
    // No filter in the binding: ask the graph for enough candidates that K pass (as kcs does above EXACT_LIMIT) …
    const wanted = Math.ceil((K / SELECTIVITY) * 1.5) + 16;
    filtered.push({ how: `oversample k=${wanted}, then filter`, ...time((q, i) => lib.search(q, wanted).filter(allowedOf(i)).slice(0, K), filteredTruth) });
    // … or score the allowed documents exactly (kcs below EXACT_LIMIT; a JS loop over float32 vectors).
    filtered.push({ how: 'exact over the allowed docs (kcs)', ...time((q, i) => bruteForce(vectors, DIM, q, K, undefined, allowedRows(i)), filteredTruth) });
  }
  return { kind: 'vector', buildMs, memory, search: plain.search, recall: plain.recall, filtered };
}

// ---- text ------------------------------------------------------------------------------------

interface TextDoc {
  id: number;
  title: string;
  description: string;
}

function textData(): { docs: TextDoc[]; queries: string[] } {
  const rng = new Rng(23);
  const vocabulary = new Zipf(pseudoWords(rng, 30_000, SYLLABLES_EN), 1.05);
  const sentence = (min: number, max: number) => Array.from({ length: min + rng.int(max - min + 1) }, () => vocabulary.pick(rng)).join(' ');
  const docs = Array.from({ length: DOCS }, (_, id) => ({ id, title: sentence(3, 8), description: sentence(30, 80) }));
  const queries = Array.from({ length: TEXT_QUERIES }, () => {
    const d = docs[rng.int(DOCS)];
    return storefrontQuery(rng, `${d.title} ${d.description}`.split(' ').filter((w) => w.length >= 3), vocabulary);
  });
  return { docs, queries };
}

/** Typo budget as kcs: one edit for words of 5+ letters, two for 9+. */
const edits = (term: string) => (term.length >= 9 ? 2 : term.length >= 5 ? 1 : 0);

interface TextLib {
  build(docs: TextDoc[]): Promise<void> | void;
  /** The top 10: how many hits the query had in all. */
  search(query: string): Promise<number> | number;
}

async function textLib(name: string): Promise<TextLib> {
  if (name === 'kcs TextIndex') {
    // DocTable.keyword: src/search/analysis.ts analyzeQuery, TextIndex.match, all words else any, top 10.
    const table = new DocTable<null>({ weights: [3, 1] });
    const everyEnglishDoc = { analysis: { stemming: 'en', language: 'en' }, allows: () => true };
    return {
      build: (docs) => {
        for (const d of docs) {
          table.set({
            id: String(d.id), meta: null, columns: undefined, values: {}, vectors: {}, language: 'en', texts: [d.title, d.description],
          });
        }
      },
      search: (query) => table.keyword(query, 10, everyEnglishDoc).all.length,
    };
  }
  if (name === 'MiniSearch') {
    const { default: MiniSearch } = await import('minisearch');
    const index = new MiniSearch<TextDoc>({
      fields: ['title', 'description'],
      searchOptions: {
        boost: { title: 3 },
        fuzzy: (term) => edits(term) || false,
        prefix: (_term, i, terms) => i === terms.length - 1,
      },
    });
    return {
      build: (docs) => index.addAll(docs),
      search: (query) => {
        const results = index.search(query);
        return results.length;
      },
    };
  }
  const orama = await optional('@orama/orama');
  const db = await orama.create({ schema: { title: 'string', description: 'string' } });
  return {
    build: async (docs) => {
      await orama.insertMultiple(db, docs.map((d) => ({ id: String(d.id), title: d.title, description: d.description })), 1000);
    },
    search: async (query) => (await orama.search(db, { term: query, properties: ['title', 'description'], tolerance: 1, boost: { title: 3 }, limit: 10 })).count as number,
  };
}

async function textCandidate(candidate: Candidate): Promise<TextResult> {
  const { docs, queries } = textData();
  const lib = await textLib(candidate.name);
  const before = memoryNow();
  const started = performance.now();
  await lib.build(docs);
  const buildMs = performance.now() - started;
  const memory = memoryDelta(before, memoryNow());
  for (let i = 0; i < 10; i++) await lib.search(queries[i]); // warm-up
  const times: number[] = [];
  let hits = 0;
  const t0 = performance.now();
  for (const q of queries) {
    const t = performance.now();
    hits += await lib.search(q);
    times.push(performance.now() - t);
    if (performance.now() - t0 > CANDIDATE_BUDGET_MS) break;
  }
  return { kind: 'text', buildMs, memory, search: summarize(times, performance.now() - t0), queries: times.length, meanHits: hits / times.length };
}
