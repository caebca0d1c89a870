// The tag of a query_id (domain/queryIds.ts): a keyed pseudorandom function of the tenant and the
// id's bytes, cheap enough for every search. An HMAC-SHA256 per search cost more than the rest of
// counting it (each createHmac sets a key up anew), so the HMAC covers what repeats within a
// second (tenant, version, time, site, positions shown) once per tenant, those bytes and second,
// and a block cipher mixes in each search's random bytes:
//   tag = AES-256(k', HMAC-SHA256(secret, tenant id | version | time | site | positions)[0..10) | random)[0..12)
// with k' = HMAC-SHA256(secret, BLOCK_KEY_LABEL). AES is a pseudorandom permutation and the HMAC
// prefix differs per tenant, site, positions and second, so tags seen tell nothing of another's.
import { createCipheriv, createHmac, type Cipher } from 'node:crypto';

const BLOCK_KEY_LABEL = 'kcs query-id block key';
/** Bytes of the query_id (offsets in its payload: version 0, time 1–4, random 5–10, site 11–26, version 2's positions 27–30). */
const RANDOM = { from: 5, to: 11 };
const CONTEXT_BYTES = 10;
export const TAG_BYTES = 12;
/** Contexts held for the current second, all tenants and sites together. */
const MAX_CONTEXTS = 10_000;

export class QueryIdKey {
  private readonly cipher: Cipher;
  private contexts = new Map<string, Buffer>();
  private second = -1;

  constructor(private readonly secret: Buffer) {
    this.cipher = createCipheriv('aes-256-ecb', createHmac('sha256', secret).update(BLOCK_KEY_LABEL).digest(), null);
    // Whole blocks in, whole blocks out: one cipher serves every tag (ECB keeps no state between blocks).
    this.cipher.setAutoPadding(false);
  }

  /**
   * The tag of a query_id's payload (its bytes before the tag) for a tenant. `contextKey`: the
   * bytes after the random ones (site, positions) as text, when the search is of the current
   * second (its context is kept).
   */
  tag(tenantId: string, payload: Buffer, contextKey?: string): Buffer {
    const block = Buffer.allocUnsafe(16);
    (contextKey === undefined ? this.compute(tenantId, payload) : this.context(tenantId, contextKey, payload)).copy(block, 0);
    payload.copy(block, CONTEXT_BYTES, RANDOM.from, RANDOM.to);
    return this.cipher.update(block).subarray(0, TAG_BYTES);
  }

  /** The HMAC prefix of a tenant, site, positions and second: kept for the newest second (nearly every search), computed for an older one. */
  private context(tenantId: string, contextKey: string, payload: Buffer): Buffer {
    const second = payload.readUInt32BE(1);
    if (second < this.second) return this.compute(tenantId, payload);
    if (second > this.second || this.contexts.size >= MAX_CONTEXTS) {
      this.second = second;
      this.contexts = new Map();
    }
    const key = `${tenantId} ${contextKey}`;
    let context = this.contexts.get(key);
    if (!context) this.contexts.set(key, (context = this.compute(tenantId, payload)));
    return context;
  }

  private compute(tenantId: string, payload: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(tenantId).update(payload.subarray(0, RANDOM.from)).update(payload.subarray(RANDOM.to))
      .digest().subarray(0, CONTEXT_BYTES);
  }
}
