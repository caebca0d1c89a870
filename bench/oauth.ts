// OAuth benchmark: the token endpoint under refresh_token grants (every request presents a refresh
// token never used before and gets the next one: rotation with reuse detection, one Lua script per
// grant), and the cost of verifying an OAuth access token against an API key on the same API route
// (GET /api/knowledge/sites/{id}), both in the same run. kcs and its redis-server run in their own
// processes; this process registers a client, runs the consent step over HTTP and generates the load.
//
//   npm run bench:oauth                      5 s per run after a 1 s warm-up
//   BENCH_SECONDS=10 npm run bench:oauth     longer runs
import { createHash, randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import type autocannon from 'autocannon';
import { fmt, noteOtherLoad, positiveInt, runBench, type Undo } from './support/harness.js';
import { request } from './support/http.js';
import { warmThenLoad, type LoadResult } from './support/load.js';
import { redisVersion } from './support/proc.js';
import { startBenchStack } from './support/stack.js';

const SECONDS = positiveInt('BENCH_SECONDS', 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = [1, 64];
const REDIRECT = 'http://127.0.0.1:9/callback';

interface Row {
  name: string;
  connections: number;
  result: LoadResult;
}

runBench('bench:oauth', (CONNECTIONS.length * 3 * (SECONDS + WARMUP_SECONDS + 15) + 120) * 1000, main);

async function main(undo: Undo): Promise<number> {
  // The endpoint itself is measured: its rate limits per caller address are off (every request here comes from 127.0.0.1).
  const env = { KCS_EMBEDDER: 'none', KCS_OAUTH_RATE_PER_S: '0', KCS_OAUTH_ADDRESS_RATE_PER_S: '0' };
  const { redis, serve, siteId } = await startBenchStack(undo, 'oauth', { env });
  const { port, key, host } = serve;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  undo(() => agent.destroy());
  const call = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    request(port, { method, path, headers: { host, ...headers }, body, agent });

  // A public client (token_endpoint_auth_method none), as MCP clients register.
  const registered = await call('POST', '/oauth/register', { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }));
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${registered.body}`);
  const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;

  /** One authorization (consent with the all-scopes key) → its token response. */
  const authorize = async (): Promise<{ access_token: string; refresh_token: string }> => {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 's', scope: 'catalog:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    const page = await call('GET', `/oauth/authorize?${query}`, {});
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.body)?.[1] ?? '';
    const cookie = /^[^;]+/.exec(String(page.headers['set-cookie'] ?? ''))?.[0] ?? '';
    const form = new URLSearchParams({ request_id: field('request_id'), csrf_token: field('csrf_token'), api_key: key, decision: 'approve' });
    const answer = await call('POST', '/oauth/authorize', { 'content-type': 'application/x-www-form-urlencoded', cookie }, form.toString());
    const code = new URL(String(answer.headers.location ?? 'http://x/')).searchParams.get('code');
    if (answer.status !== 302 || !code) throw new Error(`consent answered ${answer.status}: ${answer.body}`);
    const tokens = await call('POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT, code, code_verifier: verifier }).toString());
    if (tokens.status !== 200) throw new Error(`token endpoint answered ${tokens.status}: ${tokens.body}`);
    return JSON.parse(tokens.body);
  };

  // Refresh tokens never used before. Each refresh answer puts its new refresh token back, so the
  // pool stays full however long a run lasts; every token is presented exactly once. A run ends with
  // one request in flight per connection, whose new token is never seen: topped up before each run.
  const pool: string[] = [];
  let grants = 0;
  const topUp = async (size: number) => {
    while (pool.length < size) {
      const batch = await Promise.all(Array.from({ length: Math.min(16, size - pool.length) }, authorize));
      pool.push(...batch.map((t) => t.refresh_token));
      grants += batch.length;
    }
  };
  const { access_token: accessToken } = await authorize();

  const sitePath = `/api/knowledge/sites/${siteId}`;
  for (const [name, credential] of [['API key', key], ['OAuth token', accessToken]]) {
    const res = await call('GET', sitePath, { authorization: `Bearer ${credential}` });
    if (res.status !== 200) throw new Error(`${name} on ${sitePath} answered ${res.status}: ${res.body}`);
  }

  const refreshRequest: autocannon.Request = {
    method: 'POST',
    path: '/oauth/token',
    setupRequest: (req) => {
      const token = pool.shift();
      if (!token) throw new Error('the refresh token pool ran dry');
      return { ...req, body: `grant_type=refresh_token&client_id=${clientId}&refresh_token=${token}` };
    },
    onResponse: (status, body) => {
      if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
    },
  };
  const base = `http://127.0.0.1:${port}`;
  const targets: { name: string; options: autocannon.Options }[] = [
    {
      name: 'token endpoint: refresh_token grant',
      options: { url: `${base}/oauth/token`, method: 'POST', headers: { host, 'content-type': 'application/x-www-form-urlencoded' }, requests: [refreshRequest] },
    },
    { name: `GET ${'/api/knowledge/sites/{id}'} with an API key`, options: { url: `${base}${sitePath}`, headers: { host, authorization: `Bearer ${key}` } } },
    { name: `GET ${'/api/knowledge/sites/{id}'} with an OAuth access token`, options: { url: `${base}${sitePath}`, headers: { host, authorization: `Bearer ${accessToken}` } } },
  ];

  console.log(
    `bench:oauth  ${availableParallelism()} cores, Node ${process.version}, ${redisVersion()}, ` +
      `${WARMUP_SECONDS} s warm-up + ${SECONDS} s per run\n`,
  );
  const watched = { 'load generator': process.pid, kcs: serve.pid, ...redis.pids };
  const rows: Row[] = [];
  for (const connections of CONNECTIONS) {
    for (const target of targets) {
      if (target.options.requests) await topUp(2 * connections + 16);
      const result = await warmThenLoad(`${target.name.padEnd(52)} c=${String(connections).padEnd(3)}`, { ...target.options, connections }, WARMUP_SECONDS, SECONDS, watched);
      rows.push({ name: target.name, connections, result });
    }
  }

  // Every refresh token was presented once only: the grants are alive (no reuse was detected).
  await topUp(1);
  const check = await call('POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' },
    `grant_type=refresh_token&client_id=${clientId}&refresh_token=${pool[0]}`);
  if (check.status !== 200) throw new Error(`a pooled refresh token was refused after the runs (${check.status}: ${check.body})`);

  console.log(`\n${table(rows)}\n\n${grants} grants (one consent each) fed the refresh runs.`);
  for (const connections of CONNECTIONS) {
    const byKey = rows.find((r) => r.connections === connections && r.name.includes('API key'))!.result;
    const byToken = rows.find((r) => r.connections === connections && r.name.includes('OAuth'))!.result;
    console.log(
      `c=${connections}: OAuth token vs API key: ${fmt((100 * (byToken.rps - byKey.rps)) / byKey.rps, 1)} % req/s, ` +
        `p50 ${fmt(byToken.p50 - byKey.p50, 3)} ms, kcs CPU ${fmt(cpuPerRequest(byToken) - cpuPerRequest(byKey), 1)} µs per request`,
    );
  }
  noteOtherLoad(rows.map((r) => r.result.cpu));
  const failed = rows.filter((r) => r.result.non2xx > 0 || r.result.errors > 0);
  if (failed.length > 0) {
    console.error(`\nnon-2xx or failed requests in ${failed.length} run(s): the figures above are not valid`);
    return 1;
  }
  return 0;
}

/** kcs CPU time per answered request, in µs. */
const cpuPerRequest = (r: LoadResult) => ((r.cpu.kcs ?? NaN) / r.rps) * 1e6;

function table(rows: Row[]): string {
  const lines = rows.map((r) =>
    `| ${r.name} | ${r.connections} | ${fmt(r.result.rps, 0)} | ${fmt(r.result.p50, 3)} | ${fmt(r.result.p99, 3)} | ${fmt(cpuPerRequest(r.result), 0)} |`);
  return ['| measurement | connections | req/s | p50 ms | p99 ms | kcs CPU µs/req |', '|---|---:|---:|---:|---:|---:|', ...lines].join('\n');
}
