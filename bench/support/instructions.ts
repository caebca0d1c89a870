// Instructions each process retired over an interval, counted by `perf stat` (Linux perf, where
// the kernel lets it count): unlike CPU time, the count hardly moves with the VM's speed, so two
// builds compare in a run or two where CPU time needed a dozen alternating pairs.
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';

/** Whether `perf stat` can count instructions here. */
export function instructionsCountable(): boolean {
  const probe = spawnSync('perf', ['stat', '-x', ',', '-e', 'instructions', 'true'], { encoding: 'utf8' });
  return probe.status === 0 && /^\d+,/m.test(probe.stderr ?? '');
}

/**
 * Starts counting each process's instructions; the returned function stops and gives the count
 * per process (null where perf counted none).
 */
export async function instructionCounter(pids: Record<string, number | undefined>): Promise<() => Promise<Record<string, number | null>>> {
  const counters = Object.entries(pids).flatMap(([name, pid]) => {
    if (!pid) return [];
    const child = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let report = '';
    child.stderr.on('data', (chunk: Buffer) => (report += chunk.toString()));
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    return [{ name, child, closed, report: () => report }];
  });
  await delay(200); // perf attaches to the processes before the interval starts
  return async () => {
    for (const { child } of counters) child.kill('SIGINT');
    await Promise.all(counters.map((c) => c.closed));
    return Object.fromEntries(counters.map(({ name, report }) => {
      const count = /^(\d+),/m.exec(report())?.[1];
      return [name, count === undefined ? null : Number(count)];
    }));
  };
}
