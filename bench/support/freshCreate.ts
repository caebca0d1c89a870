// One bulk create on a fresh `kcs start`: what the comparisons of bench:embedding's BENCH_STEP=idle
// and BENCH_STEP=behind each run, set up their own way between the start and the create.
import { Api, bulkRun } from './bulkApi.js';
import type { Undo } from './harness.js';
import { startKcs, type KcsStart } from './kcsStart.js';
import { formatCpuPerProduct } from './load.js';

export interface FreshCreate {
  rate: number;
  /** Each process's CPU a product created. */
  perProduct: string;
}

export interface FreshCreateOptions {
  /** The NDJSON bodies of the create. */
  bodies: Buffer[];
  /** The environment of `kcs start`. */
  env: Record<string, string>;
  /** Runs between the start and the create; what it returns runs once the create is over. */
  before?: (kcs: KcsStart, api: Api, path: string) => Promise<(() => void) | void>;
}

export async function createOnFreshStart(undo: Undo, { bodies, env, before }: FreshCreateOptions): Promise<FreshCreate> {
  const kcs = await startKcs(undo, env);
  const api = new Api(kcs.port, kcs.host, kcs.key);
  let after: (() => void) | void = undefined;
  try {
    const path = await api.benchSiteBulkPath();
    after = await before?.(kcs, api, path);
    const run = await bulkRun(api, path, bodies, kcs.pids());
    return { rate: run.rate, perProduct: formatCpuPerProduct(run.cpuSeconds, run.views.reduce((sum, v) => sum + v.total, 0)) };
  } finally {
    after?.();
    api.close();
    await kcs.stop();
  }
}
