// `npm start` with no REDIS_URL: the embedded redis-server, first-start bootstrap, a restart
// that keeps the data, and a clean stop that leaves no process behind.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, isAlive } from '../../src/store/embeddedRedis.js';
import { CliProcess, httpJson, runCli } from '../helpers/process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'kcs-start-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));


async function startKcs(port: number): Promise<CliProcess> {
  const env = { PORT: String(port), KCS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: '', KCS_SHUTDOWN_GRACE_MS: '1000' };
  const kcs = new CliProcess(['start'], env);
  await kcs.until(async () => (await httpJson(port, 'localhost', 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 30_000, '/readyz');
  return kcs;
}

test('npm start serves with an embedded redis-server and restarts with its data intact', async () => {
  const port = await freePort();
  const first = await startKcs(port);
  let redisPid = 0;
  try {
    await first.until(() => /kcs_[\w-]+/.test(first.stdout), 10_000, 'the first-start key');
    const key = /kcs_[\w-]+/.exec(first.stdout)![0];
    assert.match(first.stdout, new RegExp(`curl -H "Authorization: Bearer ${key}" http://demo\\.localhost:${port}/api/knowledge/sites`));

    const host = `demo.localhost:${port}`;
    const created = await httpJson(port, host, 'POST', '/api/knowledge/sites', key, { slug: 'kept', name: 'Kept', language: 'en' });
    assert.equal(created.status, 201);

    redisPid = Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8'));
    assert.ok(isAlive(redisPid), 'the embedded redis-server runs');
    assert.ok(existsSync(join(dataDir, 'redis', 'appendonlydir')), 'append-only persistence is on');

    assert.equal(await first.stop(), 0);
    assert.ok(!isAlive(redisPid), 'stopping kcs stops its redis-server');

    const second = await startKcs(port);
    try {
      const got = await httpJson(port, host, 'GET', '/api/knowledge/sites/kept', key);
      assert.equal(got.status, 200, 'the site and the key survive the restart');
      assert.equal(got.body.id, created.body.id);
      assert.doesNotMatch(second.stdout, /First start/, 'no second bootstrap on a non-empty store');
    } finally {
      assert.equal(await second.stop(), 0);
    }
  } finally {
    await first.stop();
  }
});

test('the forked workers run below the server: imports at KCS_INGEST_NICE (10), the model at KCS_EMBED_NICE (19)', async () => {
  const port = await freePort();
  const kcs = await startKcs(port);
  try {
    const workers = () => new Map(childrenOf(kcs.child.pid!).flatMap((pid) => {
      const queues = /KCS_WORKER_QUEUES=([^\0]*)/.exec(readProc(pid, 'environ'))?.[1];
      return queues ? [[queues, niceOf(pid)] as const] : [];
    }));
    const expected = new Map([['ingest,maintenance', 10], ['embed', 19]]);
    // Each worker lowers itself as it starts, a moment after the server answers.
    await kcs.until(() => [...expected].every(([queues, nice]) => workers().get(queues) === nice), 20_000, 'the workers\' priorities');
    assert.equal(niceOf(kcs.child.pid!), 0, 'the server keeps its priority');
  } finally {
    assert.equal(await kcs.stop(), 0, kcs.stderr);
  }
});

const readProc = (pid: number, file: string): string => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
};
const childrenOf = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) => readProc(pid, `task/${task}/children`).trim().split(/\s+/).filter(Boolean).map(Number));
/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat, counted after the command name). */
const niceOf = (pid: number): number => Number(readProc(pid, 'stat').split(') ')[1]?.split(' ')[16]);

test('after kill -9 of kcs, the next start takes over the orphaned redis-server and keeps the data', async () => {
  const port = await freePort();
  const first = await startKcs(port);
  const orphan = Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8'));
  first.child.kill('SIGKILL');
  await new Promise((done) => first.child.once('exit', done));
  assert.ok(isAlive(orphan), 'redis-server outlives a SIGKILLed parent');

  const second = await startKcs(port);
  try {
    assert.ok(!isAlive(orphan), 'the orphan was stopped');
    const tenants = await runTenantCount();
    assert.ok(tenants >= 1, 'the data written before the kill is there');
  } finally {
    const code = await second.stop();
    assert.equal(code, 0, second.stderr);
  }
});

/** Tenants in the store of dataDir, through the admin CLI attached to the running embedded server. */
async function runTenantCount(): Promise<number> {
  const run = await runCli(['admin', 'tenant', 'list'], { KCS_DATA_DIR: dataDir, REDIS_URL: '' });
  assert.equal(run.code, 0, run.stderr);
  return (JSON.parse(run.stdout) as unknown[]).length;
}

test('without redis-server on PATH, start fails with one clear line', async () => {
  // A PATH with node on it and nothing else.
  const bin = join(dataDir, 'node-only-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  const kcs = new CliProcess(['start'], { PATH: bin, KCS_DATA_DIR: dataDir, REDIS_URL: '' });
  const code = await new Promise((done) => kcs.child.once('exit', done));
  assert.equal(code, 1);
  assert.match(kcs.stderr, /redis-server was not found on PATH.*apt-get install -y redis-server.*REDIS_URL/);
});

test('bad configuration is reported per variable', async () => {
  const kcs = new CliProcess(['serve'], { PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'http://x' });
  const code = await new Promise((done) => kcs.child.once('exit', done));
  assert.equal(code, 1);
  assert.match(kcs.stderr, /PORT="eighty" must be an integer/);
  assert.match(kcs.stderr, /LOG_LEVEL="loud" must be one of/);
  assert.match(kcs.stderr, /REDIS_URL="http:\/\/x" must be a redis:\/\//);
});

test('a model directory that holds no model is a configuration error, said before anything starts', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'kcs-no-model-'));
  try {
    const kcs = new CliProcess(['serve'], { KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: empty, REDIS_URL: 'redis://127.0.0.1:1' });
    const code = await new Promise((done) => kcs.child.once('exit', done));
    assert.equal(code, 1);
    assert.match(kcs.stderr, /Invalid configuration:\n {2}- KCS_ONNX_MODEL_DIR: .* holds no ONNX model/);
    assert.doesNotMatch(kcs.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
