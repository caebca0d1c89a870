// HTTP benchmark: kcs's GET /api/knowledge/sites/{id} (tenant from Host, API-key auth, the site
// from Redis) against a bare uWebSockets.js app answering the same bytes, the ceiling of this
// machine. Server, ceiling and redis-server each run in their own process; this process only
// generates load (autocannon) and reports. Everything talks over 127.0.0.1.
//
//   npm run bench:http                      5 s per run after a 1 s warm-up
//   BENCH_SECONDS=10 npm run bench:http     longer runs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { fmt, noteOtherLoad, positiveInt, runBench, type Undo } from './support/harness.js';
import { warmThenLoad, type LoadResult } from './support/load.js';
import { redisVersion } from './support/proc.js';
import { startBenchStack } from './support/stack.js';

const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = [1, 64];
const HOST = '127.0.0.1';

interface Run extends LoadResult {
  target: 'kcs' | 'bare uWS';
  connections: number;
}

// Bounded even if something hangs: startup, every run, and a margin.
runBench('bench:http', (CONNECTIONS.length * 2 * (SECONDS + WARMUP_SECONDS + 15) + 90) * 1000, main);

async function main(undo: Undo): Promise<number> {
  const { redis, serve, siteId } = await startBenchStack(undo, 'http');
  const { port, key, host } = serve;

  const path = `/api/knowledge/sites/${siteId}`;
  const headers = { host, authorization: `Bearer ${key}` };
  // The request bytes autocannon sends (see autocannon/lib/httpRequestBuilder.js): used once
  // per target to capture and compare the responses on the wire.
  const rawRequest = `GET ${path} HTTP/1.1\r\nConnection: keep-alive\r\nhost: ${headers.host}\r\nauthorization: ${headers.authorization}\r\n\r\n`;

  const kcsResponse = parseResponse(await rawExchange(port, rawRequest));
  if (!kcsResponse.status.startsWith('200 ')) throw new Error(`kcs answered ${kcsResponse.status}: ${kcsResponse.body}`);
  if ((JSON.parse(kcsResponse.body) as { id?: string }).id !== siteId) throw new Error(`unexpected body: ${kcsResponse.body}`);

  // uWS writes Date, uWebSockets and Content-Length itself, for kcs and the ceiling alike.
  const automatic = new Set(['date', 'uwebsockets', 'content-length']);
  const response = { status: kcsResponse.status, headers: kcsResponse.headers.filter(([name]) => !automatic.has(name.toLowerCase())), body: kcsResponse.body };
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/support/bare.ts'], {
    env: { ...process.env, BENCH_RESPONSE: JSON.stringify(response) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  undo(() => void bare.kill());
  // Its first line is its port; exiting instead, it failed to start.
  const started = await Promise.race([once(bare.stdout!, 'data').then(([line]) => String(line)), once(bare, 'exit').then(() => '')]);
  const barePort = Number(started);
  if (!barePort) throw new Error('the bare uWS ceiling did not start');

  // Same bytes on the wire, apart from the Date and the (per-request) X-Request-Id values.
  const normalise = (raw: string) => raw.replace(/\r\n(Date|X-Request-Id): [^\r]*/gi, '\r\n$1: *');
  const [kcsRaw, bareRaw] = [await rawExchange(port, rawRequest), await rawExchange(barePort, rawRequest)];
  if (normalise(kcsRaw) !== normalise(bareRaw)) {
    throw new Error(`the ceiling's response differs from kcs's:\n--- kcs\n${kcsRaw}\n--- bare\n${bareRaw}`);
  }

  const pids: Record<string, number | undefined> = { 'kcs': serve.pid, 'bare uWS': bare.pid, ...redis.pids };
  console.log(
    `bench:http  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s per run, response ${Buffer.byteLength(kcsRaw)} bytes\n` +
      `GET ${path}  Host: ${headers.host}\n`,
  );

  const runs: Run[] = [];
  for (const connections of CONNECTIONS) {
    for (const [target, targetPort] of [['kcs', port], ['bare uWS', barePort]] as const) {
      const watched: Record<string, number | undefined> = { 'load generator': process.pid, [target]: pids[target] };
      if (target === 'kcs') watched['redis-server'] = pids['redis-server'];
      const options = { url: `http://${HOST}:${targetPort}${path}`, headers, connections };
      runs.push({ target, connections, ...(await warmThenLoad(`${target.padEnd(8)} c=${String(connections).padEnd(3)}`, options, WARMUP_SECONDS, SECONDS, watched)) });
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

function table(runs: Run[]): string {
  const ceiling = (c: number) => runs.find((r) => r.target === 'bare uWS' && r.connections === c)?.rps;
  const rows = runs.map((r) => {
    const base = ceiling(r.connections);
    const share = r.target === 'bare uWS' ? 'ceiling' : base ? `${fmt((100 * r.rps) / base, 0)} %` : 'n/a';
    return `| ${r.target} | ${r.connections} | ${fmt(r.rps, 0)} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} | ${share} |`;
  });
  return ['| target | connections | req/s | p50 ms | p99 ms | % of bare ceiling |', '|---|---:|---:|---:|---:|---:|', ...rows].join('\n');
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
