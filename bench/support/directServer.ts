// bench:search's direct floor, a process of its own (so that it does not share the load
// generator's thread): a plain node:http server, keep-alive, answering each POSTed search body with
// searchDirect.ts floorAnswer over the index given by the parent in BENCH_DIRECT. Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floorAnswer, floorClient, type FloorAt } from './searchDirect.js';

const at = JSON.parse(process.env.BENCH_DIRECT ?? 'null') as FloorAt | null;
if (!at) throw new Error('BENCH_DIRECT is required (this file is started by bench/support/searchDirect.ts)');
const redis = floorClient(at.url);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Promise.resolve().then(() => floorAnswer(redis, at, JSON.parse(Buffer.concat(chunks).toString('utf8')))).then(
      (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
});
// autocannon's connections stay open between its runs.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
process.once('SIGTERM', () => (server.close(), redis.disconnect(), process.exit(0)));
