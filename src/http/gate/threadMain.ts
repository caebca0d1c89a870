// What runs on the gate's own thread (thread.ts, loaded by worker.mjs): the gate (gate.ts), its
// event loop on another core than the app's. Messages: in `close`; out `listening`, `failed`,
// `rejected`, `closed`.
import { parentPort, workerData } from 'node:worker_threads';
import { Gate } from './gate.js';
import { gateRouter } from './routes.js';
import type { GateThreadData, GateThreadMessage } from './thread.js';

const data = workerData as GateThreadData;
const port = parentPort!;
const post = (message: GateThreadMessage) => port.postMessage(message);

const gate = new Gate({
  upstreamPort: data.upstreamPort,
  route: gateRouter(data.routes, data.defaultBodyLimit),
  onRejected: (status, detail, remoteAddress) => post({ type: 'rejected', status, detail, remoteAddress }),
});
port.on('message', (message: { type: 'close'; graceMs: number }) => {
  void gate.close(message.graceMs).then(() => post({ type: 'closed' }));
});
gate.listen(data.host, data.port).then(
  (listening) => post({ type: 'listening', port: listening }),
  (error: Error) => post({ type: 'failed', message: error.message }),
);
