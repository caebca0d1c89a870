// bench:http's ceiling, a process of its own: a bare uWebSockets.js app whose single handler answers
// fixed bytes (status, headers and body given by the parent in BENCH_RESPONSE, captured from kcs),
// so the wire traffic equals kcs's and only kcs's own work is missing. Prints its port.
import uWS from 'uWebSockets.js';

interface FixedResponse {
  /** e.g. "200 OK" */
  status: string;
  /** In kcs's order; uWS adds Date, uWebSockets and Content-Length itself, as it does for kcs. */
  headers: [string, string][];
  body: string;
}

const fixed = JSON.parse(process.env.BENCH_RESPONSE ?? 'null') as FixedResponse | null;
if (!fixed) throw new Error('BENCH_RESPONSE is required (this file is started by bench/http.ts)');
uWS.App()
  .any('/*', (res) => {
    res.writeStatus(fixed.status);
    for (const [name, value] of fixed.headers) res.writeHeader(name, value);
    res.end(fixed.body);
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) throw new Error('cannot listen on 127.0.0.1');
    console.log(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
  });
