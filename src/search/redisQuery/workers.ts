// The search module's query worker threads on a master: Redis 8's `search-workers`, RediSearch
// 2.8+'s `WORKERS` (builds with multi-threading). With none, every query runs on Redis's main
// thread, between the commands of every other client: a big shop's searches are then one thread's
// work (operations.md). kcs needs no workers; it says at start which it found.
import type { Logger } from '../../log.js';
import type { RedisClient } from '../../store/redis.js';

/** The value of a configuration reply (`[name, value]`, or FT.CONFIG's `[[name, value]]`); null when the server has no such setting. */
function configValue(reply: unknown): number | null {
  const pair = Array.isArray(reply) && Array.isArray(reply[0]) ? reply[0] : reply;
  if (!Array.isArray(pair) || pair.length < 2) return null;
  const n = Number(String(pair[1]));
  return Number.isFinite(n) ? n : null;
}

/** Query worker threads of the master's search module (0: queries run on the main thread). */
export async function queryWorkers(node: RedisClient): Promise<number> {
  const read = (command: string, ...args: string[]) => node.call(command, ...args).then(configValue, () => null);
  return (await read('CONFIG', 'GET', 'search-workers')) ?? (await read('FT.CONFIG', 'GET', 'WORKERS')) ?? 0;
}

/** Logs the query worker threads of the masters (once, at start). */
export async function reportQueryWorkers(masters: RedisClient[], log: Logger): Promise<void> {
  const workers = await Promise.all(masters.map(queryWorkers));
  const fewest = Math.min(...workers);
  log.info({ workers }, fewest > 0 ? `the Query Engine runs queries on ${fewest} or more worker threads a master` : 'the Query Engine runs queries on Redis\'s main thread (no search worker threads)');
}
