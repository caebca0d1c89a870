// Polling for a state the system under test reaches in its own time (a worker's job, a replica).
import { setTimeout as delay } from 'node:timers/promises';

/** Calls `check` until it answers a value, every `every` ms; throws after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, { ms = 60_000, every = 50 } = {}): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await delay(every);
  }
}
