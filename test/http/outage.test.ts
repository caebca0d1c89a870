// Redis going away: the API answers 503 with Retry-After (never a 500 or a hang), /readyz says
// unavailable, and both recover when Redis is back on the same port.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startServer } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import { createLogger } from '../../src/log.js';
import { startEmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { httpJson } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'kcs-outage-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('Redis outage → 503 with Retry-After, then recovery', async () => {
  const redis = await startEmbeddedRedis(dir, { persist: false });
  const port = Number(new URL(redis.url).port);
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', KCS_DATA_DIR: dir });
  const server = await startServer(config, redis.url, createLogger('silent', 'test'));
  let restarted: ReturnType<typeof spawn> | null = null;
  try {
    const tenant = await server.services.tenants.create('down', 'Down');
    const user = await server.services.users.create(tenant.id, { email: 'a@down.test', name: 'A' });
    const { key } = await server.services.apiKeys.create(tenant.id, { userId: user.id, name: 'k', scopes: [...SCOPES] });
    const host = `down.localhost:${server.port}`;
    assert.equal((await httpJson(server.port, host, 'GET', '/api/knowledge/sites', key)).status, 200);

    await redis.stop();
    const ready = await httpJson(server.port, 'localhost', 'GET', '/readyz');
    assert.equal(ready.status, 503);
    const sites = await httpJson(server.port, host, 'GET', '/api/knowledge/sites', key);
    assert.equal(sites.status, 503);
    assert.match(sites.body.detail, /unavailable/);

    // Back on the same port: ioredis reconnects by itself.
    restarted = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await httpJson(server.port, 'localhost', 'GET', '/readyz')).status;
    }
    assert.equal(status, 200, '/readyz recovers');
  } finally {
    await server.close();
    restarted?.kill('SIGTERM');
  }
});
