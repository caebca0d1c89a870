// HTTP benchmark: kcs's GET /api/knowledge/sites/{id} (tenant from Host, API-key auth, the site
// from Redis) on each HTTP front against a bare server of the same kind answering the same bytes:
// kcs on uWebSockets.js against a bare uWS app, kcs on node:http against a bare node:http server.
// Servers, ceilings and redis-server each run in their own process; this process only generates
// load (autocannon) and reports, with each process's CPU time a request. Everything talks over 127.0.0.1.
//
//   npm run bench:http                      5 s per run after a 1 s warm-up
//   BENCH_SECONDS=10 npm run bench:http     longer runs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { fmt, noteOtherLoad, positiveInt, runBench, type Undo } from './support/harness.js';
import { startKcs } from './support/kcs.js';
import { warmThenLoad, type LoadResult } from './support/load.js';
import { redisVersion } from './support/proc.js';
import { startBenchStack } from './support/stack.js';

const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = [1, 64];
const HOST = '127.0.0.1';
const FRONTS = ['uws', 'node'] as const;
type Front = (typeof FRONTS)[number];
/** What each server writes itself, left out of the bytes the bare ceiling is given (it writes them itself too). */
const AUTOMATIC: Record<Front, Set<string>> = { uws: new Set(['date', 'uwebsockets', 'content-length']), node: new Set(['date', 'connection']) };

interface Run extends LoadResult {
  front: Front;
  target: 'kcs' | 'bare';
  connections: number;
}

// Bounded even if something hangs: startup, every run, and a margin.
runBench('bench:http', (FRONTS.length * CONNECTIONS.length * 2 * (SECONDS + WARMUP_SECONDS + 15) + 120) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const { redis, serve, siteId } = await startBenchStack(undo, 'http', { env: { KCS_HTTP: 'uws' } });
  const serveNode = await startKcs(undo, 'serve', { redis: redis.at, env: { KCS_HTTP: 'node' } });
  const { key, host } = serve;
  const path = `/api/knowledge/sites/${siteId}`;
  const headers = { host, authorization: `Bearer ${key}` };
  // The request bytes autocannon sends (see autocannon/lib/httpRequestBuilder.js): used once
  // per target to capture and compare the responses on the wire.
  const rawRequest = `GET ${path} HTTP/1.1\r\nConnection: keep-alive\r\nhost: ${headers.host}\r\nauthorization: ${headers.authorization}\r\n\r\n`;

  const kcs: Record<Front, { port: number; pid: number | undefined }> = { uws: { port: serve.port, pid: serve.pid }, node: { port: serveNode.port, pid: serveNode.pid } };
  const bare: Record<Front, { port: number; pid: number | undefined }> = { uws: { port: 0, pid: undefined }, node: { port: 0, pid: undefined } };
  let bytes = 0;
  for (const front of FRONTS) {
    const raw = await rawExchange(kcs[front].port, rawRequest);
    const response = parseResponse(raw);
    if (!response.status.startsWith('200 ')) throw new Error(`kcs (${front}) answered ${response.status}: ${response.body}`);
    if ((JSON.parse(response.body) as { id?: string }).id !== siteId) throw new Error(`unexpected body: ${response.body}`);
    bytes = Buffer.byteLength(raw);
    const fixed = { status: response.status, headers: response.headers.filter(([name]) => !AUTOMATIC[front].has(name.toLowerCase())), body: response.body };
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/support/bare.ts'], {
      env: { ...process.env, BENCH_RESPONSE: JSON.stringify(fixed), BENCH_BARE: front }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    undo(() => void child.kill());
    // Its first line is its port; exiting instead, it failed to start.
    const started = await Promise.race([once(child.stdout!, 'data').then(([line]) => String(line)), once(child, 'exit').then(() => '')]);
    bare[front] = { port: Number(started), pid: child.pid };
    if (!bare[front].port) throw new Error(`the bare ${front} ceiling did not start`);
    // Same bytes on the wire, apart from the Date and the (per-request) X-Request-Id values.
    const normalise = (text: string) => text.replace(/\r\n(Date|X-Request-Id): [^\r]*/gi, '\r\n$1: *');
    const bareRaw = await rawExchange(bare[front].port, rawRequest);
    if (normalise(raw) !== normalise(bareRaw)) throw new Error(`the ${front} ceiling's response differs from kcs's:\n--- kcs\n${raw}\n--- bare\n${bareRaw}`);
  }

  console.log(
    `bench:http  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s per run, response ~${bytes} bytes\n` +
      `GET ${path}  Host: ${headers.host}\n`,
  );

  const runs: Run[] = [];
  for (const front of FRONTS) {
    for (const connections of CONNECTIONS) {
      for (const target of ['kcs', 'bare'] as const) {
        const at = target === 'kcs' ? kcs[front] : bare[front];
        const watched: Record<string, number | undefined> = { 'load generator': process.pid, [target]: at.pid };
        if (target === 'kcs') watched['redis-server'] = redis.pids['redis-server'];
        const options = { url: `http://${HOST}:${at.port}${path}`, headers, connections };
        const label = `${front.padEnd(4)} ${target.padEnd(4)} c=${String(connections).padEnd(3)}`;
        runs.push({ front, target, connections, ...(await warmThenLoad(label, options, WARMUP_SECONDS, SECONDS, watched)) });
      }
    }
  }

  console.log(`\n${table(runs)}`);
  noteOtherLoad(runs.map((r) => r.cpu));
  const failed = runs.filter((r) => r.target === 'kcs' && (r.non2xx > 0 || r.errors > 0));
  if (failed.length > 0) {
    console.error(`\nkcs answered non-2xx or failed requests in ${failed.length} run(s): the figures above are not valid`);
    return 1;
  }
  return 0;
}

/** CPU microseconds a request of the server's process (and Redis's, for kcs). */
const cpuPerRequest = (r: Run, name: string) => (r.cpu[name] === undefined || r.rps === 0 ? NaN : (r.cpu[name] * 1e6) / r.rps);

function table(runs: Run[]): string {
  const rows = runs.map((r) => {
    const ceiling = runs.find((b) => b.front === r.front && b.target === 'bare' && b.connections === r.connections);
    const share = r.target === 'bare' ? 'ceiling' : ceiling ? `${fmt(r.rps / ceiling.rps, 2)}×` : 'n/a';
    const redisCpu = r.target === 'kcs' ? fmt(cpuPerRequest(r, 'redis-server'), 0) : '';
    return `| ${r.front} | ${r.target} | ${r.connections} | ${fmt(r.rps, 0)} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} | ${fmt(cpuPerRequest(r, r.target), 0)} | ${redisCpu} | ${share} |`;
  });
  return [
    '| front | server | connections | req/s | p50 ms | p99 ms | server CPU µs/req | Redis CPU µs/req | ÷ bare of its front |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

// ---- helpers ----

/** Sends one request on a fresh connection; the complete response (head and Content-Length body). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST);
    let data = Buffer.alloc(0);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no complete response from port ${port} in 5 s`)));
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(data.subarray(0, headEnd).toString('latin1'));
      const total = headEnd + 4 + (length ? Number(length[1]) : 0);
      if (data.length >= total) {
        socket.destroy();
        resolve(data.subarray(0, total).toString('utf8'));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`port ${port} closed the connection before a complete response`)));
  });
}

function parseResponse(raw: string): { status: string; headers: [string, string][]; body: string } {
  const headEnd = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, headEnd).split('\r\n');
  return {
    status: statusLine.replace(/^HTTP\/1\.1 /, ''),
    headers: lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    }),
    body: raw.slice(headEnd + 4),
  };
}
