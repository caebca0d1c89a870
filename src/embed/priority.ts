// Scheduling priority of background work: the embedding (nice 19 and SCHED_IDLE) and the import
// workers (nice 10, workers/index.ts). On Linux both a nice value and a scheduling policy
// belong to a thread, and a thread starts with those of the thread that starts it. Below a nice
// value, the SCHED_IDLE policy (set with util-linux's chrt, where it is installed) gives way at
// once to any other thread that wakes: serving and importing never wait for the model.
import { spawnSync } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

function lower(tid: number, nice: number, idle: boolean): void {
  try {
    setPriority(tid, nice);
  } catch {
    // A thread that ended meanwhile, or a platform without per-thread priorities.
  }
  if (idle && tid !== 0) spawnSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore' });
}

/** The calling thread: `nice`, and SCHED_IDLE when `idle`. */
export function lowerThisThread(nice: number, idle: boolean): void {
  let tid = 0;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    // Not Linux: the process's priority is all there is.
  }
  lower(tid, nice, idle);
}

/** Every thread of this process (those it starts later inherit it). */
export function lowerThisProcess(nice: number, idle: boolean): void {
  let tids: number[] = [0];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux.
  }
  for (const tid of tids) lower(tid, nice, idle);
}
