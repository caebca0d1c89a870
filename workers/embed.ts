// BullMQ entry point of the `embed` queue: vectors for each text of a product or knowledge entry,
// batched across jobs, served from the content-addressed cache where the same text was embedded before.
import { WaitingError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../src/store/redis.js';
import { productTexts as textsOf } from '../src/domain/products.js';
import { BatcherClosedError, MicroBatcher } from '../src/embed/batcher.js';
import type { Embedder } from '../src/embed/embedder.js';
import type { Logger } from '../src/log.js';
import { EMBED_ATTEMPTS, EMBED_QUEUE, type EmbedJob } from '../src/queue/embed.js';
import { QUEUE_PREFIX } from '../src/queue/connection.js';
import type { JobRepository } from '../src/store/jobs.js';
import type { VectorRepository } from '../src/store/vectors.js';

/** The texts each kind of document is embedded from (see ProductTexts and EntryTexts). */
const VECTOR_NAMES = {
  product: ['description', 'properties', 'attributes', 'anchor'],
  entry: ['content', 'anchor'],
} as const;

export function embedWorker(
  connection: RedisClient, embedder: Embedder, vectors: VectorRepository, jobs: JobRepository, batchSize: number, log: Logger,
): Worker<EmbedJob> {
  const batcher = new MicroBatcher(embedder, batchSize);

  const productTexts = async (tenantId: string, id: string): Promise<{ texts: Record<string, string | null>; thash: string } | null> => {
    const inputs = await vectors.productTextInputs(tenantId, id);
    return inputs && { texts: { ...textsOf(inputs.doc, inputs.sources) }, thash: inputs.thash };
  };

  const process = async (job: Job<EmbedJob>, token?: string): Promise<string> => {
    const { tenantId, thash, ingestJobId } = job.data;
    const target = { kind: job.data.kind ?? 'product', id: job.data.id } as const;
    const names = VECTOR_NAMES[target.kind];
    const current = target.kind === 'entry' ? await vectors.entryTexts(tenantId, target.id) : await productTexts(tenantId, target.id);
    let outcome = 'stale';
    // Texts changed (a newer job carries them) or the document is gone: nothing to embed.
    if (current && current.thash === thash) {
      const texts = names.flatMap((name) => (current.texts[name] ? [{ name: name as string, text: current.texts[name]! }] : []));
      const cached = await vectors.cached(embedder.modelId, texts.map((t) => t.text));
      const misses = texts.filter((_, i) => !cached[i]);
      const computed = await batcher.embed(misses.map((m) => m.text)).catch(async (error: unknown) => {
        if (!(error instanceof BatcherClosedError)) throw error;
        // The worker stops: the job goes back to the queue as it was, no attempt spent.
        await job.moveToWait(token);
        throw new WaitingError();
      });
      await vectors.cache(embedder.modelId, misses.map((m, i) => ({ text: m.text, vector: computed[i] })));
      const byName: Record<string, Float32Array | null> = Object.fromEntries(names.map((n) => [n, null]));
      texts.forEach((t, i) => (byName[t.name] = cached[i] ?? computed[misses.indexOf(t)]));
      outcome = (await vectors.store(tenantId, target, thash, embedder.modelId, byName)) ? 'stored' : 'stale';
    }
    if (ingestJobId) await jobs.count(tenantId, ingestJobId, 'embed_done', 1);
    return outcome;
  };

  const worker = new Worker<EmbedJob>(EMBED_QUEUE, process, { connection, prefix: QUEUE_PREFIX, concurrency: batchSize });
  // A stop waits for the model call under way, not for every job behind it (the backlog stays queued).
  worker.on('closing', () => batcher.close());
  worker.on('failed', (job, error) => {
    if (!job) return;
    log.warn({ job: job.id, attempt: job.attemptsMade, err: error.message }, 'embedding failed');
    if (job.attemptsMade < EMBED_ATTEMPTS) return;
    const { tenantId, thash, ingestJobId } = job.data;
    void Promise.all([
      vectors.markFailed(tenantId, { kind: job.data.kind ?? 'product', id: job.data.id }, thash),
      ingestJobId ? jobs.count(tenantId, ingestJobId, 'embed_failed', 1) : undefined,
    ]).catch((err: unknown) => log.error({ err }, 'could not record a failed embedding'));
  });
  return worker;
}
