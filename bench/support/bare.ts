// Benchmark child: the ceiling. A bare uWebSockets.js app whose single handler answers fixed
// bytes (status, headers and body given by the parent in BENCH_RESPONSE, captured from kcs), so
// the wire traffic equals kcs's and only kcs's own work is missing. Ready message: { port }.
import uWS from 'uWebSockets.js';
import { runChild } from './child.js';

interface FixedResponse {
  /** e.g. "200 OK" */
  status: string;
  /** In kcs's order; uWS adds Date, uWebSockets and Content-Length itself, as it does for kcs. */
  headers: [string, string][];
  body: string;
}

runChild(async () => {
  const fixed = JSON.parse(process.env.BENCH_RESPONSE ?? 'null') as FixedResponse | null;
  if (!fixed) throw new Error('BENCH_RESPONSE is required');

  const app = uWS.App();
  app.any('/*', (res) => {
    res.writeStatus(fixed.status);
    for (const [name, value] of fixed.headers) res.writeHeader(name, value);
    res.end(fixed.body);
  });
  const port = await new Promise<number>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => {
      if (!socket) return reject(new Error('cannot listen on 127.0.0.1'));
      resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
    });
  });
  return { ready: { port }, close: async () => (app as unknown as { close(): void }).close() };
});
