// Where redis-server's time goes over an interval, by command (INFO commandstats, e.g. of a `kcs
// start`'s embedded server): each command's calls and microseconds. A command a Lua script calls
// is counted twice, on its own line and within the EVALSHA that called it, so the EVALSHA line less
// the lines of the commands its scripts call is the scripts' own work (their Lua).
import { Redis } from 'ioredis';

export interface CommandTime {
  name: string;
  calls: number;
  usec: number;
}

/** Resets the server's command statistics; the returned function reads them, costliest first. */
export async function commandTimer(url: string): Promise<() => Promise<CommandTime[]>> {
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  await redis.config('RESETSTAT');
  return async () => {
    const info = await redis.info('commandstats');
    redis.disconnect();
    return info.split('\n').flatMap((line) => {
      const found = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
      return found ? [{ name: found[1], calls: Number(found[2]), usec: Number(found[3]) }] : [];
    }).sort((a, b) => b.usec - a.usec);
  };
}

/** The costliest commands in µs per product, e.g. `evalsha 44.3 µs (1,229 calls), zadd 8.8 µs (13,040 calls), …`. */
export function formatCommandTimes(times: CommandTime[], products: number, top = 6): string {
  return times.slice(0, top).map(({ name, calls, usec }) => `${name} ${(usec / products).toFixed(1)} µs (${calls.toLocaleString('en')} calls)`).join(', ');
}
