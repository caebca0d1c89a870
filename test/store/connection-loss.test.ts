// The app's Redis connection when its server goes away under it: a command in flight fails at once
// (its request answers 503), and is never sent again on its own once the server is back, however
// long that takes. (A server restarted with an AOF to load kept a search waiting 7 s: it accepted
// the connection at once and said it was loading, and ioredis held the command until it was ready.)
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { connectRedis, isUnavailable } from '../../src/store/redis.js';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  return port;
}

async function redisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(true)).listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
    });
    if (up) return child;
    await delay(50);
  }
  throw new Error('redis-server did not start');
}

const sockets = new Set<import('node:net').Socket>();

/** A server on the port that, like redis-server loading its AOF, accepts at once and says it is loading. */
async function loadingServer(port: number): Promise<Server> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (bytes: Buffer) => {
      const info = '# Persistence\r\nloading:1\r\nloading_eta_seconds:1\r\n';
      // Every command of the chunk answered: INFO with the loading state, anything else refused as loading.
      for (const command of bytes.toString('latin1').split('*').slice(1)) {
        socket.write(/\binfo\b/i.test(command) ? `$${info.length}\r\n${info}\r\n` : '-LOADING Redis is loading the dataset in memory\r\n');
      }
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

test('a command in flight when the server dies fails as unavailable, and is not sent again to the server that comes back', { timeout: 30_000 }, async () => {
  const port = await freePort();
  let redisProcess = await redisServer(port);
  const redis = connectRedis(`redis://127.0.0.1:${port}`);
  await redis.connect();
  let loading: Server | null = null;
  try {
    await redis.set('marker', 'before');
    await redis.del('marker');
    // A command that waits on the server (the list stays empty), and a write queued behind it.
    const blocked = redis.blpop('never-filled', 3).then(() => 'answered', (error: Error) => error);
    const queuedWrite = redis.set('marker', 'written-late').then(() => 'answered', (error: Error) => error);
    await delay(100);
    redisProcess.kill('SIGKILL');
    await once(redisProcess, 'exit');
    loading = await loadingServer(port);
    const [blockedOutcome, writeOutcome] = await Promise.all([blocked, queuedWrite]);
    assert.ok(blockedOutcome instanceof Error && isUnavailable(blockedOutcome), String(blockedOutcome));
    assert.ok(writeOutcome instanceof Error && isUnavailable(writeOutcome), String(writeOutcome));
    // The server is back and ready: it never got the write.
    const closed = new Promise((resolve) => loading!.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
    loading = null;
    redisProcess = await redisServer(port);
    for (let i = 0; i < 200 && redis.status !== 'ready'; i++) await delay(50);
    assert.equal(redis.status, 'ready');
    assert.equal(await redis.get('marker'), null);
  } finally {
    redis.disconnect();
    loading?.close();
    for (const socket of sockets) socket.destroy();
    redisProcess.kill('SIGKILL');
  }
});
