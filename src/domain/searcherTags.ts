// Who searched, for the distinct searchers a query needs before it is suggested
// (domain/searchCounter.ts): a caller is its API key (or OAuth token) and client address and,
// when the search sends one, its user_token. Only keyed tags of 4 bytes are stored, each of one
// tenant, day and query, so that nothing stored names a shopper or links one shopper's queries:
//   tag = HMAC-SHA256(k, kind | tenant id | day | caller or user_token | query)[0..4)
// with k = HMAC-SHA256(secret, KEY_LABEL). A searcher's record is its caller's tag, then its
// user_token's (zeros: none). Tags are made when the counts are written (once a second), not per search.
import { createHmac } from 'node:crypto';

const KEY_LABEL = 'kcs searcher tag key';
export const TAG_BYTES = 4;
export const RECORD_BYTES = 2 * TAG_BYTES;

/** The caller of a product search as the HTTP route (or MCP) knows it. */
export interface SearchCaller {
  /** The API key or OAuth token id. */
  credentialId: string;
  /** The client address (req.remoteAddress); null where there is none (MCP). */
  address: string | null;
}

/** A search's searcher, in the clear, held in memory until the counts are written. */
export interface Searcher {
  /** The key and address. */
  caller: string;
  userToken: string | null;
}

export const searcherOf = (caller: SearchCaller, userToken: string | undefined): Searcher =>
  ({ caller: `${caller.credentialId} ${caller.address ?? ''}`, userToken: userToken ?? null });

/** Makes the records of searchers, once the shared secret is read. */
export type RecordMaker = (tenantId: string, day: string, query: string, searcher: Searcher) => Buffer;

export class SearcherTags {
  private loading: Promise<RecordMaker> | null = null;

  /** `loadSecret`: the shared analytics secret (store/searchAnalytics.ts secret()). */
  constructor(private readonly loadSecret: () => Promise<Buffer>) {}

  /** The record maker, the secret read once per process (a failed read is tried again by the next call). */
  records(): Promise<RecordMaker> {
    this.loading ??= this.loadSecret().then(
      (secret) => maker(createHmac('sha256', secret).update(KEY_LABEL).digest()),
      (error: unknown) => {
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}

function maker(key: Buffer): RecordMaker {
  const tag = (kind: string, tenantId: string, day: string, value: string, query: string) =>
    // The value holds no NUL (a key id and address, or a user_token): the query after it is unambiguous.
    createHmac('sha256', key).update(`${kind}\0${tenantId}\0${day}\0${value}\0${query}`).digest().subarray(0, TAG_BYTES);
  return (tenantId, day, query, searcher) => {
    const record = Buffer.alloc(RECORD_BYTES);
    tag('caller', tenantId, day, searcher.caller, query).copy(record, 0);
    if (searcher.userToken !== null) {
      tag('user_token', tenantId, day, searcher.userToken, query).copy(record, TAG_BYTES);
      // Zeros say "no user_token": a tag of zeros is made another.
      if (record.readUInt32BE(TAG_BYTES) === 0) record[RECORD_BYTES - 1] = 1;
    }
    return record;
  };
}
