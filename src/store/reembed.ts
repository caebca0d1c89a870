// Re-embedding a tenant's documents with another model (DESIGN §7): the documents whose vectors
// are of another model, the progress of a re-embed, and the tenant's model once every document
// has vectors of it. Vectors are stored per model (`v:<model>:<name>`), so the old ones stay
// until the new ones are written.
import { skippedForLanguage, skippedLanguageOf, type StoredEmbeddingStatus } from './docs.js';
import { allEntryIds } from './knowledgeEntries.js';
import { CHANGE_STREAM_MAXLEN, keys } from './keys.js';
import { readHashes, type Store } from './redis.js';
import { dropStaleVectorsCall } from './scriptCalls.js';
import { VECTOR_NAMES, vectorField } from './vectors.js';

export interface ReembedProgress {
  model: string;
  total: number;
  done: number;
  startedAt: string;
  finishedAt: string | null;
}

export interface StaleDocuments {
  products: string[];
  entries: string[];
  /** The model most of them have vectors of (null: none recorded). */
  model: string | null;
  /** Products with vectors of another model in a language the new one does not serve: marked skipped (markUnserved), not embedded again. */
  unserved: { id: string; language: string }[];
}

/** A product skipped for a language the configured model serves (skippedServed), with its status as read. */
export interface SkippedProduct {
  id: string;
  status: StoredEmbeddingStatus;
}

/** Whether a model of these base languages (null: every one) serves a language. */
const serves = (languages: readonly string[] | null, language: string) => !languages || languages.includes(language.slice(0, 2).toLowerCase());

/** Documents read per call while planning. */
const BATCH = 500;
/** Hashes per dropStaleVectors call (each is read whole). */
const DROP_BATCH = 200;

export class ReembedRepository {
  constructor(private readonly redis: Store) {}

  /** The model every embedded document of the tenant has vectors of; null: not known yet. */
  activeModel(tenantId: string): Promise<string | null> {
    return this.redis.get(keys.embeddingModel(tenantId));
  }

  /**
   * The ids of the tenant's embedded documents (status ready) whose vectors are of another model
   * than `model`, and the model most of them have; with `languages` (the new model's), the
   * products among them in a language it does not serve apart (`unserved`).
   */
  async stale(tenantId: string, model: string, languages: readonly string[] | null = null): Promise<StaleDocuments> {
    const models = new Map<string, number>();
    const staleOf = async (ids: string[], keyOf: (id: string) => string) => {
      const out: string[] = [];
      for (let i = 0; i < ids.length; i += BATCH) {
        const batch = ids.slice(i, i + BATCH);
        const rows = await readHashes(this.redis, batch.map(keyOf), ['embedding_status', 'embedding_model']);
        rows.forEach(([status, of], k) => {
          if (status !== 'ready' || of === model) return;
          out.push(batch[k]);
          if (of) models.set(of, (models.get(of) ?? 0) + 1);
        });
      }
      return out;
    };
    const products = await staleOf(await this.redis.zrange(keys.products(tenantId), '0', '-1'), (id) => keys.product(tenantId, id));
    const unserved: StaleDocuments['unserved'] = [];
    if (languages) {
      const of = await this.languagesOf(tenantId, products);
      products.forEach((id, i) => of[i] !== null && !serves(languages, of[i]!) && unserved.push({ id, language: of[i]! }));
    }
    const left = new Set(unserved.map((u) => u.id));
    return {
      products: products.filter((id) => !left.has(id)),
      entries: await staleOf(await allEntryIds(this.redis, tenantId), (id) => keys.entry(tenantId, id)),
      model: [...models].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null,
      unserved,
    };
  }

  /** Marks products embedded by an earlier model skipped for their language (those embedded again or changed since stay as they are). */
  async markUnserved(tenantId: string, unserved: StaleDocuments['unserved']): Promise<number> {
    return this.move(tenantId, unserved.map(({ id, language }) => ({ id, from: 'ready', to: skippedForLanguage(language) })));
  }

  /**
   * The tenant's products skipped (no vectors) in a language a model of `languages` serves: those
   * skipped for their language, and those written while embedding was off. Those of the second
   * kind in a language it does not serve are marked skipped for their language on the way (the
   * reason the product view gives, and the counts a later model checks: store/embeddingProgress.ts).
   */
  async skippedServed(tenantId: string, languages: readonly string[]): Promise<SkippedProduct[]> {
    const ids = await this.redis.zrange(keys.products(tenantId), '0', '-1');
    const served: SkippedProduct[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const statuses = (await readHashes(this.redis, batch.map((id) => keys.product(tenantId, id)), ['embedding_status'])).map(([status]) => status);
      const off = batch.filter((_, k) => statuses[k] === 'skipped');
      const offLanguages = await this.languagesOf(tenantId, off);
      const unserved: { id: string; from: StoredEmbeddingStatus; to: StoredEmbeddingStatus }[] = [];
      batch.forEach((id, k) => {
        const language = skippedLanguageOf(statuses[k]);
        if (language !== null && serves(languages, language)) served.push({ id, status: statuses[k] as StoredEmbeddingStatus });
      });
      off.forEach((id, k) => {
        const language = offLanguages[k];
        if (language === null) return;
        if (serves(languages, language)) served.push({ id, status: 'skipped' });
        else unserved.push({ id, from: 'skipped', to: skippedForLanguage(language) });
      });
      await this.move(tenantId, unserved);
    }
    return served;
  }

