// BullMQ entry point of the `embed` queue: vectors for the texts of products and knowledge entries
// (a job holds one document, or many of a bulk import), batched across jobs into model calls,
// served from the content-addressed cache where the same text was embedded before.
import { WaitingError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../src/store/redis.js';
import { productTexts as textsOf } from '../src/domain/productTexts.js';
import { BatcherClosedError, MicroBatcher } from '../src/embed/batcher.js';
import { Slots } from '../src/embed/slots.js';
import type { Embedder } from '../src/embed/embedder.js';
import type { Logger } from '../src/log.js';
import { EMBED_ATTEMPTS, EMBED_QUEUE, embedTargets, type EmbedJob } from '../src/queue/embed.js';
import { failedForGood, QUEUE_PREFIX, stallSettings } from '../src/queue/connection.js';
import type { JobRepository } from '../src/store/jobs.js';
import type { ReembedRepository } from '../src/store/reembed.js';
import { VECTOR_NAMES, type VectorRepository, type VectorTarget } from '../src/store/vectors.js';

export interface EmbedWorkerOptions {
  embedder: Embedder;
  vectors: VectorRepository;
  /** Counts a bulk job's embeddings (done, failed) in its progress. */
  jobs: JobRepository;
  /** Counts a re-embed's documents in its progress. */
  reembed: ReembedRepository;
  /** Texts per batch of model calls, jobs the worker runs at once, and documents between reading their texts and storing their vectors. */
  batchSize: number;
  log: Logger;
  /** True while work that goes first is under way (imports): the worker takes no job and starts no model call meanwhile. */
  yieldTo?: () => Promise<boolean>;
  /** Tells the moment such work starts (the poll of yieldTo sees it up to YIELD_POLL_MS later); answers its stop. */
  watchStarts?: (listener: () => void) => () => Promise<void>;
  /** A re-embed's last document is done: `model` is the tenant's now. */
  reembedFinished?: (tenantId: string, model: string) => Promise<void>;
  /**
   * The lock of each job taken (renewed while the worker lives, also while it holds for an
   * import); the jobs of a killed worker go back to the queue within about 1.5× this.
   */
  lockMs?: number;
}

/** How often the worker asks whether imports still run while it yields to them (to see them end). */
const YIELD_POLL_MS = 250;
/**
 * How often it asks while it does not yield: the queue's events tell it the moment an import
 * starts (watchStarts), so this only covers an event missed (a reconnect). At 250 ms, an idle
 * worker spent more on asking than on anything else.
 */
const IDLE_POLL_MS = 5000;
/**
 * How long imports must have been idle before the model runs again: a connector's bulk requests
 * come one after another, and between two jobs the next body is still being uploaded and checked
 * (the serve process's work, which the model would slow down).
 */
const RESUME_AFTER_MS = 2000;

export function embedWorker(connection: RedisClient, { embedder, vectors, jobs, reembed, batchSize, log, yieldTo, watchStarts, reembedFinished, lockMs = 30_000 }: EmbedWorkerOptions): Worker<EmbedJob> {
  const batcher = new MicroBatcher(embedder, batchSize);
  // A document's texts are read when it gets a slot: about as many as one batch of model calls ahead.
  const inFlight = new Slots(batchSize);

  /** Counts a re-embed's documents (embedded or given up on); its last one tells reembedFinished. */
  const countReembed = async (tenantId: string, model: string, done: number) => {
    if (await reembed.count(tenantId, model, done)) await reembedFinished?.(tenantId, model);
  };

  const currentTexts = async (tenantId: string, target: VectorTarget): Promise<{ texts: Record<string, string | null>; textHash: string } | null> => {
    if (target.kind === 'entry') return vectors.entryTexts(tenantId, target.id);
    const inputs = await vectors.productTextInputs(tenantId, target.id);
    return inputs && { texts: { ...textsOf(inputs.doc, inputs.sources) }, textHash: inputs.textHash };
  };

  /**
   * The vectors of one document's current texts and their hash; null when the document is gone or
   * its texts are no longer those of `textHash` (a newer job carries them).
   */
  const embedOne = async (tenantId: string, target: VectorTarget, textHash?: string): Promise<{ byName: Record<string, Float32Array | null>; textHash: string } | null> => {
    const current = await currentTexts(tenantId, target);
    if (!current || (textHash !== undefined && current.textHash !== textHash)) return null;
    const names = VECTOR_NAMES[target.kind];
    const texts = names.flatMap((name) => (current.texts[name] ? [{ name: name as string, text: current.texts[name]! }] : []));
    const cached = await vectors.cached(embedder.modelId, texts.map((t) => t.text));
    const misses = texts.filter((_, i) => !cached[i]);
    const computed = await batcher.embed(misses.map((m) => m.text));
    await vectors.cache(embedder.modelId, misses.map((m, i) => ({ text: m.text, vector: computed[i] })));
    const byName: Record<string, Float32Array | null> = Object.fromEntries(names.map((n) => [n, null]));
    texts.forEach((t, i) => (byName[t.name] = cached[i] ?? computed[misses.indexOf(t)]));
    return { byName, textHash: current.textHash };
  };

  const process = async (job: Job<EmbedJob>, token?: string): Promise<string> => {
    const { tenantId, ingestJobId } = job.data;
    const kind = job.data.kind ?? 'product';
    const targets = embedTargets(job.data);
    // The documents of a job go to the batcher together: their texts share model calls.
    const outcomes = await Promise.all(targets.map(({ id, textHash }) => inFlight.run(async () => {
      const embedded = await embedOne(tenantId, { kind, id }, textHash);
      // The store is refused when the texts changed meanwhile (a newer job carries them).
      const stored = embedded && (await vectors.store(tenantId, { kind, id }, { textHash: embedded.textHash, model: embedder.modelId, vectors: embedded.byName }));
      return stored ? 'stored' : 'stale';
    }))).catch(async (error: unknown) => {
      if (!(error instanceof BatcherClosedError)) throw error;
      // The worker stops: the job goes back to the queue as it was, no attempt spent.
      await job.moveToWait(token);
      throw new WaitingError();
    });
    if (ingestJobId) await jobs.count(tenantId, ingestJobId, { field: 'embed_done', by: targets.length });
    if (job.data.reembed) await countReembed(tenantId, job.data.reembed, targets.length);
    return outcomes.join(',');
  };

  // The worker holds up to batchSize jobs (a bulk import's: 128 documents each), and a kill sends
  // them all back as stalled. Embedding a job again is harmless: its texts are read anew, and the
  // vectors computed before the kill come from the cache.
  const worker = new Worker<EmbedJob>(EMBED_QUEUE, process, { connection, prefix: QUEUE_PREFIX, concurrency: batchSize, ...stallSettings(lockMs, EMBED_ATTEMPTS) });
  // An import goes first: the worker takes no job and starts no model call while one is under way
  // (the threads' low priority alone still cost an import a sixth of its speed in bench:embedding).
  let yielding = false;
  let busySeen = 0;
  let poll: NodeJS.Timeout | null = null;
  /** The next question whether an import runs: soon while yielding or just after (to resume), seldom otherwise. */
  const askSoon = (first = false): void => {
    if (!yieldTo || worker.closing) return;
    if (poll) clearTimeout(poll);
    const waiting = first || yielding || performance.now() - busySeen < RESUME_AFTER_MS;
    poll = setTimeout(() => {
      poll = null;
      yieldTo().then(yieldNow, (err: unknown) => log.warn({ err: (err as Error).message }, 'could not ask whether an import runs')).finally(() => poll ?? askSoon());
    }, waiting ? YIELD_POLL_MS : IDLE_POLL_MS);
  };
  const yieldNow = async (busy: boolean) => {
    if (busy) busySeen = performance.now();
    else if (performance.now() - busySeen < RESUME_AFTER_MS) return;
    if (busy === yielding || worker.closing) return;
    yielding = busy;
    if (busy) {
      batcher.hold();
      // Asked soon from now on, to see the import end.
      askSoon();
      await worker.pause(true);
    } else {
      batcher.release();
      worker.resume();
    }
  };
  // The first question soon: an import that began before this worker sent no event it heard.
  askSoon(true);
  // An import's start holds the model at once; the poll sees its end.
  const stopWatching = watchStarts?.(() => void yieldNow(true));
  // A stop waits for the model calls under way, not for every job behind them (the backlog stays queued).
  worker.on('closing', () => {
    if (poll) clearTimeout(poll);
    void stopWatching?.();
    batcher.close();
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    log.warn({ job: job.id, attempt: job.attemptsMade, err: error.message }, 'embedding failed');
    if (!failedForGood(job, error)) return;
    const { tenantId, ingestJobId } = job.data;
    const targets = embedTargets(job.data);
    void Promise.all([
      ...targets.map(({ id, textHash }) => vectors.markFailed(tenantId, { kind: job.data.kind ?? 'product', id }, textHash)),
      ingestJobId ? jobs.count(tenantId, ingestJobId, { field: 'embed_failed', by: targets.length }) : undefined,
      job.data.reembed ? countReembed(tenantId, job.data.reembed, targets.length) : undefined,
    ]).catch((err: unknown) => log.error({ err }, 'could not record a failed embedding'));
  });
  return worker;
}
