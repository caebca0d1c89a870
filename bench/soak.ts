// Memory under a long mixed load, with the README's defaults: `kcs start` (serve + worker + embedded
// redis-server + the local model), a catalogue, then 50 connections of reads, upserts and searches
// for BENCH_SECONDS. Prints the serve process's RSS and JS heap every interval: after warm-up it
// must stay flat. The baseline in the same run is the serve process's RSS before the load.
//
//   npm run bench:soak                                  180 s, 50 connections
//   BENCH_SECONDS=60 BENCH_CONNECTIONS=20 npm run bench:soak
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Api } from './support/bulkApi.js';
import { fmt, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs } from './support/kcs.js';

const SECONDS = positiveInt('BENCH_SECONDS', 180);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const PRODUCTS = positiveInt('BENCH_PRODUCTS', 2000);
const SAMPLE_SECONDS = 15;
/** Percent of reads, upserts and searches. */
const MIX = (process.env.BENCH_MIX || '50,20,30').split(',').map(Number);
/** The catalogue's language: German (the spec's default) is keyword-only with the default English model. */
const LANGUAGE = process.env.BENCH_LANGUAGE || 'de';
const WORDS = ['trail', 'running', 'shoe', 'rain', 'jacket', 'wool', 'socks', 'leather', 'boot', 'summer', 'dress', 'linen',
  'shirt', 'denim', 'waterproof', 'light', 'warm', 'kids', 'hiking', 'sandal', 'cotton', 'black', 'blue', 'green'];

runBench('bench:soak', (SECONDS + 240) * 1000, main);

const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)];
const phrase = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** The serve process's JS heap and external memory from its /metrics (prom-client's process metrics). */
async function memoryOf(port: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text().catch(() => '');
  const mib = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 1048576;
  return `heap ${fmt(mib('kcs_nodejs_heap_size_used_bytes'), 0)} MiB, external ${fmt(mib('kcs_nodejs_external_memory_bytes'), 0)} MiB`;
}

async function main(undo: Undo): Promise<number> {
  const kcs = await startKcs(undo);
  const { port } = kcs;
  const api = new Api(port, kcs.host, kcs.key);
  undo(() => api.close());
  const headers = { host: kcs.host, authorization: `Bearer ${kcs.key}`, 'content-type': 'application/json' };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await api.call(method, `/api/knowledge${path}`, body === undefined ? undefined : JSON.stringify(body));
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.body}`);
    return JSON.parse(res.body) as unknown;
  };
  await call('POST', '/sites', { slug: 'soak', name: 'Soak', language: LANGUAGE });
  const product = (i: number) => ({
    // A fresh model code in every version of a description: the vocabulary churns, as it does when
    // connectors push changing texts (terms no product holds any more must be forgotten).
    external_id: `p-${i}`, title: `${phrase(3)} ${i}`, language: LANGUAGE, description: `${phrase(20)} model ${Math.random().toString(36).slice(2, 10)}`,
    price_current: (10 + Math.random() * 200).toFixed(2), brand: pick(['Acme', 'Nordic', 'Alpine']),
  });
  const lines = Array.from({ length: PRODUCTS }, (_, i) => JSON.stringify(product(i))).join('\n');
  const bulk = await api.call('POST', '/api/knowledge/products/bulk?site_id=soak&wait=true', lines, 'application/x-ndjson');
  if (bulk.status >= 300) throw new Error(`bulk → ${bulk.status}`);

  const ids: string[] = [];
  while (ids.length < PRODUCTS) {
    const page = (await call('GET', `/products?site_id=soak&limit=100&offset=${ids.length}`)) as { id: string }[];
    if (page.length === 0) break;
    ids.push(...page.map((p) => p.id));
  }

  const pid = kcs.pids()['kcs serve'];
  const before = rssMiB(pid);
  console.log(`kcs start (serve pid ${pid}), ${PRODUCTS} products (${LANGUAGE}); ${CONNECTIONS} connections for ${SECONDS} s: ${MIX[0]}% reads, ${MIX[1]}% upserts, ${MIX[2]}% searches`);
  console.log(`serve RSS before load: ${fmt(before, 0)} MiB`);
  const samples: { s: number; rss: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    samples.push({ s, rss: rssMiB(pid) });
    void memoryOf(port).then((m) => console.log(`  t=${String(s).padStart(4)} s  RSS ${fmt(rssMiB(pid), 0)} MiB  ${m}`));
  }, SAMPLE_SECONDS * 1000);
  const statuses: Record<number, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration: SECONDS, timeout: 10, headers,
      requests: [{
        // Fresh objects each time: autocannon keeps the last body's Content-Length in a spread request's headers.
        setupRequest: () => {
          const r = Math.random();
          const id = Math.floor(Math.random() * PRODUCTS);
          if (r < MIX[0] / 100) return { method: 'GET', path: `/api/knowledge/products/${pick(ids)}`, headers: { ...headers } };
          const [path, body] = r < (MIX[0] + MIX[1]) / 100
            ? ['/api/knowledge/products?site_id=soak', product(id)]
            : ['/api/knowledge/search/products', { query: `${phrase(2)} ${Math.floor(Math.random() * 1e6)}`, site_id: 'soak', language: LANGUAGE, facets: ['brand'] }];
          return { method: 'POST', path, headers: { ...headers }, body: JSON.stringify(body) };
        },
      }],
    }, (error, res) => (error ? reject(error) : resolve(res)));
    instance.on('response', (_c, status) => void (statuses[status] = (statuses[status] ?? 0) + 1));
  });
  clearInterval(sampler);
  // The first half warms up (V8 sizes its heaps to the load); memory must be flat in the second.
  const warm = samples.filter((x) => x.s >= SECONDS / 2);
  const slope = warm.length >= 2 ? ((warm.at(-1)!.rss - warm[0].rss) / (warm.at(-1)!.s - warm[0].s)) * 60 : NaN;
  console.log(`requests/s ${fmt(result.requests.average, 0)}, p99 ${result.latency.p99} ms, statuses ${JSON.stringify(statuses)}, errors ${result.errors + result.timeouts}`);
  console.log(`serve RSS: before ${fmt(before, 0)} MiB, peak ${fmt(Math.max(...samples.map((x) => x.rss)), 0)} MiB, end ${fmt(samples.at(-1)?.rss ?? NaN, 0)} MiB; second half ${fmt(slope, 1)} MiB/min`);
  return 0;
}
