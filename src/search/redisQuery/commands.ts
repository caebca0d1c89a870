// The FT commands a search of one collection sends: FT.SEARCH and FT.AGGREGATE with their replies
// parsed (replies.ts), FT.SPELLCHECK for the terms an index lacks, and document ids from keys. They
// go to the master holding the tenant's documents, or one of its replicas (replica reads: router.ts);
// a master that has moved is not followed, so that the engine checks the indexes there first
// (engine.ts).
import { parseAggregateReply, parseSearchReply, parseSpellcheckReply, type ParsedReply } from './replies.js';
import { termClause } from './query.js';
import type { Args, IndexRouter } from './router.js';
import type { Collection } from './schema.js';

/** FT.SEARCH arguments after the query, and its DIALECT ('2' unless given). */
export interface SearchArgs {
  args: (string | Buffer)[];
  dialect?: string;
}

export class IndexCommands {
  constructor(private readonly router: IndexRouter) {}

  private send(c: Collection, args: Args): Promise<unknown> {
    return this.router.read(c.tenantId, c.index, args);
  }

  async query(c: Collection, query: string, { args, dialect = '2' }: SearchArgs): Promise<ParsedReply> {
    const reply = await this.send(c, ['FT.SEARCH', c.index, query, ...args, 'DIALECT', dialect]);
    return parseSearchReply(reply, { withScores: args.includes('WITHSCORES'), noContent: args.includes('NOCONTENT') });
  }

  /** How many documents a query matches. */
  async count(c: Collection, query: string): Promise<number> {
    return (await this.query(c, query, { args: ['NOCONTENT', 'LIMIT', '0', '0'] })).total;
  }

  async ids(c: Collection, query: string, k: number): Promise<string[]> {
    return (await this.query(c, query, { args: ['NOCONTENT', 'LIMIT', '0', String(k)] })).rows.map((r) => this.idOf(c, r.key));
  }

  /** An FT.AGGREGATE pipeline over a query's first `limit` matches (in the index's order). */
  async aggregate(c: Collection, query: string, { limit, pipeline }: { limit: number; pipeline: string[] }): Promise<ParsedReply> {
    // A LIMIT ahead of the pipeline ends the read of the matches there.
    return parseAggregateReply(await this.send(c, ['FT.AGGREGATE', c.index, query, 'LIMIT', '0', String(limit), ...pipeline, 'DIALECT', '2']));
  }

  /**
   * The first `k` matches of a query in the order of `sortBy` (property/direction pairs, ties by
   * BM25), with the fields `load` reads from the index and each score; the total of matches.
   */
  async sorted(c: Collection, query: string, { sortBy, load, k }: { sortBy: string[]; load: string[]; k: number }): Promise<ParsedReply> {
    const fields = ['@__key', ...load.map((f) => `@${f}`)];
    return parseAggregateReply(await this.send(c, [
      'FT.AGGREGATE', c.index, query, 'ADDSCORES', 'SCORER', 'BM25', 'LOAD', String(fields.length), ...fields,
      'SORTBY', String(sortBy.length + 2), ...sortBy, '@__score', 'DESC', 'MAX', String(Math.max(1, k)), 'DIALECT', '2',
    ]));
  }

  /** The terms among `terms` that the index's dictionary lacks: one look-up for all of them, no posting list read. */
  async missingTerms(c: Collection, terms: string[]): Promise<Set<string>> {
    if (terms.length === 0) return new Set();
    // A quoted term (query.ts termClause) is not checked: it counts as known.
    return parseSpellcheckReply(await this.send(c, ['FT.SPELLCHECK', c.index, terms.map(termClause).join(' '), 'DIALECT', '2']));
  }

  idOf(c: Collection, key: string): string {
    return key.slice(c.prefix.length);
  }
}
