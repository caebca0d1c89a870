// One embedding thread: lowers its own scheduling priority (src/embed/priority.ts; the threads a
// model runtime starts from here inherit it), builds the embedder of its spec and answers calls
// one at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { buildEmbedder } from './build.js';
import { lowerThisThread } from './priority.js';
import type { EmbedThreadCall, EmbedThreadData, EmbedThreadReply } from './threads.js';

const { spec, nice, idle } = workerData as EmbedThreadData;
lowerThisThread(nice, idle);
const embedder = buildEmbedder(spec);
const port = parentPort!;
port.on('message', async ({ id, texts, purpose }: EmbedThreadCall) => {
  let reply: EmbedThreadReply;
  try {
    const vectors = (await embedder?.embed(texts, purpose)) ?? [];
    reply = { id, vectors };
    port.postMessage(reply, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
    port.postMessage(reply);
  }
});
