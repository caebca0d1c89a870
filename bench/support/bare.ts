// bench:http's ceilings, a process of its own: a bare uWebSockets.js app or a bare node:http server
// (BENCH_BARE=uws|node) whose single handler answers fixed bytes (status, headers and body given by
// the parent in BENCH_RESPONSE, captured from kcs on that front), so the wire traffic equals kcs's
// and only kcs's own work is missing. Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import uWS from 'uWebSockets.js';

interface FixedResponse {
  /** e.g. "200 OK" */
  status: string;
  /** In kcs's order, without what the server writes itself (Date, uWebSockets, Content-Length on uWS; Date, Connection on node). */
  headers: [string, string][];
  body: string;
}

const fixed = JSON.parse(process.env.BENCH_RESPONSE ?? 'null') as FixedResponse | null;
if (!fixed) throw new Error('BENCH_RESPONSE is required (this file is started by bench/http.ts)');

if (process.env.BENCH_BARE === 'node') {
  const status = Number(fixed.status.slice(0, 3));
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    req.resume();
    res.writeHead(status, fixed.headers.flat());
    res.end(fixed.body);
  });
  server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
} else {
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
}
