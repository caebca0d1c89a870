// The query_id of a counted search: stateless and signed, so that a search costs no write to be
// named later, and an event names a search of its own tenant that really ran, with its time, site
// and the positions its answer showed. base64url of: version (1 byte) | search time, unix seconds
// (4) | random (6) | site id (16, zeros: none) | (version 2) first and last position shown (2 + 2)
// | a 12-byte tag, keyed by the secret, of the tenant id and the bytes before
// (domain/queryIdKey.ts). Version 1 (no positions) is still taken for the day its ids live.
import { randomFillSync, timingSafeEqual } from 'node:crypto';
import { QueryIdKey, TAG_BYTES } from './queryIdKey.js';

const VERSION = 2;
const PAYLOAD = { 1: 1 + 4 + 6 + 16, 2: 1 + 4 + 6 + 16 + 4 } as const;
const MAC = TAG_BYTES;
/** The encoded lengths of version 1 and 2. */
const ENCODED = /^(?:[A-Za-z0-9_-]{52}|[A-Za-z0-9_-]{58})$/;
const NO_SITE = Buffer.alloc(16);
/** A query_id names a search of the last day. */
export const QUERY_ID_LIFETIME_MS = 24 * 3600 * 1000;
/** Processes' clocks may differ this much. */
const SKEW_MS = 5 * 60 * 1000;
/** The positions a version 1 id may name: any a search answers (offset ≤ 1000, limit ≤ 100). */
const V1_POSITIONS: ShownPositions = { first: 1, last: 1100 };

/** The 1-based positions of the first and last hit an answer showed (last < first: none). */
export interface ShownPositions {
  first: number;
  last: number;
}

export type QueryIdCheck = { ok: true; siteId: string | null; atMs: number; positions: ShownPositions } | { ok: false; why: 'invalid' | 'expired' };

export class QueryIds {
  private secret: QueryIdKey | null = null;
  private loading: Promise<QueryIdKey> | null = null;
  /** Random bytes drawn in blocks: one system call per 1,024 query_ids. */
  private readonly pool = Buffer.alloc(6 * 1024);
  private poolAt = this.pool.length;

  /** `loadSecret`: the shared key, read once per process when first needed. */
  constructor(private readonly loadSecret: () => Promise<Buffer>) {}

  /** A query_id for a search; at once once the key is known (a search awaits nothing it need not). */
  issue(tenantId: string, siteId: string | null, atMs: number, shown: ShownPositions): string | Promise<string> {
    if (this.secret) return this.sign(this.secret, tenantId, siteId, atMs, shown);
    return this.key().then((secret) => this.sign(secret, tenantId, siteId, atMs, shown));
  }

  private sign(secret: QueryIdKey, tenantId: string, siteId: string | null, atMs: number, shown: ShownPositions): string {
    const payload = PAYLOAD[VERSION];
    const bytes = Buffer.allocUnsafe(payload + MAC);
    bytes[0] = VERSION;
    bytes.writeUInt32BE(Math.floor(atMs / 1000), 1);
    if (this.poolAt === this.pool.length) {
      randomFillSync(this.pool);
      this.poolAt = 0;
    }
    this.pool.copy(bytes, 5, this.poolAt, (this.poolAt += 6));
    if (siteId === null) NO_SITE.copy(bytes, 11);
    else bytes.write(siteId.replaceAll('-', ''), 11, 16, 'hex');
    bytes.writeUInt16BE(shown.first, 27);
    bytes.writeUInt16BE(shown.last, 29);
    secret.tag(tenantId, bytes.subarray(0, payload), `${siteId ?? ''} ${shown.first} ${shown.last}`).copy(bytes, payload);
    return bytes.toString('base64url');
  }

  /** What a presented query_id says, if this tenant's search issued it within the last day. */
  async check(tenantId: string, text: string, nowMs: number): Promise<QueryIdCheck> {
    if (!ENCODED.test(text)) return { ok: false, why: 'invalid' };
    const bytes = Buffer.from(text, 'base64url');
    const version = bytes[0];
    if ((version !== 1 && version !== 2) || bytes.length !== PAYLOAD[version] + MAC) return { ok: false, why: 'invalid' };
    // Version 2's last character has 4 bits to spare: one search has one query_id (events count once per query_id and product).
    if (version === 2 && bytes.toString('base64url') !== text) return { ok: false, why: 'invalid' };
    const payload = PAYLOAD[version];
    const secret = this.secret ?? (await this.key());
    if (!timingSafeEqual(secret.tag(tenantId, bytes.subarray(0, payload)), bytes.subarray(payload))) return { ok: false, why: 'invalid' };
    const atMs = bytes.readUInt32BE(1) * 1000;
    if (atMs > nowMs + SKEW_MS) return { ok: false, why: 'invalid' };
    if (nowMs - atMs > QUERY_ID_LIFETIME_MS) return { ok: false, why: 'expired' };
    const site = bytes.subarray(11, 27);
    const positions = version === 1 ? V1_POSITIONS : { first: bytes.readUInt16BE(27), last: bytes.readUInt16BE(29) };
    return { ok: true, siteId: site.equals(NO_SITE) ? null : uuidOf(site), atMs, positions };
  }

  private key(): Promise<QueryIdKey> {
    // Concurrent first searches share one read; a failed read is tried again by the next.
    this.loading ??= this.loadSecret().then(
      (secret) => (this.secret = new QueryIdKey(secret)),
      (error: unknown) => {
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