  /** Marks skipped products pending once their embedding is queued (those embedded or changed since stay as they are). */
  async markPending(tenantId: string, products: SkippedProduct[]): Promise<number> {
    return this.move(tenantId, products.map(({ id, status }) => ({ id, from: status, to: 'pending' })));
  }

  /** Moves products' statuses where each still has the expected one; how many moved. */
  private async move(tenantId: string, moves: { id: string; from: StoredEmbeddingStatus; to: StoredEmbeddingStatus }[]): Promise<number> {
    let moved = 0;
    for (let i = 0; i < moves.length; i += BATCH) {
      const done = await Promise.all(moves.slice(i, i + BATCH).map(({ id, from, to }) =>
        this.redis.moveEmbeddingStatus(keys.product(tenantId, id), keys.embeddingCounts(tenantId), 'product', from, to)));
      moved += done.filter((n) => n === 1).length;
    }
    return moved;
  }

  /** The language of each product (null: deleted). */
  private async languagesOf(tenantId: string, ids: string[]): Promise<(string | null)[]> {
    const out: (string | null)[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const docs = await readHashes(this.redis, ids.slice(i, i + BATCH).map((id) => keys.product(tenantId, id)), ['doc']);
      for (const [doc] of docs) out.push(doc ? (JSON.parse(doc) as { language: string }).language : null);
    }
    return out;
  }

  /**
   * Starts counting a re-embed of the stale documents; with none, the model is the tenant's at
   * once. A tenant whose model was never recorded (data older than the record) gets its stale
   * documents' model: search serves it until the re-embed finishes.
   */
  async start(tenantId: string, model: string, stale: StaleDocuments): Promise<void> {
    const now = new Date().toISOString();
    const total = stale.products.length + stale.entries.length;
    const multi = this.redis.multi().del(keys.reembed(tenantId)).hset(keys.reembed(tenantId), { model, total, done: 0, started_at: now });
    if (total === 0) multi.hset(keys.reembed(tenantId), 'finished_at', now).set(keys.embeddingModel(tenantId), model);
    else if (stale.model) multi.set(keys.embeddingModel(tenantId), stale.model, 'NX');
    // Products left without vectors of the new model (unserved) still have the old model's in the
    // search replicas: as at the end of a re-embed, they read the tenant again (reembedProgress-3.lua).
    if (total === 0 && stale.unserved.length > 0) multi.xadd(keys.changes(tenantId), 'MAXLEN', '~', CHANGE_STREAM_MAXLEN, '*', 'op', 'model', 'model', model);
    await multi.exec();
  }

  /** Counts documents done (embedded, stale or given up on); true once the re-embed is finished. */
  async count(tenantId: string, model: string, done: number): Promise<boolean> {
    const result = await this.redis.reembedProgress(keys.reembed(tenantId), keys.embeddingModel(tenantId), keys.changes(tenantId), model, done, CHANGE_STREAM_MAXLEN, new Date().toISOString());
    return result === 2;
  }

  /**
   * Once the tenant is searched with `model` and no re-embed runs, its documents keep only the
   * vectors of that model that ranking reads (the others only cost memory: a 384-dimension vector
   * is 1.5 KB per text and document). Null: not now (the tenant's model is another one, or a re-embed runs,
   * whose end asks again); else the number of documents changed.
   */
  async dropStaleVectors(tenantId: string, model: string): Promise<number | null> {
    let changed = 0;
    const drop = async (hashes: string[], kind: keyof typeof VECTOR_NAMES) => {
      const keepFields = VECTOR_NAMES[kind].map((name) => vectorField(model, name));
      for (let i = 0; i < hashes.length; i += DROP_BATCH) {
        const call = dropStaleVectorsCall({ embeddingModel: keys.embeddingModel(tenantId), reembed: keys.reembed(tenantId), hashes: hashes.slice(i, i + DROP_BATCH), model, keepFields });
        const n = await this.redis.dropStaleVectors(...call);
        if (n < 0) return false;
        changed += n;
      }
      return true;
    };
    // Each call checks that the model is still the tenant's and no re-embed has started since.
    const products = (await this.redis.zrange(keys.products(tenantId), '0', '-1')).map((id) => keys.productVectors(tenantId, id));
    if (!(await drop(products, 'product'))) return null;
    if (!(await drop((await allEntryIds(this.redis, tenantId)).map((id) => keys.entry(tenantId, id)), 'entry'))) return null;
    return changed;
  }

  async progress(tenantId: string): Promise<ReembedProgress | null> {
    const h = await this.redis.hgetall(keys.reembed(tenantId));
    if (!h.model) return null;
    return { model: h.model, total: Number(h.total), done: Math.min(Number(h.done), Number(h.total)), startedAt: h.started_at, finishedAt: h.finished_at ?? null };
  }
}
