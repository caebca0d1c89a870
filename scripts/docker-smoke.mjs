// CI's stand-in for `docker build` + `docker compose up` where no Docker engine runs: follows the
// Dockerfile's own instructions (WORKDIR, COPY, RUN, ENV, ENTRYPOINT, CMD; USER is not followed:
// the processes run as the caller) in a clean temporary directory — the install with the committed
// lock included — then starts the image's default command (`serve`) and `worker` against a private
// redis-server, as docker-compose.yml does, and waits for /readyz 200. Exits 0 when the image would
// start, 1 with the reason otherwise.
//
//   node scripts/docker-smoke.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const READY_MS = 60_000;

function fail(message) {
  process.stderr.write(`docker-smoke: ${message}\n`);
  process.exitCode = 1;
}

/** The Dockerfile as instructions: [keyword, argument text], continuation lines joined. */
function instructions(text) {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return [keyword.toUpperCase(), rest.join(' ')];
    });
}

/** The files `COPY . .` sends: what git has (tracked and untracked-not-ignored) less .dockerignore. */
function contextFiles() {
  const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const patterns = ignore.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`));
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter((f) => f && !patterns.some((re) => re.test(f)));
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function until(what, ms, check) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within ${ms / 1000} s`);
}

const work = mkdtempSync(join(tmpdir(), 'kcs-docker-smoke-'));
const children = [];
try {
  let cwd = work;
  const env = { PATH: process.env.PATH, HOME: process.env.HOME ?? work };
  let entrypoint = [];
  let cmd = [];
  for (const [keyword, arg] of instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))) {
    if (keyword === 'WORKDIR') {
      cwd = join(work, arg);
      mkdirSync(cwd, { recursive: true });
    } else if (keyword === 'COPY') {
      const parts = arg.split(/\s+/);
      const sources = parts.slice(0, -1);
      for (const source of sources) {
        const files = source === '.' ? contextFiles() : [source];
        for (const file of files) cpSync(join(ROOT, file), join(cwd, file), { recursive: true });
      }
    } else if (keyword === 'RUN') {
      console.log(`docker-smoke: RUN ${arg}`);
      const run = spawnSync('sh', ['-c', arg], { cwd, env, stdio: 'inherit' });
      if (run.status !== 0) throw new Error(`RUN ${arg} exited ${run.status}`);
    } else if (keyword === 'ENV') {
      for (const [, k, v] of arg.matchAll(/(\w+)=(\S+)/g)) env[k] = v;
    } else if (keyword === 'ENTRYPOINT') {
      entrypoint = JSON.parse(arg);
    } else if (keyword === 'CMD') {
      cmd = JSON.parse(arg);
    }
  }
  if (entrypoint.length === 0) throw new Error('the Dockerfile has no ENTRYPOINT');

  // The Redis of docker-compose: a private redis-server on a free loopback port.
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', work], { stdio: 'ignore' });
  children.push(redis);
  const port = await freePort();
  // As docker-compose runs the image; loopback instead of the image's 0.0.0.0, since nothing outside reaches this machine.
  const runEnv = { ...env, REDIS_URL: `redis://127.0.0.1:${redisPort}`, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const start = (args) => {
    const child = spawn(join(cwd, entrypoint[0]), [...entrypoint.slice(1), ...args], { cwd, env: runEnv, stdio: ['ignore', 'inherit', 'inherit'] });
    children.push(child);
    return child;
  };
  console.log(`docker-smoke: ${[...entrypoint, ...cmd].join(' ')} (and worker)`);
  const serve = start(cmd);
  const worker = start(['worker']);
  await until('GET /readyz 200 from the image\'s serve', READY_MS, async () => {
    if (serve.exitCode !== null) throw new Error(`serve exited with ${serve.exitCode}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    return res.status === 200;
  });
  if (worker.exitCode !== null) throw new Error(`worker exited with ${worker.exitCode}`);
  console.log('docker-smoke: the image installs from the lock and serves (/readyz 200), its worker runs');
} catch (error) {
  fail(error.message);
} finally {
  // Newest first, each one gone before the next is stopped: the worker and serve shut down while
  // their Redis still answers (stopped together, they logged a refused connection per retry).
  for (const child of children.reverse()) await stop(child);
  rmSync(work, { recursive: true, force: true });
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
