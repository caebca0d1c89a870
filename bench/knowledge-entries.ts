// Knowledge entries: create throughput over HTTP while filling a tenant with 100,000 entries,
// then list throughput and latency on that tenant, unfiltered and with filters, with the same
// requests against raw Redis in the same run as the floor of what a list can cost.
//
//   npm run bench:knowledge-entries            (BENCH_ENTRIES=100000 BENCH_SECONDS=5 by default)
//
// kcs runs as a real `kcs serve` child process (its first-start key is read from stdout) against
// a private redis-server; the load generator (autocannon) runs in this process. 127.0.0.1 only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '../src/store/embeddedRedis.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory'];
const VISIBILITIES = ['public', 'community', 'internal', 'restricted'];
const LAYERS = ['core', 'ops', 'sales', 'support'];

interface Row { name: string; rps: number; p50: number; p99: number; errors: number }
const rows: Row[] = [];

function call(port: number, host: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest({
      host: '127.0.0.1', port, method, path,
      headers: { host, authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function load(name: string, opts: autocannon.Options): Promise<void> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (error, result) => {
      if (error) return reject(error);
      const row = { name, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors };
      rows.push(row);
      console.log(`${name}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx/errors ${row.errors}`);
      resolve();
    });
  });
}

/** The same operation against raw Redis, timed per call (the floor of what kcs adds to). */
async function raw(name: string, op: () => Promise<unknown>, n = 2000): Promise<void> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const row = { name, rps: Math.round(n / ((performance.now() - started) / 1000)), p50: +times[Math.floor(n * 0.5)].toFixed(2), p99: +times[Math.floor(n * 0.99)].toFixed(2), errors: 0 };
  rows.push(row);
  console.log(`${name}: ${row.rps} ops/s (sequential), p50 ${row.p50} ms, p99 ${row.p99} ms`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-knowledge-'));
  let redis: EmbeddedRedis | null = null;
  let serve: ChildProcess | null = null;
  const stop = async () => {
    serve?.kill('SIGTERM');
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = setTimeout(() => {
    console.error('bench: overall time limit reached');
    void stop().finally(() => process.exit(2));
  }, 15 * 60_000);
  try {
    redis = await startEmbeddedRedis(dir, { persist: false });
    const port = await freePort();
    serve = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      env: { ...process.env, REDIS_URL: redis.url, PORT: String(port), LOG_LEVEL: 'silent', KCS_EMBEDDER: 'none' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    serve.stdout!.on('data', (c: Buffer) => (out += c));
    const key = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /kcs_[\w-]+/.exec(out);
        if (match) { clearInterval(timer); resolve(match[0]); }
      }, 50);
      serve!.once('exit', (code) => reject(new Error(`kcs serve exited with ${code}`)));
    });
    const host = `demo.localhost:${port}`;
    const base = `http://127.0.0.1:${port}`;
    const headers = { host, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const categories: string[] = [];
    for (let i = 0; i < 20; i++) categories.push((await call(port, host, 'POST', '/api/knowledge/categories', key, { name: `Category ${i}` })).json.id);
    const projects = Array.from({ length: 10 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

    let n = 0;
    const entry = () => {
      const i = n++;
      return JSON.stringify({
        title: `Entry ${i}: how to handle case ${i % 997}`,
        content: `Step by step description number ${i}. `.repeat(8),
        category_id: categories[i % categories.length],
        visibility: VISIBILITIES[i % VISIBILITIES.length],
        type: TYPES[i % TYPES.length],
        layer: LAYERS[i % LAYERS.length],
        tags: ['bench', `t${i % 50}`],
        project_ids: [projects[i % projects.length]],
        language: 'en',
      });
    };
    console.log(`creating ${ENTRIES} entries over HTTP at ${CONNECTIONS * 2} connections…`);
    await load(`create (POST, ${CONNECTIONS * 2} conns, ${ENTRIES} entries)`, {
      url: `${base}/api/knowledge/knowledge-entries`, connections: CONNECTIONS * 2, amount: ENTRIES,
      requests: [{ method: 'POST', headers, setupRequest: (req) => ({ ...req, body: entry() }) }],
    });
    const total = (await call(port, host, 'GET', '/api/knowledge/knowledge-entries?limit=1', key)).json;
    if (!Array.isArray(total)) throw new Error('list failed');

    const lists: [string, string][] = [
      ['list, no filter (all-scopes key)', '/api/knowledge/knowledge-entries?limit=50'],
      ['list, offset 50,000', '/api/knowledge/knowledge-entries?limit=50&offset=50000'],
      ['list, type', '/api/knowledge/knowledge-entries?type=skill&limit=50'],
      ['list, category + type', `/api/knowledge/knowledge-entries?category_id=${categories[3]}&type=process&limit=50`],
      ['list, project + layer + visibility', `/api/knowledge/knowledge-entries?project_id=${projects[2]}&layer=ops&visibility=internal&limit=50`],
    ];
    for (const [name, path] of lists) {
      await load(`${name} (${CONNECTIONS} conns)`, { url: `${base}${path}`, connections: CONNECTIONS, duration: SECONDS, headers: { host, authorization: `Bearer ${key}` } });
    }
    // A caller without visibility scopes sees only the public quarter.
    const publicKey = (await call(port, host, 'POST', '/api/knowledge/api-keys', key, { name: 'reader', scopes: ['knowledge:read'] })).json.key as string;
    await load(`list, public-only key (${CONNECTIONS} conns)`, {
      url: `${base}/api/knowledge/knowledge-entries?limit=50`, connections: CONNECTIONS, duration: SECONDS, headers: { host, authorization: `Bearer ${publicKey}` },
    });

    // The floor: the same page straight from Redis (one sorted set, then the documents).
    const client = new Redis(redis.url);
    const [tenantKey] = await client.keys('kcs:{t:*}:entries:type:skill');
    const prefix = tenantKey.slice(0, tenantKey.indexOf(':entries:'));
    await raw('raw Redis: ZRANGE 50 of one type + HMGET docs', async () => {
      const ids = await client.zrange(`${prefix}:entries:type:skill`, '0', '49');
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.hmget(`${prefix}:entry:${id}`, 'doc', 'rev');
      await pipeline.exec();
    });
    await raw('raw Redis: ZUNIONSTORE of the 4 visibility sets + ZRANGE 50', async () => {
      const tmp = `${prefix}:entries:tmp:raw`;
      await client.multi().zunionstore(tmp, 4, ...VISIBILITIES.map((v) => `${prefix}:entries:visibility:${v}`)).zrange(tmp, '0', '49').unlink(tmp).exec();
    }, 300);
    client.disconnect();

    console.log(`\n| measurement (${ENTRIES.toLocaleString('en')} entries) | req/s | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|`);
    for (const r of rows) console.log(`| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
    if (rows.some((r) => r.errors > 0)) process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
