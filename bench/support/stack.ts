// What the HTTP benchmarks start first: a temporary directory, a private redis-server without
// persistence, and `kcs serve` (bench/support/server.ts) in a child process with tenant, key and site.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/store/embeddedRedis.js';
import { ChildTarget } from './child.js';
import type { Undo } from './harness.js';

export type ServerReady = { type: 'ready'; port: number; key: string; siteId: string; tenant: string };

export interface BenchStack {
  redis: EmbeddedRedis;
  kcs: ChildTarget<ServerReady>;
  ready: ServerReady;
}

/** Starts the stack; every part registers its undo. `env` goes to the kcs child. */
export async function startBenchStack(undo: Undo, name: string, env: Record<string, string> = {}): Promise<BenchStack> {
  const dir = mkdtempSync(join(tmpdir(), `kcs-bench-${name}-`));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startEmbeddedRedis(dir, { persist: false });
  undo(() => redis.stop());
  const kcs = new ChildTarget<ServerReady>('kcs server', new URL('./server.ts', import.meta.url), {
    BENCH_REDIS_URL: redis.url,
    BENCH_DATA_DIR: dir,
    ...env,
  });
  undo(() => kcs.stop());
  return { redis, kcs, ready: await kcs.ready };
}
