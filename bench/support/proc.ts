// What /proc (Linux) tells about the benchmark's processes: CPU time, the machine's busy time,
// peak resident memory. Elsewhere these are left out (empty, null).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

const CLOCK_TICKS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
  return Number(out) > 0 ? Number(out) : 100;
})();

/** User + system CPU seconds of each process; processes it cannot read are left out. */
export function cpuSeconds(pids: Record<string, number | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    if (!pid) continue;
    try {
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      // not Linux, or the process is gone
    }
  }
  return out;
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat; null where there is none. */
export function machineBusySeconds(): number | null {
  try {
    // cpu  user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * CPU use over an interval, as cores (1.0 = one core busy) per watched process, plus `other`: the
 * machine's busy time not spent in a watched process. Call the returned function at the end.
 */
export function cpuMeter(watched: Record<string, number | undefined>): () => { wallSeconds: number; seconds: Record<string, number>; cores: Record<string, number> } {
  const before = cpuSeconds(watched);
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  return () => {
    const wallSeconds = (performance.now() - started) / 1000;
    const after = cpuSeconds(watched);
    const machineAfter = machineBusySeconds();
    const seconds: Record<string, number> = {};
    for (const name of Object.keys(after)) if (name in before) seconds[name] = after[name] - before[name];
    if (machineBefore !== null && machineAfter !== null) {
      const ours = Object.values(seconds).reduce((sum, s) => sum + s, 0);
      seconds.other = Math.max(0, machineAfter - machineBefore - ours);
    }
    const cores = Object.fromEntries(Object.entries(seconds).map(([name, s]) => [name, s / wallSeconds]));
    return { wallSeconds, seconds, cores };
  };
}

/**
 * Waits until the processes together use under a tenth of a core for `quietMs`, or `limitMs` passed:
 * the seconds until that quiet interval began (quiet: false, the seconds waited, when none came).
 */
export async function waitIdle(
  pids: Record<string, number | undefined>,
  { quietMs, limitMs }: { quietMs: number; limitMs: number },
): Promise<{ seconds: number; quiet: boolean }> {
  const started = performance.now();
  let quietSince: number | null = null;
  while (performance.now() - started < limitMs) {
    const meter = cpuMeter(pids);
    await delay(250);
    const { seconds, wallSeconds } = meter();
    const busy = Object.entries(seconds).filter(([name]) => name !== 'other').reduce((sum, [, s]) => sum + s, 0);
    if (busy / wallSeconds >= 0.1) quietSince = null;
    else if (quietSince === null) quietSince = performance.now() - 250;
    if (quietSince !== null && performance.now() - quietSince >= quietMs) return { seconds: (quietSince - started) / 1000, quiet: true };
  }
  return { seconds: (performance.now() - started) / 1000, quiet: false };
}

/** A memory figure of /proc/<pid>/status in MiB; null where /proc cannot tell. */
function statusMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number | null {
  if (!pid) return null;
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Peak resident set size (VmHWM) of a process in MiB; null where /proc cannot tell. */
export const peakRssMiB = (pid: number | undefined): number | null => statusMiB(pid, 'VmHWM');

/** Resident set size now (VmRSS) of a process in MiB; null where /proc cannot tell. */
export const rssMiB = (pid: number | undefined): number | null => statusMiB(pid, 'VmRSS');

export function redisVersion(): string {
  const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return `redis-server ${/v=(\S+)/.exec(out)?.[1] ?? '?'}`;
}
