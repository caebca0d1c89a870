// The built-in engine column's baseline: a plain node:http server holding MiniSearch over the same
// products (miniSearchServer.ts, a process of its own), what a developer would run instead of an
// engine. The catalogue writer hands it each batch as kcs stored it (its ids and site ids, so the
// bound request bodies mean the same products); the batches go to a JSON lines file, and each
// server started reads the file as written so far.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ProductInput } from '../../src/domain/products.js';
import type { Undo } from './harness.js';

export interface MiniSearchServer {
  port: number;
  pid: number | undefined;
  /** Products it loaded, and how long loading took (read, parse, index). */
  products: number;
  loadMs: number;
  stop(): Promise<void>;
}

export interface MiniSearchCopy {
  /** Appends a batch of the catalogue (one write). */
  write(rows: { id: string; siteId: string; input: ProductInput }[]): void;
  /** A server over the products written so far, a child process; stopped by `stop` or at the end. */
  serve(undo: Undo): Promise<MiniSearchServer>;
}

/** The MiniSearch baseline's copy of the catalogue, a file in a temporary folder removed at the end. */
export function openMiniSearchCopy(undo: Undo): MiniSearchCopy {
  const dir = mkdtempSync(join(tmpdir(), 'kcs-bench-minisearch-'));
  undo(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'products.jsonl');
  appendFileSync(file, '');
  return {
    write(rows) {
      // The product as the direct floor stores it (searchDirect.ts): its id and site, then what was written.
      appendFileSync(file, rows.map(({ id, siteId, input }) => `${JSON.stringify({ id, site_id: siteId, ...input })}\n`).join(''));
    },
    async serve(undo) {
      const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/support/miniSearchServer.ts'], {
        env: { ...process.env, BENCH_MINISEARCH_FILE: file }, stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = once(child, 'exit');
      const stop = async () => void (child.exitCode === null && child.signalCode === null && (child.kill(), await exited));
      undo(stop);
      // Its first line tells its port once loaded; exiting instead, it failed to start.
      const lines = createInterface({ input: child.stdout! });
      const first = await Promise.race([once(lines, 'line').then(([line]) => String(line)), exited.then(() => '')]);
      lines.close();
      if (!first) throw new Error('the MiniSearch server did not start');
      const { port, products, loadMs } = JSON.parse(first) as { port: number; products: number; loadMs: number };
      return { port, pid: child.pid, products, loadMs, stop };
    },
  };
}
